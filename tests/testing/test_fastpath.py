"""mock_dynamodb's shared botocore work (dynabase.testing.fastpath): faster, and the same as botocore's own."""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any

import boto3
import botocore.client
import botocore.hooks
import botocore.loaders
import botocore.regions
import botocore.session
import pytest
from botocore.config import Config

from dynabase.testing import fastpath, mock_dynamodb

TABLE = {
    "TableName": "fast",
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _file_reads(session: Any) -> list[str]:
    """Record the files a botocore session's loader reads from now on."""
    loader = session._session.get_component("data_loader")
    reads: list[str] = []
    original = loader.file_loader.load_file

    def load_file(path: str) -> Any:
        reads.append(path)
        return original(path)

    loader.file_loader.load_file = load_file
    return reads


def test_sessions_share_loaded_models_only_while_a_mock_is_active() -> None:
    with mock_dynamodb():
        boto3.Session(region_name="us-east-1").client("dynamodb")
        second = boto3.Session(region_name="us-east-1")
        reads = _file_reads(second)
        client = second.client("dynamodb")
        assert reads == []  # service model, endpoints, rule set and retry rules: all from the first session
        assert (
            botocore.loaders.Loader.load_service_model
            is not fastpath._originals[(botocore.loaders.Loader, "load_service_model")]
        )
        client.create_table(**TABLE)
        assert client.describe_table(TableName="fast")["Table"]["TableStatus"] == "ACTIVE"
    assert not fastpath.engaged()
    assert "load_service_model" in botocore.loaders.Loader.__dict__
    assert not hasattr(botocore.loaders.Loader.__dict__["load_service_model"], "__wrapped__")
    after = boto3.Session(region_name="us-east-1")
    reads = _file_reads(after)
    after.client("dynamodb")
    assert any("service-2" in path for path in reads)  # botocore's own loader again: it reads the files


def test_nested_mocks_keep_the_shared_caches_until_the_last_stops() -> None:
    provider = botocore.regions.EndpointProvider
    outer = mock_dynamodb()
    outer.start()
    try:
        with mock_dynamodb():
            assert fastpath.engaged()
        assert fastpath.engaged()
        assert botocore.regions.EndpointProvider is fastpath._shared_provider
    finally:
        outer.stop()
    assert not fastpath.engaged()
    assert botocore.regions.EndpointProvider is provider
    assert botocore.client.ClientCreator.__dict__["_load_service_model"] is not fastpath._service_model


def test_clients_stay_independent() -> None:
    with mock_dynamodb():
        first = boto3.Session(region_name="us-east-1").client("dynamodb")
        second = boto3.Session(region_name="us-east-1").client("dynamodb")
        assert first.meta.service_model is second.meta.service_model  # shared: it is read-only
        assert first.meta.events is not second.meta.events
        seen: list[str] = []
        first.meta.events.register("before-call.dynamodb.ListTables", lambda **_: seen.append("first"))
        second.list_tables()
        assert seen == []
        first.list_tables()
        assert seen == ["first"]


def test_endpoints_still_resolve_per_client() -> None:
    with mock_dynamodb():
        east = boto3.client("dynamodb", region_name="us-east-1")
        west = boto3.client("dynamodb", region_name="eu-west-1")
        fips = boto3.client("dynamodb", region_name="us-west-2", config=Config(use_fips_endpoint=True))
        local = boto3.client("dynamodb", region_name="us-east-1", endpoint_url="http://localhost:9")
        assert east.meta.endpoint_url == "https://dynamodb.us-east-1.amazonaws.com"
        assert west.meta.endpoint_url == "https://dynamodb.eu-west-1.amazonaws.com"
        assert fips.meta.endpoint_url == "https://dynamodb-fips.us-west-2.amazonaws.com"
        assert local.meta.endpoint_url == "http://localhost:9"
        west.create_table(**TABLE)
        assert west.list_tables()["TableNames"] == ["fast"]
        assert east.list_tables()["TableNames"] == []  # each region is its own database, as before


def test_credentials_the_user_set_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAUSERKEY")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "user-secret")
    with mock_dynamodb(accounts={"AKIAUSERKEY": "210987654321"}):
        session = boto3.Session(region_name="us-east-1")
        assert session.get_credentials().access_key == "AKIAUSERKEY"
        client = session.client("dynamodb")
        client.create_table(**TABLE)
        arn = client.describe_table(TableName="fast")["Table"]["TableArn"]
        assert ":210987654321:" in arn  # the request was signed with the user's key
        explicit = boto3.client(
            "dynamodb", region_name="us-east-1", aws_access_key_id="123456789012", aws_secret_access_key="s"
        )
        assert explicit.list_tables()["TableNames"] == []  # another account: its own database


def test_fake_credentials_when_none_are_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/config")
    with mock_dynamodb():
        assert boto3.Session(region_name="us-east-1").get_credentials().access_key == "testing"
    assert "AWS_ACCESS_KEY_ID" not in __import__("os").environ


def _structure(node: Any) -> Any:
    if isinstance(node, botocore.hooks.NodeList):
        return ("nodes", [list(part) for part in node])
    if isinstance(node, dict):
        return {key: _structure(value) for key, value in node.items()}
    return node


def _shares_containers(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a is b or any(_shares_containers(a[k], b[k]) for k in a)
    if isinstance(a, botocore.hooks.NodeList):
        return a is b or any(x is y for x, y in zip(a, b, strict=True))
    return False


def test_the_emitter_copy_is_botocores() -> None:
    session = boto3.Session(region_name="us-east-1")._session
    trie = session.get_component("event_emitter")._emitter._handlers
    expected = copy.copy(trie)  # botocore's own copy
    fastpath.engage()
    try:
        copied = copy.copy(trie)
    finally:
        fastpath.release()
    assert _structure(copied.__dict__) == _structure(expected.__dict__) == _structure(trie.__dict__)
    assert not _shares_containers(copied.__dict__, trie.__dict__)  # new dicts and lists, as botocore's


def test_handlers_without_kwargs_are_still_refused() -> None:
    class Handlers:
        def good(self, **kwargs: Any) -> None:
            return None

        def bad(self, request: Any) -> None:
            return None

    handlers = Handlers()
    accepts_kwargs = botocore.hooks.accepts_kwargs
    with mock_dynamodb():
        assert botocore.hooks.accepts_kwargs is fastpath._accepts_kwargs
        for _ in range(2):  # the second answer comes from the memo
            client = boto3.client("dynamodb", region_name="us-east-1")
            client.meta.events.register("before-call.dynamodb.ListTables", handlers.good)
            with pytest.raises(ValueError, match="kwargs"):
                client.meta.events.register("before-call.dynamodb.ListTables", handlers.bad)
            with pytest.raises(ValueError, match="kwargs"):
                client.meta.events.register("before-call.dynamodb.ListTables", lambda request: None)
        assert client.list_tables()["TableNames"] == []
    assert botocore.hooks.accepts_kwargs is accepts_kwargs


def test_a_client_kept_past_the_mock_gets_its_http_session() -> None:
    from dynabase.server import run_in_thread

    url, stop = run_in_thread()
    try:
        with mock_dynamodb():
            client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=url)
            streams = boto3.client("dynamodbstreams", region_name="us-east-1", endpoint_url=url)
            s3 = boto3.client("s3", region_name="us-east-1")
            client.create_table(**TABLE)  # answered in process
            session = client._endpoint.http_session
            assert isinstance(session, fastpath.LazyHTTPSession) and session._session is None
            assert isinstance(streams._endpoint.http_session, fastpath.LazyHTTPSession)
            assert not isinstance(s3._endpoint.http_session, fastpath.LazyHTTPSession)  # not ours to answer
        assert client.list_tables()["TableNames"] == []  # the real server, over HTTP: a fresh database
        assert session._session is not None
        assert streams.list_streams()["Streams"] == []
        client.close()
        streams.close()
    finally:
        stop()
    after = boto3.client("dynamodb", region_name="us-east-1")
    assert not isinstance(after._endpoint.http_session, fastpath.LazyHTTPSession)


def test_a_trie_of_another_shape_is_copied_by_botocore() -> None:
    trie = botocore.hooks._PrefixTrie()
    trie.append_item("before-call.dynamodb.PutItem", len)
    trie._root["children"]["before-call"]["extra"] = ["kept"]  # a node shape this botocore does not have
    expected = copy.copy(trie)
    fastpath.engage()
    try:
        copied = copy.copy(trie)
    finally:
        fastpath.release()
    assert _structure(copied.__dict__) == _structure(expected.__dict__)
    assert copied._root["children"]["before-call"]["extra"] == ["kept"]


class _Stop(Exception):
    pass


def test_aliased_event_names_still_reach_only_their_client() -> None:
    """Emitters copied under the mock share the alias cache (old event names -> new), not the handlers."""
    seen: list[str] = []

    def stop(name: str) -> Any:
        def handler(**_: Any) -> None:
            seen.append(name)
            raise _Stop  # before anything is sent: pricing is not a service the mock answers

        return handler

    with mock_dynamodb():
        first = boto3.client("pricing", region_name="us-east-1")
        second = boto3.client("pricing", region_name="us-east-1")
        assert first.meta.events._alias_name_cache is second.meta.events._alias_name_cache
        first.meta.events.register(
            "before-parameter-build.api.pricing.GetProducts", stop("first")
        )  # old name
        second.meta.events.register("before-parameter-build.pricing.GetProducts", stop("second"))
        with pytest.raises(_Stop):
            first.get_products(ServiceCode="AmazonDynamoDB")
        with pytest.raises(_Stop):
            second.get_products(ServiceCode="AmazonDynamoDB")
    assert seen == ["first", "second"]


# -- botocore's internals change: the mock falls back to botocore's own code, never breaks


def _round_trip() -> None:
    """What a user's first test does: a client, a table, a put and a get, a query through a paginator."""
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(**TABLE)
    client.put_item(TableName="fast", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    assert client.get_item(TableName="fast", Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "1"}
    pages = client.get_paginator("scan").paginate(TableName="fast")
    assert [item["pk"]["S"] for page in pages for item in page["Items"]] == ["a"]
    boto3.resource("dynamodb", region_name="us-east-1").Table("fast").put_item(Item={"pk": "b"})


def _changed(original: Any) -> Any:
    """botocore's own function as a later botocore might have it: one more keyword parameter, and a record of
    the calls it gets."""
    calls: list[int] = []
    if isinstance(original, type):

        class Changed(original):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, added_later: Any = None, **kwargs: Any) -> None:
                calls.append(1)
                super().__init__(*args, **kwargs)

        Changed.calls = calls  # type: ignore[attr-defined]
        return Changed

    @functools.wraps(original)
    def changed(*args: Any, added_later: Any = None, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    del changed.__wrapped__  # its signature is its own, as a changed function's would be
    changed.calls = calls  # type: ignore[attr-defined]
    return changed


@pytest.mark.parametrize("patch", fastpath.PATCHES, ids=lambda patch: patch.name)
def test_an_internal_of_another_shape_is_left_to_botocore(
    patch: fastpath.Patch, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = patch.owner()
    original = owner.__dict__[patch.attribute] if isinstance(owner, type) else getattr(owner, patch.attribute)
    changed = _changed(original)
    monkeypatch.setattr(owner, patch.attribute, changed)
    with mock_dynamodb():
        if patch.shapes is None:  # it passes every argument on: in place, botocore's own runs under it
            assert getattr(owner, patch.attribute) is not changed
            assert patch.name not in fastpath.fallbacks()
        else:
            assert getattr(owner, patch.attribute) is changed
            assert "parameters" in fastpath.fallbacks()[patch.name]
        _round_trip()
    assert getattr(owner, patch.attribute) is changed
    if patch.shapes is not None:
        assert changed.calls  # botocore's own code ran


@pytest.mark.parametrize("patch", fastpath.PATCHES, ids=lambda patch: patch.name)
def test_an_internal_that_is_gone_is_left_out(patch: fastpath.Patch, monkeypatch: pytest.MonkeyPatch) -> None:
    owner = patch.owner()
    if isinstance(owner, type):
        monkeypatch.delattr(owner, patch.attribute)
        assert patch.attribute not in owner.__dict__
    else:
        monkeypatch.setattr(owner, patch.attribute, None)
    with mock_dynamodb():
        assert fastpath.fallbacks()[patch.name] == "not found"
        assert getattr(owner, patch.attribute, None) is None or patch.attribute not in owner.__dict__
    assert not fastpath.engaged()


def test_a_provider_called_with_arguments_it_does_not_know_is_botocores() -> None:
    """A botocore whose resolver passes the provider a new argument (as 1.43.14 did with excluded_params):
    the shared provider passes it on, or lets botocore's own provider answer."""
    with mock_dynamodb():
        loader = botocore.session.get_session().get_component("data_loader")
        ruleset = loader.load_service_model("dynamodb", "endpoint-rule-set-1")
        partitions = loader.load_data("partitions")
        first = botocore.regions.EndpointProvider(ruleset_data=ruleset, partition_data=partitions)
        assert botocore.regions.EndpointProvider(ruleset_data=ruleset, partition_data=partitions) is first
        with pytest.raises(TypeError):  # botocore's own error for an argument its provider does not take
            botocore.regions.EndpointProvider(ruleset_data=ruleset, partition_data=partitions, unknown=1)


def test_the_s3_client_keeps_its_excluded_parameters() -> None:
    """botocore >= 1.43.14 makes S3's provider with ``excluded_params``: under the mock it is another provider
    than one made without them (the mock crashed every client on it before)."""
    if "excluded_params" not in inspect.signature(botocore.regions.EndpointProvider).parameters:
        pytest.skip("this botocore's EndpointProvider has no excluded_params")
    with mock_dynamodb():
        s3 = boto3.client("s3", region_name="us-east-1")
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        s3_provider = s3._ruleset_resolver._provider
        assert s3_provider is not dynamodb._ruleset_resolver._provider
        assert s3_provider is boto3.client("s3", region_name="us-east-1")._ruleset_resolver._provider
        assert s3.meta.endpoint_url.startswith("https://s3.")


def test_without_the_builtin_handler_list_the_mock_refuses_to_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never a mock that answers nothing (the requests would go to AWS): a clear error naming botocore."""
    import botocore.handlers

    from dynabase.testing import hook

    monkeypatch.delattr(botocore.handlers, "BUILTIN_HANDLERS")
    assert not hook.install()
    with pytest.raises(RuntimeError, match=r"cannot intercept requests with botocore \d"):
        mock_dynamodb().start()
    assert not fastpath.engaged()

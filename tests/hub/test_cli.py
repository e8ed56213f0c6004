"""``dynabase sync-hub`` and ``dynabase sync --mqtt`` as processes, against a real Mosquitto (password file and
ACL; and mqtts with client certificates)."""

from __future__ import annotations

import datetime
import ipaddress
import signal
from pathlib import Path
from typing import Any

import pytest

import dynabase
from dynabase.clock import VERSION_ATTR
from dynabase.model import Table
from processes import dynabase_command

from .broker import HUB_USER, Broker
from .commands import device_db, files, hub_command, sync_command
from .conftest import SCHEMA, Fleet, eventually, password


def test_the_hub_and_a_device_as_commands(fleet: Fleet, tmp_path: Path) -> None:
    schema, secrets = files(tmp_path)
    hub_args = hub_command(fleet, schema)
    with dynabase_command([*hub_args, "--username", HUB_USER, "--password-file", secrets[HUB_USER]]) as hub:
        hub.wait_for("sync-hub: ready")
        db = tmp_path / "dev1.db"
        device = device_db(fleet, db)
        device.Note.create({"id": "n1", "text": "from dev1"})
        device.client.close()
        fleet.cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "5"})
        with dynabase_command([*sync_command(fleet, schema, db, "dev1", secrets["dev1"]), "--once"]) as once:
            assert once.process.wait(60) == 0, once.rest()
            assert "in step: pushed 1, pulled 1" in once.rest()
        assert fleet.cloud_item("note#", "note#n1")["text"] == {"S": "from dev1"}
        with dynabase_command(sync_command(fleet, schema, db, "dev1", secrets["dev1"], "status")) as status:
            assert status.process.wait(60) == 0
            assert "pending changes: 0" in status.rest("stdout")
        # --watch: the hub's fan-out reaches the device database while it runs; SIGTERM stops it
        with dynabase_command(
            [*sync_command(fleet, schema, db, "dev1", secrets["dev1"]), "--watch"]
        ) as watch:
            watch.wait_for("sync: watching (device dev1)")
            fleet.cloud.Setting.update({"deviceId": "dev1", "name": "rate", "value": "6"})
            reader = Table(fleet.name, dynabase.connect(str(db)), SCHEMA, side="device")
            try:
                eventually(
                    lambda: reader.Setting.get({"deviceId": "dev1", "name": "rate"})["value"] == "6",
                    "the fan-out",
                )
            finally:
                reader.client.close()
            assert watch.stop(signal.SIGTERM) == 0
        # a device with the wrong password: a clear failure, nothing written
        db2 = tmp_path / "dev2.db"
        device_db(fleet, db2).client.close()
        wrong = tmp_path / "wrong.pw"
        wrong.write_text("nope\n")
        with dynabase_command(
            [*sync_command(fleet, schema, db2, "dev2", str(wrong)), "--once", "--retries", "1"]
        ) as bad:
            assert bad.process.wait(90) == 1
            assert "refused the connection" in bad.rest() or "cannot reach" in bad.rest()
        assert hub.stop(signal.SIGTERM) == 0
        assert "sync-hub: stopped" in hub.rest()


def test_the_commands_name_what_is_wrong(fleet: Fleet, tmp_path: Path) -> None:
    schema, secrets = files(tmp_path)
    db = tmp_path / "dev.db"
    cases = [
        (
            ["sync-hub", schema, "--table", fleet.name, "--mqtt", fleet.broker.url],
            2,
            "--endpoint-url URL or --db",
        ),
        (
            [
                "sync-hub",
                schema,
                "--table",
                "nope",
                "--db",
                str(fleet.cloud_path),
                "--mqtt",
                fleet.broker.url,
            ],
            1,
            "the table nope does not exist",
        ),
        (
            [
                "sync-hub",
                schema,
                "--table",
                fleet.name,
                "--db",
                str(fleet.cloud_path),
                "--mqtt",
                "http://x:1",
            ],
            1,
            "must be mqtt://HOST:PORT or mqtts://HOST:PORT",
        ),
        (
            [*sync_command(fleet, schema, db, "dev1", str(tmp_path / "missing.pw")), "--once"],
            1,
            "--password-file",
        ),
        ([*sync_command(fleet, schema, db, "dev/1", secrets["dev1"]), "--once"], 1, "the device id 'dev/1'"),
        (
            [
                *sync_command(fleet, schema, db, "dev1", secrets["dev1"]),
                "--once",
                "--endpoint-url",
                "http://x",
            ],
            2,
            "--mqtt syncs through a hub",
        ),
        (
            ["sync", schema, "--db", str(db), "--table", "t", "--username", "u", "--once"],
            2,
            "go with --mqtt",
        ),
    ]
    for args, status, message in cases:
        with dynabase_command(args) as child:
            assert child.process.wait(60) == status, (args, child.rest())
            assert message in child.rest(), (args, child.rest())


# -- mqtts with client certificates ------------------------------------------------------------------------------


def _certificates(directory: Path) -> dict[str, str]:
    """A CA, the broker's certificate for 127.0.0.1 and client certificates for the hub and dev1."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

    def write(stem: str, key: Any, cert: x509.Certificate) -> None:
        (directory / f"{stem}.key").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        (directory / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("dynabase test CA"))
        .issuer_name(name("dynabase test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    write("ca", ca_key, ca)
    for stem, extension in (
        ("broker", x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])),
        (HUB_USER, None),
        ("dev1", None),
    ):
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (
            x509.CertificateBuilder()
            .subject_name(name(stem))
            .issuer_name(ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
        )
        if extension is not None:
            builder = builder.add_extension(extension, critical=False)
        write(stem, key, builder.sign(ca_key, hashes.SHA256()))
    return {stem: str(directory / stem) for stem in ("ca", "broker", HUB_USER, "dev1")}


@pytest.fixture
def tls_fleet(tmp_path: Path) -> Any:
    from .broker import ensure_mosquitto

    missing = ensure_mosquitto()
    if missing:
        pytest.fail(missing)
    directory = tmp_path / "tls"
    directory.mkdir()
    certs = _certificates(directory)
    broker = Broker(
        directory, {}, tls=(certs["ca"] + ".pem", certs["broker"] + ".pem", certs["broker"] + ".key")
    )
    broker.start()
    fleet = Fleet(broker, tmp_path)
    try:
        yield fleet, certs
    finally:
        fleet.close()
        broker.stop()


def test_mqtts_with_client_certificates(tls_fleet: Any, tmp_path: Path) -> None:
    fleet, certs = tls_fleet
    schema, _ = files(tmp_path)
    ca = certs["ca"] + ".pem"

    def cert(stem: str) -> list[str]:
        return ["--cert", certs[stem] + ".pem", "--key", certs[stem] + ".key", "--ca", ca]

    hub_args = hub_command(fleet, schema)
    with dynabase_command([*hub_args, "--client-id", "the-hub", *cert(HUB_USER)]) as hub:
        hub.wait_for("sync-hub: ready")
        db = tmp_path / "dev1.db"
        device = device_db(fleet, db)
        device.Note.create({"id": "n1", "text": "over TLS"})
        device.client.close()
        args = ["sync", schema, "--db", str(db), "--table", fleet.name, "--mqtt", fleet.broker.url]
        with dynabase_command([*args, "--device-id", "dev1", *cert("dev1"), "--once"]) as once:
            assert once.process.wait(60) == 0, once.rest()
        eventually(lambda: fleet.cloud_item("note#", "note#n1"), "the note in the cloud")
        assert hub.stop(signal.SIGTERM) == 0


def test_the_hub_over_an_endpoint_with_streams(broker: Broker, tmp_path: Path, watching: Any) -> None:
    """``--endpoint-url``: the table behind ``dynabase serve`` (started here), its stream read through the
    endpoint, the checkpoints in a table there; a device pushes and receives the stream's fan-out."""
    from backends import FAKE_CREDENTIALS, REGION, boto3_client
    from dynabase.server.runner import start_subprocess
    from dynabase.sync import Sync
    from dynabase.sync.mqtt import MqttCloud

    schema, secrets = files(tmp_path)
    with start_subprocess(":memory:", args=["-q"]) as served:
        client = boto3_client("dynamodb", served.url)
        cloud = Table("app", client, SCHEMA, side="cloud")
        cloud.create_table(stream="NEW_AND_OLD_IMAGES")
        env = {"AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"], "AWS_SECRET_ACCESS_KEY": "x"}
        args = ["sync-hub", schema, "--table", "app", "--endpoint-url", served.url, "--region", REGION]
        args += ["--mqtt", broker.url, "--username", HUB_USER, "--password-file", secrets[HUB_USER]]
        args += ["--workers", "2", "--poll", "0.1", "--context", "site=lab", "--tombstone-ttl", "86400"]
        with dynabase_command(args, env=env) as hub:
            hub.wait_for("sync-hub: ready")
            device = Table("app", dynabase.connect(":memory:"), SCHEMA, side="device")
            device.create_table()
            # a short timeout: the watching loop's request after the hub stopped held the teardown 30 s
            transport = MqttCloud(
                broker.url,
                table="app",
                device_id="dev1",
                username="dev1",
                password=password("dev1"),
                timeout=2.0,
            )
            sync = Sync(device, transport)
            try:
                device.Note.create({"id": "n1", "text": "through the endpoint"})
                assert sync.sync_once().pushed == 1
                assert cloud.Note.get({"id": "n1"})["text"] == "through the endpoint"
                watching(sync)
                cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "4"})
                eventually(lambda: device.Setting.get({"deviceId": "dev1", "name": "rate"}), "the fan-out")
            finally:
                transport.close()
            assert "app-sync-hub" in client.list_tables()["TableNames"]  # the stream's checkpoints
            assert hub.stop(signal.SIGINT) == 0


def test_a_hub_killed_with_sigkill_mid_pushes_loses_nothing_and_applies_nothing_twice(
    fleet: Fleet, tmp_path: Path, watching: Any
) -> None:
    """``kill -9`` of the ``sync-hub`` process while a device's pushes flow: some of them were written and never
    answered. The device asks again until a hub answers; the next hub finds those versions there already. Every
    change lands once, with the version the device gave it, and nothing is refused."""
    schema, secrets = files(tmp_path)
    hub_args = [*hub_command(fleet, schema), "--username", HUB_USER, "--password-file", secrets[HUB_USER]]
    device, sync = fleet.device("dev1", timeout=2.0)
    with dynabase_command(hub_args) as hub:
        hub.wait_for("sync-hub: ready")
        sync.sync_once()
        watching(sync)
        for n in range(40):
            device.Note.create({"id": f"n{n}", "text": f"note {n}"})
            if n == 20:
                eventually(lambda: fleet.cloud_item("note#", "note#n0"), "the first pushes landed")
                hub.process.kill()  # SIGKILL: no goodbye, answers in flight lost
                hub.process.wait(30)
        assert sync.pending() > 0  # what the dead hub never answered, and what came after
    with dynabase_command(hub_args) as again:
        again.wait_for("sync-hub: ready")
        eventually(lambda: sync.pending() == 0, "every change acknowledged by the new hub")
        assert again.stop(signal.SIGTERM) == 0
    for n in range(40):
        key = {"pk": {"S": "note#"}, "sk": {"S": f"note#n{n}"}}
        local = device.client.get_item(TableName=fleet.name, Key=key)["Item"]
        cloud = fleet.cloud_item("note#", f"note#n{n}")
        assert cloud is not None and cloud["text"] == {"S": f"note {n}"}
        # the version the device gave the change, acknowledged to it: landed once, never re-stamped
        assert cloud[VERSION_ATTR] == local[VERSION_ATTR]
        assert VERSION_ATTR in local and local[VERSION_ATTR]["S"].endswith("dev1")
    assert sync.status().quarantined == []


def test_the_max_payload_default_is_the_protocols() -> None:
    """The option's default is spelled in the CLI (importing sync there would slow every command's start)."""
    import argparse

    from dynabase.cli.mqttopts import add_broker_arguments
    from dynabase.sync import wire

    parser = argparse.ArgumentParser()
    add_broker_arguments(parser, "a test")
    assert parser.parse_args([]).max_payload == wire.MAX_PAYLOAD

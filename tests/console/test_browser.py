"""The console in a real headless Chromium: list tables, page through a query both ways, edit an item, see a
validation error on a field, create an entity, run PartiQL, and no way in without the token. The same tests
write the README's screenshots: into ``docs/images/console-*.png`` when ``DYNABASE_SCREENSHOTS=1`` (so a test
run leaves the work tree clean), else into a temporary folder, so the screenshot step itself is still tested."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import launched

IMAGES = (
    Path(__file__).resolve().parents[2] / "docs" / "images"
    if os.environ.get("DYNABASE_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / f"dynabase-console-shots-{os.getpid()}"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched() as instance:
        yield instance


@pytest.fixture
def page(browser: Any, console_server: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 820})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(console_server.url)
    tab.wait_for_selector("#tables a")
    yield tab
    context.close()
    assert not errors, errors


def shot(page: Any, name: str, full: bool = False) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    path = IMAGES / f"console-{name}.png"
    page.screenshot(path=str(path), full_page=full)
    assert path.stat().st_size > 1000  # an image, not an empty file


def test_lists_tables_and_describes_one(page: Any, console_server: Any) -> None:
    from playwright.sync_api import expect

    assert page.url == f"{console_server.base}/console/"  # the token left the address bar
    expect(page.locator("#tables a")).to_have_text(["device", "paged"])
    page.click("#tables >> text=device")
    overview = page.locator(".overview")
    expect(overview).to_contain_text("pk S (HASH), sk S (RANGE)")
    expect(overview.locator("table").nth(1)).to_contain_text("gs1")
    expect(overview).to_contain_text("Delete table")
    shot(page, "overview")


def run_query(page: Any) -> None:
    page.goto(page.url.split("#")[0] + "#/table/paged/items")
    form = page.locator("form.query-form")
    form.locator("select[name=operation]").select_option("query")
    form.locator("input[name=keyCondition]").fill("pk = :p")
    form.locator("textarea[name=values]").fill('{":p": {"S": "p"}}')
    form.locator("input[name=limit]").fill("7")
    form.locator("button[type=submit]").click()


def first_column(page: Any) -> list[str]:
    return page.locator(".results table.grid tbody tr td:nth-child(2)").all_inner_texts()


def test_pages_through_a_query_both_ways(page: Any) -> None:
    from playwright.sync_api import expect

    run_query(page)
    sk = page.locator(".results table.grid tbody tr td:nth-child(2)")
    expect(sk).to_have_text([f"{i:02d}" for i in range(7)])
    seen = []
    for number in range(2, 6):
        page.click(".results .pager button.next")
        expect(page.locator(".page-label")).to_have_text(f"page {number}")
        seen.append(first_column(page))
    assert seen[-1] == ["28", "29"]
    expect(page.locator(".pager button.next")).to_be_disabled()
    shot(page, "items")
    for number in range(4, 0, -1):
        page.click(".results .pager button.prev")
        expect(page.locator(".page-label")).to_have_text(f"page {number}")
        if number > 1:
            assert first_column(page) == seen[number - 2]
    expect(sk).to_have_text([f"{i:02d}" for i in range(7)])
    expect(page.locator(".pager button.prev")).to_be_disabled()


def test_edits_an_item_and_shows_the_engines_error_on_it(page: Any, console_client: Any) -> None:
    from playwright.sync_api import expect

    run_query(page)
    page.locator(".results tbody tr", has_text="03").first.click()
    editor = page.locator("form.item-form")
    expect(editor.locator("textarea[name=item]")).to_have_value(
        '{\n  "pk": {\n    "S": "p"\n  },\n  "sk": {\n    "S": "03"\n  },\n  "n": {\n    "N": "3"\n  }\n}'
    )
    editor.locator("select[name=itemFormat]").select_option("plain")
    editor.locator("textarea[name=item]").fill(
        '{"pk": "p", "sk": "03", "n": 42, "note": "edited in the console"}'
    )
    editor.locator("button[type=submit]").click()
    expect(page.locator(".results tbody tr", has_text="edited in the console")).to_have_count(1)
    item = console_client.get_item(TableName="paged", Key={"pk": {"S": "p"}, "sk": {"S": "03"}})["Item"]
    assert item["n"] == {"N": "42"} and item["note"] == {"S": "edited in the console"}

    page.locator(".results tbody tr", has_text="04").first.click()
    editor.locator("select[name=itemFormat]").select_option("ddb")
    editor.locator("textarea[name=item]").fill('{"pk": {"S": "p"}, "sk": {"S": "04"}, "n": {"N": "four"}}')
    editor.locator("button[type=submit]").click()
    slot = editor.locator('[data-field="item"]')
    expect(slot).to_have_class("field invalid")
    expect(slot.locator(".field-error")).to_contain_text("cannot be converted into a number")
    shot(page, "item-editor", full=True)
    assert console_client.get_item(TableName="paged", Key={"pk": {"S": "p"}, "sk": {"S": "04"}})["Item"][
        "n"
    ] == {"N": "4"}


def test_shows_validation_errors_on_fields_then_creates_an_entity(page: Any, console_client: Any) -> None:
    from playwright.sync_api import expect

    page.goto(page.url.split("#")[0] + "#/table/device/entities")
    expect(page.locator(".group[data-model=Fault] .keys")).to_contain_text("pk = device#<deviceId>")
    page.locator("form.find-form select[name=model]").select_option("Fault")
    page.click("form.find-form >> text=New entity")
    form = page.locator("form.save-form")
    form.locator("input[name=deviceId]").fill("d9")
    form.locator("input[name=email]").fill("not-an-email")
    form.locator("button[type=submit]").click()
    expect(form.locator('[data-field="email"] .field-error')).to_contain_text('Bad value "not-an-email"')
    expect(form.locator('[data-field="message"] .field-error')).to_contain_text("required")
    expect(form.locator('[data-field="severity"] .field-error')).to_contain_text("required")
    expect(form.locator('[data-field="deviceId"] .field-error')).to_have_text("")
    shot(page, "entity-errors", full=True)

    form.locator("input[name=email]").fill("ops@example.com")
    form.locator("input[name=message]").fill("pressure low")
    form.locator("select[name=severity]").select_option("warn")
    form.locator("button[type=submit]").click()
    expect(form.locator(".ok")).to_contain_text("Created Fault")
    expect(form.locator(".field-error:not(:empty)")).to_have_count(0)

    find = page.locator("form.find-form")
    find.locator("input[name=deviceId]").fill("d9")
    find.locator("button[type=submit]").click()
    expect(find.locator(".found tbody tr")).to_have_count(1)
    expect(find.locator(".found tbody tr")).to_contain_text("pressure low")
    from dynabase.model import Table

    from .helpers import SCHEMA

    assert [
        f["message"] for f in Table("device", console_client, SCHEMA).model("Fault").find({"deviceId": "d9"})
    ] == ["pressure low"]
    shot(page, "entities", full=True)


def test_runs_a_partiql_statement(page: Any) -> None:
    from playwright.sync_api import expect

    page.click("header >> text=PartiQL")
    form = page.locator("form.partiql-form")
    form.locator("textarea[name=statement]").fill(
        'SELECT pk, sk, n FROM "paged" WHERE pk = ? AND sk BETWEEN ? AND ?'
    )
    form.locator("textarea[name=parameters]").fill('[{"S": "p"}, {"S": "10"}, {"S": "12"}]')
    form.locator("button[type=submit]").click()
    expect(page.locator("#main .results tbody tr")).to_have_count(3)
    expect(page.locator("#main .results tbody tr").first).to_contain_text("10")
    shot(page, "partiql")
    form.locator("textarea[name=statement]").fill('SELECT * FROM "no_such_table"')
    form.locator("textarea[name=parameters]").fill("")
    form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text("ResourceNotFoundException")


def test_shows_the_schema_documentation(page: Any) -> None:
    from playwright.sync_api import expect

    page.click("header >> text=Schema docs")
    frame = page.frame_locator("iframe.docs")
    expect(frame.locator("h1")).to_have_text("device")
    expect(frame.locator("body")).to_contain_text("device#<deviceId>")
    shot(page, "docs")


def test_refuses_a_browser_without_the_token(browser: Any, console_server: Any) -> None:
    context = browser.new_context()
    try:
        tab = context.new_page()
        response = tab.goto(f"{console_server.base}/console/")
        assert response.status == 401
        assert "token" in tab.inner_text("body")
        status = tab.evaluate(
            """async () => (await fetch("api/listTables", {method: "POST", body: "{}",
                 headers: {"x-dynabase-console": "1", "content-type": "application/json"}})).status"""
        )
        assert status == 401
        response = tab.goto(f"{console_server.base}/console/?token=guessed")
        assert response.status == 401
    finally:
        context.close()


def test_the_values_box_reads_dynamodb_json_whatever_the_items_are_shown_as(page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(page.url.split("#")[0] + "#/table/paged/items")
    form = page.locator("form.query-form")
    form.locator("select[name=format]").select_option("plain")
    values = form.locator("textarea[name=values]")
    assert '{"S": ' in values.get_attribute("placeholder")  # the placeholder shows DynamoDB JSON ...
    form.locator("select[name=operation]").select_option("query")
    form.locator("input[name=keyCondition]").fill("pk = :p")
    values.fill('{":p": {"S": "p"}}')  # ... and the box reads what it shows
    form.locator("input[name=limit]").fill("7")
    form.locator("button[type=submit]").click()
    expect(page.locator(".results table.grid tbody tr")).to_have_count(7)
    expect(page.locator(".status .error")).to_have_count(0)


def test_a_failed_query_clears_the_previous_results_and_pager(page: Any) -> None:
    from playwright.sync_api import expect

    run_query(page)
    expect(page.locator(".results .meta")).to_contain_text("more remain")
    form = page.locator("form.query-form")
    form.locator("input[name=keyCondition]").fill("pk = :missing")
    form.locator("button[type=submit]").click()
    expect(page.locator(".status .error")).to_contain_text("ValidationException")
    expect(page.locator(".results")).to_be_empty()


def test_the_selected_table_is_marked_in_the_list(page: Any) -> None:
    from playwright.sync_api import expect

    page.click("#tables >> text=device")
    expect(page.locator("#tables a.current")).to_have_text(["device"])
    expect(page.locator("#tables a[aria-current=page]")).to_have_text(["device"])
    page.click("#tables >> text=paged")
    expect(page.locator("#tables a.current")).to_have_text(["paged"])
    expect(page.locator("#tables a[aria-current]")).to_have_count(1)
    page.click("header >> text=PartiQL")
    expect(page.locator("#tables a.current")).to_have_count(0)


def test_the_page_names_its_icon(page: Any) -> None:
    """A page without an icon link makes the browser ask for /favicon.ico, which the console answers 404 (and
    logs): the page names an icon it can show."""
    loaded = page.evaluate(
        """() => new Promise((done) => {
             const link = document.querySelector('link[rel="icon"]');
             if (!link) return done("no icon link");
             const image = new Image();
             image.onload = () => done(image.naturalWidth > 0 ? "shown" : "empty");
             image.onerror = () => done("not loadable: " + link.href);
             image.src = link.href;
           })"""
    )
    assert loaded == "shown"

"""``dynabase docs``: Markdown and HTML data-model pages."""

from __future__ import annotations

import copy
import html
import re
from html.parser import HTMLParser

import pytest

from dynabase.schema import load_schema
from dynabase.tools import docs
from dynabase.tools.common import read_document

from .helpers import FORMKIQ, IOTO, SCHEMAS, VAMS, load, run

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class _Checker(HTMLParser):
    """Fails on any end tag that does not close the innermost open element; collects text per tag."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: dict[str, int] = {}
        self.codes: list[str] = []
        self._in_code = False
        self.doctype = None

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == "code":
            self._in_code = True
            self.codes.append("")

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append(f"end tag for void element {tag}")
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> does not close <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        if tag == "code":
            self._in_code = False

    def handle_data(self, data):
        if self._in_code:
            self.codes[-1] += data


def check_html(text: str) -> _Checker:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert checker.errors == []
    assert checker.stack == [], f"unclosed: {checker.stack}"
    return checker


def md(name: str) -> str:
    return docs.render(SCHEMAS[name], "md")


def section(text: str, heading: str) -> str:
    """The text of the Markdown section under ``heading`` (up to the next heading of the same level)."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n")
    rest = text[start + len(heading) + 1 :]
    found = re.search(rf"^{level} ", rest, re.M)
    return rest[: found.start()] if found else rest


# -- Markdown ------------------------------------------------------------------------------------------------


def test_ioto_key_schema_tables():
    text = md("ioto")
    assert text.startswith("# ioto_device\n")
    fault = section(text, "### Fault")
    assert "| PK | primary | `pk` | `device#<deviceId>` |" in fault
    assert "| SK | primary | `sk` | `fault#<id>` |" in fault
    status = section(text, "### Status")
    # constant keys are shown literally
    assert "| PK | primary | `pk` | `status#` |" in status
    assert "| SK | primary | `sk` | `status#` |" in status


def test_ioto_attribute_rows():
    fault = section(md("ioto"), "### Fault")
    rows = {row.split(" | ")[0].strip("| `"): row for row in fault.splitlines() if row.startswith("| `")}
    assert rows["severity"] == (
        "| `severity` |   | string | yes |   | info, warn, error, critical, fatal |   |   |   |   |   |   |"
    )
    assert rows["id"] == "| `id` |   | string |   | `generate: ulid` |   |   |   |   |   |   |   |"
    assert rows["pk"].startswith("| `pk` |   | string | yes | `value: device#<deviceId>` |")
    assert "| yes |" in rows["pk"]  # hidden: templated fields are hidden by default
    assert rows["timestamp"].startswith("| `timestamp` |   | date (ISO 8601 string) | yes |")
    assert rows["_type"].endswith("| `= Fault` |   |   |   | yes |   |   | entity type (the model name) |")
    assert rows["created"].endswith("creation time |")
    assert rows["updated"].endswith("last update time |")
    header = [
        h.strip() for h in fault.split("#### Entity attributes")[1].strip().splitlines()[0].split("|")[1:-1]
    ]
    assert header == [
        "Field",
        "Attribute",
        "Type",
        "Required",
        "Value / default",
        "Enum",
        "Validate",
        "Unique",
        "Hidden",
        "Crypt",
        "TTL",
        "Description",
    ]


def test_ioto_title_indexes_process():
    text = md("ioto")
    assert "| format | `onetable:1.1.0` |" in text
    assert "| version | `0.0.1` |" in text
    indexes = section(text, "## Table indexes")
    assert "| primary | primary | `pk` | `sk` | — |   |" in indexes
    process = section(text, "## Process")
    assert '| Fault | both | up |   | Embedthis/Device: temperature by [{"Device": "deviceId"}] |' in process
    assert "| Status | cloud | none |   |   |" in process


def test_formkiq_tenant_prefixed_formats_and_gsis():
    text = md("formkiq")
    assert text.startswith("# FormKiQ documents\n\nDocuments, tags and sites")
    tag = section(text, "### DocumentTag")
    assert "| PK | primary | `PK` | `<siteId>/docs#<documentId>` |" in tag
    assert "| SK | primary | `SK` | `tags#<tagKey>` |" in tag
    assert "| GSI1 PK | GSI1 | `GSI1PK` | `<siteId>/tag#<tagKey>#<tagValue>` |" in tag
    assert "| GSI1 SK | GSI1 | `GSI1SK` | `<inserteddate>#<documentId>` |" in tag
    assert "| GSI2 PK | GSI2 | `GSI2PK` | `<siteId>/tag#<tagKey>` |" in tag
    assert "| GSI2 SK | GSI2 | `GSI2SK` | `<tagValue>#<documentId>` |" in tag
    assert "Appears in: `primary`, `GSI1`, `GSI2`." in tag
    site = section(text, "### Site")
    assert "| PK | primary | `PK` | `sites` |" in site
    assert "| GSI1 SK | GSI1 | `GSI1SK` | `sites#<status>#<siteId>` |" in site
    counter = section(text, "### Counter")
    assert "| SK | primary | `SK` | `seq#<n:8>` |" in counter  # padding is shown
    soft = section(text, "### SoftDeletedDocument")
    assert "| PK | primary | `PK` | `<siteId>/softdelete#docs#` |" in soft


def test_formkiq_sparse_indexes():
    text = md("formkiq")
    document = section(text, "### Document")
    assert "Appears in: `primary`, `GSI1`." in document
    assert "Not in: `GSI2` (sparse" in document
    assert "GSI2" not in section(document, "#### Entity key schema")
    child = section(text, "### ChildDocument")
    assert "Appears in: `primary`." in child
    assert "Not in: `GSI1`, `GSI2`" in child


def test_formkiq_attribute_details():
    document = section(md("formkiq"), "### Document")
    rows = {row.split(" | ")[0].strip("| `"): row for row in document.splitlines() if row.startswith("| `")}
    assert rows["contentType"].startswith("| `contentType` | `ct` | string |")
    assert rows["userId"].startswith("| `userId` | `meta.user` | string |")
    assert rows["userId"].endswith("| packed in map attribute meta |")
    assert (
        rows["TimeToLive"]
        == "| `TimeToLive` |   | date (epoch number) |   |   |   |   |   |   |   | yes |   |"
    )
    assert rows["path"].split(" | ")[7] == "yes"  # unique
    assert rows["checksum"].split(" | ")[8] == "yes"  # hidden
    assert rows["documentId"].split(" | ")[4] == "`generate: uuid`"
    assert rows["entity"].split(" | ")[4] == "`= Document`"  # params.typeField
    assert rows["inserteddate"].split(" | ")[4] == "`set on create`"  # params.createdField
    site = section(md("formkiq"), "### Site")
    rows = {row.split(" | ")[0].strip("| `"): row for row in site.splitlines() if row.startswith("| `")}
    assert rows["status"].split(" | ")[4:6] == ['`default: "ACTIVE"`', "ACTIVE, INACTIVE"]
    assert rows["siteId"].split(" | ")[6] == "`/^[a-z0-9_-]+$/`"
    tag = section(md("formkiq"), "### DocumentTag")
    assert "| `tagValues` |   | array of string |" in tag


def test_vams_composite_keys_and_lsi():
    text = md("vams")
    indexes = section(text, "## Table indexes")
    assert (
        "| WorkflowLSI | LSI | `databaseId:assetId` | `workflowDatabaseId:workflowId` | KEYS_ONLY |"
        in indexes
    )
    assert (
        "| ExecutionIdGSI | GSI | `workflowId` | `executionId` | INCLUDE executionStatus, startDate |"
        in indexes
    )
    execution = section(text, "### WorkflowExecution")
    assert "| PK | primary | `databaseId:assetId` | `<databaseId>:<assetId>` |" in execution
    assert "| SK | primary | `executionId` | `<executionId>` |" in execution
    assert (
        "| WorkflowLSI SK | WorkflowLSI | `workflowDatabaseId:workflowId` | `<workflowDatabaseId>:<workflowId>` |"
        in execution
    )
    assert (
        "| `assetKey` | `databaseId:assetId` | string | yes | `value: <databaseId>:<assetId>` |" in execution
    )
    assert "| `inputs.key` |   | string |" in execution  # nested schema fields
    assert "| `expiresAt` |   | date (epoch number) |" in execution
    version = section(text, "### AssetVersion")
    assert "| SK | primary | `executionId` | `version#<assetVersionId:6>` |" in version
    assert "Not in: `WorkflowLSI`, `WorkflowGSI`, `ExecutionIdGSI`" in version


def test_mermaid_partition_diagram():
    text = md("formkiq")
    block = re.search(r"```mermaid\n(.*?)\n```", text, re.S)
    assert block, "no mermaid block"
    lines = block.group(1).splitlines()
    assert lines[0] == "flowchart LR"
    assert lines.count("    end") == 3  # one subgraph per index
    # Document, ChildDocument and DocumentTag share the '<siteId>/docs#<documentId>' partitions
    docs_partition = next(line for line in lines if "/docs##lt;…#gt;" in line and "([" in line)
    node = docs_partition.split("(")[0].strip()
    members = {m.group(1) for m in re.finditer(rf"^\s+{node} --- \w+\[\"(\w+)", block.group(1), re.M)}
    assert members == {"Document", "ChildDocument", "DocumentTag"}
    # labels never carry a raw '<', '>' or '"' (Mermaid entity codes instead)
    for line in lines:
        for label in re.findall(r'\["(.*?)"\]', line):
            assert "<" not in label.replace("<br/>", "") and ">" not in label.replace("<br/>", "")
    ioto = md("ioto")
    assert 'I0P0(["pk = device##lt;…#gt;"])' in ioto
    assert 'I0P0 --- I0P0E0_Fault["Fault<br/>fault##lt;id#gt;"]' in ioto
    # the same grouping as a table, for viewers without Mermaid
    assert "| primary | `PK = <…>/docs#<…>` | ChildDocument | `<siteId>/docs#<documentId>` | " in text


def test_mermaid_escapes_entity_like_text():
    assert docs._mermaid_text('a#b;"<x>"') == "a#35;b;#quot;#lt;x#gt;#quot;"


def test_descriptions_from_extensions():
    data = copy.deepcopy(read_document(IOTO))
    data["extensions"] = {
        "docs": {
            "models": {
                "Fault": {
                    "description": "A fault a device reported.",
                    "fields": {"severity": "How bad | how urgent"},
                }
            }
        }
    }
    text = docs.render(load_schema(data), "md", title="Ioto")
    assert text.startswith("# Ioto\n")
    fault = section(text, "### Fault")
    assert fault.lstrip().startswith("A fault a device reported.")
    assert r"| How bad \| how urgent |" in fault


def test_output_is_deterministic():
    for name in SCHEMAS:
        assert md(name) == md(name)
        assert docs.render(SCHEMAS[name], "html") == docs.render(SCHEMAS[name], "html")
    # partitions are sorted by shape, whatever order the models come in
    data = read_document(FORMKIQ)
    reordered = dict(data, models=dict(reversed(list(data["models"].items()))))
    first = docs.build(load_schema(data))
    second = docs.build(load_schema(reordered))
    assert [(p.index, p.shape, p.members) for p in first.partitions] == [
        (p.index, p.shape, p.members) for p in second.partitions
    ]


# -- HTML --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_html_is_well_formed_and_self_contained(name):
    text = docs.render(SCHEMAS[name], "html")
    checker = check_html(text)
    assert checker.doctype == "DOCTYPE html"
    assert checker.tags["html"] == checker.tags["body"] == checker.tags["style"] == 1
    assert "script" not in checker.tags and "link" not in checker.tags and "img" not in checker.tags
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)
    # the same key formats as the Markdown page
    md_formats = set(re.findall(r"^\| (?:\w+ )?[PS]K \| \S+ \| `[^`]+` \| `([^`]+)` \|$", md(name), re.M))
    assert md_formats
    assert md_formats <= set(checker.codes)


def test_html_content():
    text = docs.render(IOTO, "html")
    assert "<title>ioto_device</title>" in text
    assert (
        "<td>PK</td><td>primary</td><td><code>pk</code></td><td><code>device#&lt;deviceId&gt;</code></td>"
        in text
    )
    # the partition diagram as a nested list
    assert '<ul class="partitions">' in text
    assert (
        '<li><a href="#entity-Fault">Fault</a>: <code>device#&lt;deviceId&gt;</code>, '
        "sort <code>fault#&lt;id&gt;</code></li>"
    ) in text
    assert '<h3 id="entity-Fault">Fault</h3>' in text
    assert "<h2>Process</h2>" in text
    assert "```" not in text and "mermaid" not in text
    formkiq = docs.render(FORMKIQ, "html")
    check_html(formkiq)
    assert html.escape("<siteId>/docs#<documentId>") in formkiq


# -- the command ---------------------------------------------------------------------------------------------


def test_docs_command_stdout_and_out_dir(capsys, tmp_path):
    result = run(capsys, "docs", IOTO)
    assert result.code == 0
    assert result.out == md("ioto")

    result = run(capsys, "docs", VAMS, "--out", tmp_path / "site", "--format", "html")
    assert result.code == 0
    target = tmp_path / "site" / "vams.html"
    assert target.read_text() == docs.render(VAMS, "html")
    assert str(target) in result.err

    result = run(capsys, "docs", FORMKIQ, "-o", tmp_path, "--title", "Docs")
    assert (tmp_path / "formkiq.md").read_text().startswith("# Docs\n")


def test_docs_of_an_invalid_schema_fails(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "onetable:1.1.0", "version": "1.0.0", "indexes": {}, "models": {}}')
    result = run(capsys, "docs", path)
    assert result.code == 1
    assert "indexes.primary: required" in result.err
    assert result.out == ""


def test_build_model_is_shared_by_both_formats():
    doc = docs.build(load("ioto"))
    assert [e.name for e in doc.entities] == ["Status", "Fault"]
    fault = doc.entities[1]
    assert [(k.index, k.role, k.format) for k in fault.keys] == [
        ("primary", "hash", "device#<deviceId>"),
        ("primary", "sort", "fault#<id>"),
    ]
    assert fault.sync == "up"
    assert [p.shape for p in doc.partitions] == ["device#<…>", "status#"]


MIXED = {
    "format": "onetable:1.1.0",
    "version": "1.0.0",
    "indexes": {"primary": {"hash": "pk"}},
    "params": {"crypto": {"primary": {"cipher": "aes-256-gcm", "password": "not-a-secret"}}},
    "models": {
        "User": {
            "pk": {"type": "string", "value": "user#${id}"},
            "id": {"type": "string", "generate": "uid(12)"},
            "ssn": {"type": "string", "crypt": True},
            "tags": {"type": "array", "items": {"type": "object", "schema": {"k": {"type": "string"}}}},
            "flag": {"type": "boolean", "default": True},
        }
    },
}


def test_crypt_items_and_generate_length():
    user = section(docs.render(load_schema(MIXED), "md"), "### User")
    rows = {
        row.split(" | ")[0].strip("| `"): row.split(" | ")
        for row in user.splitlines()
        if row.startswith("| `")
    }
    assert rows["ssn"][9] == "yes"  # crypt
    assert rows["id"][4] == "`generate: uid(12)`"
    assert rows["tags"][2] == "array of object"
    assert rows["tags[].k"][2] == "string"  # array item fields
    assert rows["flag"][4] == "`default: true`"
    assert "| PK | primary | `pk` | `user#<id>` |" in user
    assert "Appears in: `primary`." in user
    assert "Not in" not in user

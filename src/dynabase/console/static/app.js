// The console's page: the table list, and one view at a time chosen by the address's #fragment.

import { api } from "./api.js";
import { entitiesView } from "./entities.js";
import { clear, field, h, showErrors, table } from "./dom.js";
import { cellText, columns } from "./json.js";
import { itemsView } from "./items.js";

const main = document.getElementById("main");
let info = { readOnly: true, schema: null };

async function loadTables() {
  const list = document.getElementById("tables");
  try {
    const { tables } = await api("listTables");
    clear(list, tables.map((t) => h("li", {}, h("a", { href: `#/table/${encodeURIComponent(t)}`, "data-table": t }, t))));
    if (!tables.length) clear(list, h("li", { class: "note" }, "no tables yet"));
    markCurrent();
  } catch (error) { showErrors(error, list); }
}

// the address's #fragment as its parts: ["table", name, tab], ["partiql"], ...
const hashParts = () => location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);

// the table the address shows, highlighted in the list (and announced as the current page)
function markCurrent() {
  const [view, name] = hashParts();
  for (const link of document.querySelectorAll("#tables a")) {
    const current = view === "table" && link.dataset.table === name;
    link.classList.toggle("current", current);
    if (current) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
}

function tabs(name, current) {
  const tab = (id, label) => h("a", { href: `#/table/${encodeURIComponent(name)}/${id}`, class: id === current ? "tab active" : "tab" }, label);
  return h("nav", { class: "tabs" }, tab("overview", "Overview"), tab("items", "Items"), info.schema ? tab("entities", "Entities") : null);
}

function overview(desc, ttl) {
  const indexRows = [...(desc.GlobalSecondaryIndexes || []).map((i) => ["GSI", i]), ...(desc.LocalSecondaryIndexes || []).map((i) => ["LSI", i])]
    .map(([kind, i]) => [i.IndexName, kind, i.KeySchema.map((k) => `${k.AttributeName} (${k.KeyType})`).join(", "),
      i.Projection.ProjectionType + (i.Projection.NonKeyAttributes ? `: ${i.Projection.NonKeyAttributes.join(", ")}` : ""), i.ItemCount ?? ""]);
  const types = Object.fromEntries(desc.AttributeDefinitions.map((a) => [a.AttributeName, a.AttributeType]));
  const stream = desc.StreamSpecification?.StreamEnabled ? `${desc.StreamSpecification.StreamViewType} (${desc.LatestStreamArn || ""})` : "off";
  const confirmBox = h("input", { name: "confirm", placeholder: desc.TableName, autocomplete: "off" });
  const box = h("div");
  const del = h("form", { class: "delete-form", onsubmit: async (e) => {
    e.preventDefault();
    try { await api("deleteTable", { table: desc.TableName, confirm: confirmBox.value }); await loadTables(); location.hash = "#/"; }
    catch (error) { showErrors(error, box, del); }
  } }, h("h3", {}, "Delete table"), field(`Type ${desc.TableName} to confirm`, confirmBox, "confirm"), box,
    h("button", { type: "submit", class: "danger" }, "Delete table"));
  return h("section", { class: "overview" },
    table(["Property", "Value"], [
      ["Keys", desc.KeySchema.map((k) => `${k.AttributeName} ${types[k.AttributeName]} (${k.KeyType})`).join(", ")],
      ["Status", desc.TableStatus], ["Items", String(desc.ItemCount ?? "")], ["Size", `${desc.TableSizeBytes ?? ""} bytes`],
      ["Billing", desc.BillingModeSummary?.BillingMode || "PROVISIONED"], ["Stream", stream],
      ["TTL", ttl ? `${ttl.TimeToLiveStatus}${ttl.AttributeName ? ` on ${ttl.AttributeName}` : ""}` : "unknown"],
      ["ARN", desc.TableArn || ""]]),
    h("h3", {}, "Indexes"),
    indexRows.length ? table(["Index", "Kind", "Keys", "Projection", "Items"], indexRows) : h("p", { class: "note" }, "none"),
    info.readOnly ? null : del);
}

async function tableView(name, tab) {
  clear(main, h("h2", {}, name), tabs(name, tab), h("p", { class: "meta" }, "loading…"));
  try {
    if (tab === "entities") { main.lastChild.replaceWith(entitiesView(name, info.schema, info)); return; }
    if (tab === "items") {  // the keys and indexes only: DescribeTable's counts can take seconds on big tables
      const { table: shape } = await api("tableShape", { table: name });
      main.lastChild.replaceWith(itemsView(shape, info));
      return;
    }
    main.lastChild.textContent = "counting items…";
    const { table: desc, ttl } = await api("describeTable", { table: name });
    main.lastChild.replaceWith(overview(desc, ttl));
  } catch (error) { showErrors(error, main.lastChild); }
}

function createView() {
  const definition = h("textarea", { name: "definition", rows: "18", class: "code", spellcheck: "false" });
  definition.value = JSON.stringify({
    TableName: "", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
  }, null, 2);
  const nameBox = h("input", { name: "table", placeholder: "table name" });
  const box = h("div");
  const form = h("form", { class: "create-form", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const { table: desc } = await api("createTable", { definition: definition.value });
      await loadTables();
      location.hash = `#/table/${encodeURIComponent(desc.TableName)}`;
    } catch (error) { showErrors(error, box, form); }
  } }, h("h2", {}, "Create table"),
    info.schema ? h("div", { class: "row" }, field("Name", nameBox), h("button", { type: "button", onclick: async () => {
      try { definition.value = JSON.stringify((await api("tableDefinition", { table: nameBox.value })).definition, null, 2); }
      catch (error) { showErrors(error, box, form); }
    } }, "Fill from schema")) : null,
    field("CreateTable request", definition, "definition"), box, h("button", { type: "submit", class: "primary" }, "Create"));
  clear(main, info.readOnly ? h("p", { class: "note" }, "read-only console") : form);
}

function partiqlView() {
  const statement = h("textarea", { name: "statement", rows: "4", class: "code", placeholder: 'SELECT * FROM "orders" WHERE pk = ?' });
  const parameters = h("textarea", { name: "parameters", rows: "2", class: "code", placeholder: '[{"S": "c#1"}]' });
  const out = h("div", { class: "results" });
  const box = h("div");
  let token = null;
  const run = async (more) => {
    try {
      const page = await api("partiql", { statement: statement.value, parameters: parameters.value, nextToken: more ? token : null });
      token = page.nextToken;
      showErrors(null, box, form);
      const cols = columns(page.items, []);
      clear(out, h("p", { class: "meta" }, `${page.items.length} item(s)`),
        table(cols, page.items.map((item) => cols.map((c) => cellText(item[c])))),
        token ? h("button", { type: "button", onclick: () => run(true) }, "More") : null);
    } catch (error) { clear(out); showErrors(error, box, form); }
  };
  const form = h("form", { class: "partiql-form", onsubmit: (e) => { e.preventDefault(); run(false); } },
    h("h2", {}, "PartiQL"), field("Statement", statement, "statement"), field("Parameters (DynamoDB JSON list)", parameters, "parameters"),
    box, h("button", { type: "submit", class: "primary" }, "Run"));
  clear(main, form, out);
}

function docsView() {
  clear(main, h("iframe", { class: "docs", src: "api/docs", title: "schema documentation" }));
}

function route() {
  markCurrent();
  const parts = hashParts();
  if (parts[0] === "table" && parts[1]) return tableView(parts[1], parts[2] || "overview");
  if (parts[0] === "create") return createView();
  if (parts[0] === "partiql") return partiqlView();
  if (parts[0] === "docs" && info.schema) return docsView();
  clear(main, h("h2", {}, "Tables"), h("p", { class: "meta" }, "Pick a table on the left, or create one."));
}

async function start() {
  try { info = await api("info"); }
  catch (error) { showErrors(error, main); return; }
  document.getElementById("target").textContent = info.target + (info.readOnly ? " (read-only)" : "");
  document.getElementById("nav-docs").hidden = !info.schema;
  document.getElementById("nav-create").hidden = info.readOnly;
  window.addEventListener("hashchange", route);
  await loadTables();
  route();
}

start();

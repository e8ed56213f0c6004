// A table's items: query and scan pages (the table or an index), the item editor, delete.

import { api } from "./api.js";
import { clear, field, h, showErrors, table } from "./dom.js";
import { cellText, columns, isPlain, itemText } from "./json.js";
import { Pager } from "./pager.js";

function keyNames(schema) {
  return [...schema].sort((a, b) => (a.KeyType === "HASH" ? -1 : 1)).map((k) => k.AttributeName);
}

export function itemsView(desc, info) {
  const name = desc.TableName;
  const primary = keyNames(desc.KeySchema);
  const indexes = [...(desc.GlobalSecondaryIndexes || []), ...(desc.LocalSecondaryIndexes || [])];
  const keysOf = (index) => index ? keyNames(indexes.find((i) => i.IndexName === index).KeySchema) : primary;
  const form = h("form", { class: "query-form", onsubmit: (e) => { e.preventDefault(); run(); } },
    h("div", { class: "row" },
      field("Operation", h("select", { name: "operation" },
        h("option", { value: "scan" }, "Scan"), h("option", { value: "query" }, "Query"))),
      field("Table / index", h("select", { name: "index" }, h("option", { value: "" }, `${name} (table)`),
        indexes.map((i) => h("option", { value: i.IndexName }, i.IndexName)))),
      field("Order", h("select", { name: "forward" },
        h("option", { value: "true" }, "ascending"), h("option", { value: "false" }, "descending"))),
      field("Page size", h("input", { name: "limit", type: "number", value: "25", min: "1", max: "1000" })),
      field("Show items as", h("select", { name: "format" },
        h("option", { value: "ddb" }, "DynamoDB JSON"), h("option", { value: "plain" }, "plain JSON")))),
    field("Key condition (Query)", h("input", { name: "keyCondition", placeholder: "pk = :pk AND begins_with(sk, :prefix)" })),
    field("Filter", h("input", { name: "filter", placeholder: "attribute_exists(#s) AND price > :min" })),
    h("div", { class: "row" },
      field("Attribute names", h("textarea", { name: "names", rows: "2", placeholder: '{"#s": "status"}' })),
      // ExpressionAttributeValues, as the API takes them, whatever the items are shown as
      field("Attribute values (DynamoDB JSON)", h("textarea", { name: "values", rows: "2", placeholder: '{":pk": {"S": "c#1"}}' }))),
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, "Run"),
      info.readOnly ? null : h("button", { type: "button", onclick: () => edit(null) }, "New item")));
  const status = h("div", { class: "status" });
  const results = h("div", { class: "results" });
  const editor = h("div", { class: "editor" });
  const value = (n) => form.elements[n].value;
  const format = () => value("format");

  const pager = new Pager((startKey) => {
    const request = {
      table: name, index: value("index"), filter: value("filter"), names: value("names"),
      values: value("values"), format: "ddb", limit: Number(value("limit")), startKey,
    };
    if (value("operation") === "query") {
      return api("query", { ...request, keyCondition: value("keyCondition"), forward: value("forward") === "true" });
    }
    return api("scan", request);
  }, render);
  pager.onerror = failed;

  let items = [];
  function render(page) {
    showErrors(null, status, form);
    items = page.items;
    const cols = columns(items, [...new Set([...primary, ...keysOf(value("index"))])]);
    clear(results,
      h("p", { class: "meta" }, `${page.count} item(s), ${page.scannedCount} read` + (page.lastKey ? "; more remain" : "")),
      table(cols, items.map((item) => cols.map((c) => cellText(item[c]))), (i) => edit(items[i])),
      pager.controls);
  }

  // a failure leaves no earlier page on screen to be taken for its result
  function failed(error) {
    pager.reset();
    clear(results);
    showErrors(error, status, form);
  }

  async function run() {
    try { await pager.first(); } catch (error) { failed(error); }
  }

  function edit(item) {
    // the key attributes first, whatever order the engine gives the attributes in
    if (item) item = Object.fromEntries([...primary.filter((k) => k in item), ...Object.keys(item).filter((k) => !primary.includes(k))].map((k) => [k, item[k]]));
    const mode = item ? "edit" : "create";
    let fmt = item && !isPlain(item) ? "ddb" : format();
    const original = item ? Object.fromEntries(primary.map((k) => [k, item[k]])) : null;
    const text = h("textarea", { name: "item", rows: "16", spellcheck: "false", class: "code" });
    text.value = item ? itemText(item, fmt) : (fmt === "plain" ? "{\n  \n}" : '{\n  "' + primary[0] + '": {"S": ""}\n}');
    const box = h("div");
    const pick = h("select", { name: "itemFormat", onchange: () => {
      if (item) { fmt = pick.value; text.value = itemText(item, fmt); } else fmt = pick.value;
    } }, h("option", { value: "ddb" }, "DynamoDB JSON"),
      h("option", { value: "plain", disabled: item && !isPlain(item) }, "plain JSON"));
    pick.value = fmt;
    const edForm = h("form", { class: "item-form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api("putItem", { table: name, item: text.value, format: fmt, mode, key: original });
        clear(editor);
        await pager.show();
      } catch (error) { showErrors(error, box, edForm); }
    } },
      h("h3", {}, item ? "Edit item" : "New item"),
      item && !isPlain(item) ? h("p", { class: "note" }, "This item holds binaries or sets: edit it as DynamoDB JSON.") : null,
      field("Format", pick), field("Item", text, "item"), box,
      h("div", { class: "row" },
        info.readOnly ? h("span", { class: "note" }, "read-only") : h("button", { type: "submit", class: "primary" }, "Save"),
        item && !info.readOnly ? h("button", { type: "button", class: "danger", onclick: async () => {
          if (!confirm("Delete this item?")) return;
          try { await api("deleteItem", { table: name, key: original }); clear(editor); await pager.show(); }
          catch (error) { showErrors(error, box, edForm); }
        } }, "Delete") : null,
        h("button", { type: "button", onclick: () => clear(editor) }, "Close")));
    clear(editor, edForm);
    edForm.scrollIntoView({ block: "nearest" });
  }

  const view = h("section", { class: "items" }, form, status, results, editor);
  run();
  return view;
}

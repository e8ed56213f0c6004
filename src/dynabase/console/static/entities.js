// Entities (given --schema): a page of the table's items grouped by model with the key templates that made
// their keys, find by model through the fields its key templates need, create and update with the schema's
// errors shown on each field.

import { api } from "./api.js";
import { clear, field, h, showErrors, table } from "./dom.js";
import { valueText } from "./json.js";
import { Pager } from "./pager.js";

const keyLine = (keys) => keys.map((k) => `${k.index === "primary" ? "" : k.index + " "}${k.attribute} = ${k.format}`).join(",  ");

function entityTable(model, items, onRow) {
  const names = model ? model.fields.map((f) => f.name) : [];
  const cols = [...new Set([...names.filter((n) => items.some((i) => n in i)), ...items.flatMap(Object.keys)])].slice(0, 12);
  return table(cols, items.map((item) => cols.map((c) => valueText(item[c]))), onRow);
}

export function entitiesView(tableName, schema, info) {
  const models = Object.fromEntries(schema.models.map((m) => [m.name, m]));
  const status = h("div", { class: "status" });
  const groups = h("div", { class: "groups" });
  const formBox = h("div", { class: "entity-form" });

  // -- all items of a page, grouped by model
  const pager = new Pager((startKey) => api("entityPage", { table: tableName, startKey, limit: 25 }), (page) => {
    showErrors(null, status);
    clear(groups, page.groups.map((g) => h("div", { class: "group", "data-model": g.model },
      h("h3", {}, `${g.model} `, h("span", { class: "count" }, `(${g.items.length})`)),
      g.keys.length ? h("p", { class: "keys" }, keyLine(g.keys)) : null,
      entityTable(models[g.model], g.items, models[g.model] && !info.readOnly ? (i) => showForm(g.model, g.items[i], "update") : null))),
    page.groups.length ? null : h("p", { class: "meta" }, "No items on this page."), pager.controls);
  });
  pager.onerror = (error) => { clear(groups); showErrors(error, status); };

  // -- find by model
  const found = h("div", { class: "found" });
  const findInputs = h("div", { class: "row" });
  const modelPick = h("select", { name: "model", onchange: () => { fillIndexes(); } },
    schema.models.map((m) => h("option", { value: m.name }, m.name)));
  const indexPick = h("select", { name: "index", onchange: () => fillInputs() });
  const findForm = h("form", { class: "find-form", onsubmit: (e) => { e.preventDefault(); find(); } },
    h("h3", {}, "Find"),
    h("div", { class: "row" }, field("Model", modelPick), field("Index", indexPick)),
    findInputs,
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, "Find"),
      info.readOnly ? null : h("button", { type: "button", onclick: () => showForm(modelPick.value, null, "create") }, "New entity")),
    found);
  function fillIndexes() {
    const model = models[modelPick.value];
    clear(indexPick, Object.keys(model.find).map((n) => h("option", { value: n }, n)));
    fillInputs();
  }
  function fillInputs() {
    const keys = models[modelPick.value].find[indexPick.value] || { hash: [], sort: [] };
    clear(findInputs,
      keys.hash.map((n) => field(`${n} (partition)`, h("input", { name: n, required: true }))),
      keys.sort.map((n) => field(`${n} (sort, optional)`, h("input", { name: n }))));
  }
  const findPager = new Pager(async (next) => {
    const properties = {};
    for (const input of findInputs.querySelectorAll("input")) properties[input.name] = input.value;
    return api("entityFind", { table: tableName, model: modelPick.value, index: indexPick.value, properties, next, limit: 25 });
  }, (page) => {
    showErrors(null, null, findForm);
    clear(found, h("p", { class: "meta" }, `${page.items.length} ${modelPick.value} entit${page.items.length === 1 ? "y" : "ies"}`),
      entityTable(models[modelPick.value], page.items, info.readOnly ? null : (i) => showForm(modelPick.value, page.items[i], "update")),
      findPager.controls);
  });
  findPager.onerror = (error) => { clear(found); showErrors(error, found, findForm); };
  async function find() {
    try { await findPager.first(); } catch (error) { clear(found); showErrors(error, found, findForm); }
  }

  // -- create / update
  function input(f, value) {
    const name = f.name;
    const text = value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
    if (f.enum) {
      return h("select", { name, value: text }, h("option", { value: "" }, ""), f.enum.map((v) => h("option", { value: v, selected: v === text }, v)));
    }
    if (f.type === "boolean") {
      return h("select", { name }, ["", "true", "false"].map((v) => h("option", { value: v, selected: v === text }, v)));
    }
    if (["object", "array", "set"].includes(f.type)) return h("textarea", { name, rows: "2", value: text, class: "code" });
    return h("input", { name, value: text, placeholder: f.validate ? `/${f.validate}/` : f.type });
  }
  function showForm(modelName, entity, mode) {
    const model = models[modelName];
    const box = h("div");
    const form = h("form", { class: "save-form", "data-mode": mode, onsubmit: async (e) => {
      e.preventDefault();
      const properties = {};
      for (const f of model.fields) {
        const el = form.elements[f.name];
        if (!el || el.value === "") continue;
        properties[f.name] = f.type === "boolean" ? el.value === "true" : el.value;
      }
      try {
        const saved = await api("entitySave", { table: tableName, model: modelName, mode, properties });
        clear(box, h("div", { class: "ok", role: "status" }, `${mode === "create" ? "Created" : "Updated"} ${modelName}: ${JSON.stringify(saved.entity)}`));
        showErrors(null, null, form);
        pager.show().catch(() => {});
      } catch (error) { showErrors(error, box, form); }
    } },
      h("h3", {}, `${mode === "create" ? "New" : "Update"} ${modelName}`),
      h("p", { class: "keys" }, keyLine(model.keys)),
      h("div", { class: "fields" }, model.fields.map((f) => field(
        `${f.name}${f.required ? " *" : ""}${f.unique ? " (unique)" : ""}${f.generated ? " (generated)" : ""}`,
        input(f, entity ? entity[f.name] : undefined), f.name))),
      box,
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, mode === "create" ? "Create" : "Update"),
        h("button", { type: "button", onclick: () => clear(formBox) }, "Close")));
    clear(formBox, form);
    form.scrollIntoView({ block: "nearest" });
  }

  fillIndexes();
  pager.first().catch(pager.onerror);
  return h("section", { class: "entities" }, h("h2", {}, "Entities by model"), status, groups, findForm, formBox);
}

// DOM helpers: elements are built with h(), never from HTML strings (item values are untrusted text).

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "value") node.value = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function clear(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// a labelled control; its error text goes in the .field-error under it (see showErrors)
export function field(label, control, name) {
  return h("label", { class: "field", "data-field": name || control.name || "" },
    h("span", {}, label), control, h("span", { class: "field-error" }));
}

// an API error: the message in `box`, and each per-field message under the control of that name in `form`
export function showErrors(error, box, form) {
  if (form) for (const el of form.querySelectorAll(".field-error")) el.textContent = "";
  if (form) for (const el of form.querySelectorAll(".invalid")) el.classList.remove("invalid");
  if (!error) { if (box) clear(box); return; }
  const fields = error.fields || {};
  let placed = 0;
  for (const [name, message] of Object.entries(fields)) {
    const slot = form && form.querySelector(`[data-field="${CSS.escape(name)}"]`);
    if (!slot) continue;
    slot.querySelector(".field-error").textContent = message;
    slot.classList.add("invalid");
    placed += 1;
  }
  if (box) clear(box, h("div", { class: "error", role: "alert" }, `${error.type || "Error"}: ${error.message}`));
  return placed;
}

export function table(columns, rows, onRow) {
  return h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows.map((cells, i) => h("tr", onRow ? { class: "clickable", onclick: () => onRow(i) } : {},
      cells.map((c) => h("td", {}, c))))));
}

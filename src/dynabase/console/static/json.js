// Items arrive as DynamoDB JSON (numbers as strings, binaries as base64). Plain JSON is written here by hand
// so that numbers keep every digit (JSON.parse/stringify would round them to doubles).

const PLAIN = new Set(["S", "N", "BOOL", "NULL", "M", "L"]);

function entry(av) {
  return Object.entries(av)[0] || ["NULL", true];
}

// whether plain JSON can say the item exactly (no binaries, no sets)
export function isPlain(item) {
  const check = (av) => {
    const [type, value] = entry(av);
    if (!PLAIN.has(type)) return false;
    if (type === "M") return Object.values(value).every(check);
    if (type === "L") return value.every(check);
    return true;
  };
  return Object.values(item).every(check);
}

function write(av, pad, step) {
  const [type, value] = entry(av);
  const inner = pad + step;
  switch (type) {
    case "S": case "B": return JSON.stringify(value);
    case "N": return value;
    case "BOOL": return String(value);
    case "NULL": return "null";
    case "SS": case "BS": return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
    case "NS": return `[${value.join(", ")}]`;
    case "L":
      if (!value.length) return "[]";
      if (!step) return `[${value.map((v) => write(v, "", "")).join(",")}]`;
      return `[\n${value.map((v) => inner + write(v, inner, step)).join(",\n")}\n${pad}]`;
    case "M": return writeMap(value, pad, step);
    default: return JSON.stringify(value);
  }
}

function writeMap(map, pad, step) {
  const names = Object.keys(map);
  if (!names.length) return "{}";
  if (!step) return `{${names.map((n) => `${JSON.stringify(n)}:${write(map[n], "", "")}`).join(",")}}`;
  const inner = pad + step;
  return `{\n${names.map((n) => `${inner}${JSON.stringify(n)}: ${write(map[n], inner, step)}`).join(",\n")}\n${pad}}`;
}

// an item (or a map of AttributeValues) as plain JSON text
export function plainText(item, compact = false) {
  return writeMap(item, "", compact ? "" : "  ");
}

export function ddbText(item, compact = false) {
  return compact ? JSON.stringify(item) : JSON.stringify(item, null, 2);
}

export function itemText(item, format, compact = false) {
  return format === "plain" ? plainText(item, compact) : ddbText(item, compact);
}

// one attribute value as a short table cell
export function cellText(av) {
  if (!av) return "";
  const [type, value] = entry(av);
  if (type === "S" || type === "N") return value;
  const text = write(av, "", "");
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// a plain (entity) value as a short table cell
export function valueText(value) {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// column names: the keys first, then the other attributes in the order they appear
export function columns(items, keys, max = 12) {
  const seen = new Set(keys);
  const out = [...keys];
  for (const item of items) for (const name of Object.keys(item)) {
    if (!seen.has(name)) { seen.add(name); out.push(name); }
  }
  return out.slice(0, max);
}

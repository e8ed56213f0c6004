// The console's JSON API: every call is a same-origin POST with the CSRF header (the token is a cookie).

export class ApiError extends Error {
  constructor(doc, status) {
    super(doc.message);
    Object.assign(this, doc);
    this.status = status;
  }
}

export async function api(operation, body = {}) {
  const response = await fetch(`api/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-dynabase-console": "1" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  let doc;
  try { doc = await response.json(); } catch { doc = { error: { type: "Error", message: response.statusText } }; }
  if (!response.ok) throw new ApiError(doc.error || { type: "Error", message: response.statusText }, response.status);
  return doc;
}

// Fetches the dashboard's JSON API (api-routes.ts); an error body becomes a thrown Error with its message.
export async function api(path) {
  const response = await fetch(path, { credentials: 'same-origin' });
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  return body;
}

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'onclick' || key === 'onchange' || key === 'oninput') node[key] = value;
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function fmt(value, digits = 4) {
  if (value === null || value === undefined) return '–';
  if (typeof value !== 'number') return String(value);
  if (Number.isInteger(value)) return String(value);
  return Number(value.toPrecision(digits)).toString();
}

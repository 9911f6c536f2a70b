// `/api/items`: an endpoint with every method. Each answer says what the server received (method, query, body),
// so the tests can compare what both adapters pass to SvelteKit.
import { error, json } from '@sveltejs/kit';

const items = ['apple', 'pear'];

/** What the request carried, for the answer. */
async function received(request, url) {
  const type = request.headers.get('content-type') ?? '';
  let body = null;
  if (type.startsWith('application/json')) body = await request.json();
  else if (type !== '') body = await request.text();
  return { method: request.method, query: Object.fromEntries(url.searchParams), body };
}

export async function GET({ url, request, setHeaders }) {
  setHeaders({ 'x-items': String(items.length) });
  return json({ items, ...(await received(request, url)) });
}

export async function POST({ request, url }) {
  const got = await received(request, url);
  if (typeof got.body?.name !== 'string') error(422, 'send {"name": "…"} as JSON');
  return json(got, { status: 201, headers: { location: `/api/items/${encodeURIComponent(got.body.name)}` } });
}

export async function PUT({ request, url }) {
  return json(await received(request, url));
}

export async function PATCH({ request, url }) {
  return json(await received(request, url));
}

export function DELETE() {
  return new Response(null, { status: 204, headers: { 'x-deleted': 'yes' } });
}

export function OPTIONS() {
  return new Response(null, { status: 204, headers: { allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' } });
}

/** Any other method (PROPFIND, …). */
export async function fallback({ request, url }) {
  return json(await received(request, url), { status: 200, headers: { 'x-fallback': 'yes' } });
}

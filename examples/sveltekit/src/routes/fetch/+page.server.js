// `/fetch`: the server load calls the app's own endpoint with SvelteKit's fetch (answered in process, cookies and
// headers passed along).
export async function load({ fetch }) {
  const res = await fetch('/api/items?from=load');
  return { status: res.status, items: await res.json() };
}

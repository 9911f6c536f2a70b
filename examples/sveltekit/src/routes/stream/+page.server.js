// `/stream`: part of the data now, part later: SvelteKit sends the page at once and streams the rest into it.
export function load({ url }) {
  const delay = Math.min(Number(url.searchParams.get('delay') ?? 300), 5000);
  return {
    now: 'rendered at once',
    later: new Promise((resolve) => setTimeout(() => resolve('arrived later'), delay)),
  };
}

// `/headers`: event.setHeaders on a page.
export function load({ setHeaders }) {
  setHeaders({ 'cache-control': 'public, max-age=60', 'x-example': 'set by load' });
  return {};
}

// Server hooks of the example: a header on every SvelteKit answer (so the tests see hooks run on both adapters).
export async function handle({ event, resolve }) {
  const response = await resolve(event);
  response.headers.set('x-hooks', 'handle');
  return response;
}

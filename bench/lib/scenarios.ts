// HTTP benchmark scenarios as data (from ../shared/bench/scenarios.md, "HTTP scenarios"): the request each load tool
// sends and the exact response every counted answer must match.

export interface Scenario {
  id: string;
  description: string;
  method: 'GET';
  /** Request path sent by the load tool. */
  path: string;
  status: number;
  /** Expected media type; if it names a charset, the response must carry that charset too. */
  contentType: string;
  /** Exact expected body bytes. */
  body: Buffer;
}

function scenario(s: Omit<Scenario, 'body' | 'method'> & { body: string }): Scenario {
  return { ...s, method: 'GET', body: Buffer.from(s.body, 'utf8') };
}

export const scenarios: readonly Scenario[] = [
  scenario({
    id: 'hello',
    description: 'GET / → {"hello":"world"} as application/json',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'json',
    description: 'GET /json → a small nested JSON object',
    path: '/json',
    status: 200,
    contentType: 'application/json',
    body: '{"foo":"bar","one":[2,"three"],"bar":{"baz":"quux"}}',
  }),
  scenario({
    id: 'text',
    description: 'GET /text → "Hello 世界" (12 bytes) as text/plain; charset=utf-8',
    path: '/text',
    status: 200,
    contentType: 'text/plain; charset=utf-8',
    body: 'Hello 世界',
  }),
  scenario({
    id: 'params',
    description: 'GET /hello/test (route /hello/:name) → "Hello test"',
    path: '/hello/test',
    status: 200,
    contentType: 'text/plain; charset=utf-8',
    body: 'Hello test',
  }),
];

export function findScenario(id: string): Scenario | undefined {
  return scenarios.find((s) => s.id === id);
}

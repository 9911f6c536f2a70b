// The shape of an HTTP benchmark scenario (scenarios.ts holds them as data, lib/sveltekit.ts the SvelteKit ones),
// below every module that reads one, so none of them imports the scenario list for its type. Types only.

/**
 * `dynamic` scenarios need application code (routes, JSON); `static` ones only serve files, so static-file servers
 * such as nginx can run them too; `schema` ones write JSON through a serializer compiled from the route's response
 * schema, so only servers that have one run them (Gale, Fastify); `fetch` ones are answered by a Web-standard fetch
 * handler (Request → Response), so only the fetch-handler servers run them; `sveltekit` ones ask the SvelteKit example (lib/sveltekit.ts); `tls`, `h2`,
 * `h2c` and `h3` ones are HTTP/1.1 over TLS, HTTP/2 over TLS, cleartext HTTP/2 and HTTP/3 (lib/secure.ts).
 */
export type ScenarioKind =
  | 'dynamic'
  | 'static'
  | 'schema'
  | 'fetch'
  | 'sveltekit'
  | 'express-app'
  | 'express-bare'
  | 'nest-app'
  | 'tls'
  | 'h2'
  | 'h2c'
  | 'h3';

export interface Scenario {
  id: string;
  description: string;
  kind: ScenarioKind;
  method: 'GET';
  /** Request path sent by the load tool. */
  path: string;
  /** Extra request headers, sent by both load tools on every request and by the pre-run fetch(). */
  headers: Readonly<Record<string, string>>;
  status: number;
  /** Expected media type; if it names a charset, the response must carry that charset too. */
  contentType: string;
  /** Exact expected body bytes. */
  body: Buffer;
  /**
   * Response headers the pre-run fetch() requires (lower-case names): a string is the exact value, `true` means
   * "present". The load tools check status and body only.
   */
  expectHeaders: Readonly<Record<string, string | true>>;
  /** The load modes that make sense for it (default: all); the others are shown as "—", with `modesNote`. */
  modes?: readonly string[];
  modesNote?: string;
  /** Served over TLS: the URL is https:// (lib/secure.ts). */
  tls?: boolean;
  /** The load tool this scenario always uses, whatever --tool says (h2load for HTTP/2, loadgen-h3 for HTTP/3). */
  tool?: string;
}

// Shared by the fetch-handler suites: serve() on 127.0.0.1 port 0, closed when the test ends.
import type { TestContext } from 'node:test';
import { type Fetchable, type FetchServer, type ServeOptions, serve } from 'gale';
import { HOST, withTimeout } from '../helpers.js';

export interface Served {
  server: FetchServer;
  port: number;
  /** http://127.0.0.1:port (no trailing slash) */
  url: string;
}

/** serve(input, options) on a free port; the server is closed (bounded) when the test ends. */
export async function withServe(
  t: TestContext,
  input: ServeOptions | Fetchable,
  options: Partial<Omit<ServeOptions, 'fetch'>> = {},
): Promise<Served> {
  const server = await withTimeout(serve(input, { port: 0, hostname: HOST, ...options }), 5000, 'serve()');
  t.after(() => withTimeout(server.close({ timeout: 1000 }), 5000, 'server.close()'));
  return { server, port: server.port, url: `http://${HOST}:${server.port}` };
}

// Shared by the batteries suites: a node:http server running a real Express-style middleware (helmet, cors) in
// front of a fixed answer, for differential tests against Gale's own. 127.0.0.1, port 0, closed by the test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { HOST, withTimeout } from '../helpers.js';

export type ConnectMiddleware = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  next: (err?: unknown) => void,
) => void;

/** node:http + `mw`; requests it passes on get 200 "ok" (text/plain). Returns the port. */
export async function withNodeMiddleware(t: TestContext, mw: ConnectMiddleware): Promise<number> {
  const server = http.createServer((req, res) => {
    mw(req, res, (err) => {
      if (err) {
        res.statusCode = 500;
        res.end(String(err));
        return;
      }
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 100;
  await withTimeout(new Promise<void>((r) => server.listen(0, HOST, r)), 3000, 'node:http listen');
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** Header lines of a parsed response as sorted `name: value` strings, lower-case names, minus `ignore`. */
export function headerSet(headers: Array<[string, string]>, ignore: ReadonlySet<string>): string[] {
  return headers
    .map(([k, v]) => [k.toLowerCase(), v] as const)
    .filter(([k]) => !ignore.has(k))
    .map(([k, v]) => `${k}: ${v}`)
    .sort();
}

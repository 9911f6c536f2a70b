// Helpers for the tests of Express middleware on Gale's native API: a logger that keeps what it is given, a
// node:http request that shows exactly what came back (no decompression), and the check that a first use was
// refused with GALE_ERR_NODE_MIDDLEWARE naming @gale-http/express.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCodes, type Logger } from 'gale';

export interface LogLine {
  level: string;
  obj: unknown;
  msg?: string;
}

/** A pino-compatible logger that keeps its lines (and keeps 500s off the test output). */
export function memoryLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request with node:http on a fresh connection: the status, headers and body bytes as they came. */
export function request(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The answer is the app's error answer (a generic 500) and its one error line carries a GaleError with
 * GALE_ERR_NODE_MIDDLEWARE whose message names @gale-http/express and `what`.
 */
export function assertRefused(a: Answer, log: LogLine[], what: RegExp): void {
  assert.equal(a.status, 500, a.body.toString());
  assert.equal(a.body.toString(), 'Internal Server Error');
  const errors = log.filter((l) => l.level === 'error');
  assert.equal(errors.length, 1, JSON.stringify(log));
  const err = (errors[0] as LogLine).obj as { name?: string; code?: string; message?: string };
  assert.equal(err.name, 'GaleError');
  assert.equal(err.code, ErrorCodes.NODE_MIDDLEWARE);
  assert.match(err.message ?? '', /npm install @gale-http\/express/);
  assert.match(err.message ?? '', what);
}

/** Serves a real Express app on node:http (127.0.0.1, a free port) until `close`. */
export async function startExpress(app: http.RequestListener): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The headers of `a` whose names match `names`, lower-case, for comparing two servers' answers. */
export function pick(a: Answer, names: RegExp): Record<string, unknown> {
  return Object.fromEntries(Object.entries(a.headers).filter(([k]) => names.test(k)));
}

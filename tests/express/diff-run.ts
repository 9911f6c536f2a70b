// Runs the differential suite (diff-app.ts) against a reference Express and @gale-http/express, request by
// request, and reports every difference at once.
// biome-ignore-all lint/suspicious/noExplicitAny: the apps come from three Express implementations
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Answer, ask, buildApp, REQUESTS } from './diff-app.js';

function listen(app: any): Promise<{ port: number; close: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ port, close: () => new Promise<void>((r) => server.close(() => r())) });
    });
    server.once('error', reject);
  });
}

/** Builds the app on both, sends every request to both, and asserts the answers are equal. */
export async function compare(reference: any, gale: any, compat: 4 | 5): Promise<void> {
  const a = await listen(buildApp(reference, compat));
  const b = await listen(buildApp(gale, compat));
  const diffs: string[] = [];
  try {
    for (const r of REQUESTS) {
      if (r.only !== undefined && r.only !== compat) continue;
      const label = `${r.method ?? 'GET'} ${r.path}`;
      const expected: Answer = await ask(a.port, r);
      const actual: Answer = await ask(b.port, r);
      try {
        assert.deepEqual(actual, expected);
      } catch (err) {
        diffs.push(`${label}\n${(err as Error).message}`);
      }
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  assert.equal(diffs.length, 0, `${diffs.length} of ${REQUESTS.length} requests differ:\n\n${diffs.join('\n\n')}`);
}

/** @gale-http/express whose apps listen through node:http (the app as a request listener), not Gale's engine. */
export function viaNodeHttp(galeExpress: any): any {
  const wrapped = (...args: unknown[]) => {
    const app = galeExpress(...args);
    app.listen = (...a: unknown[]) => http.createServer(app).listen(...(a as [number]));
    return app;
  };
  return Object.assign(wrapped, galeExpress);
}

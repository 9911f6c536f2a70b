// The server side of the HTTP/3 tests: an app listening on 127.0.0.1 with TLS (the test PKI's a.test leaf) and
// `http3`, closed when the test ends; and an HTTP/1.1 GET over TLS for the headers HTTP/3 adds to other protocols.
import https from 'node:https';
import type { TestContext } from 'node:test';
import { testPki } from '../h2/h2.js';
import type { App, GaleOptions } from '../helpers.js';
import type { Leaf } from '../tls/certs.js';

export interface H3AppOptions {
  gale?: GaleOptions;
  /** `listen`'s http3 option. Default true. */
  http3?: boolean | object;
  http2?: boolean;
  /** The certificate to serve. Default the test PKI's a.test leaf. */
  leaf?: Leaf;
}

/** An app from `setup` listening with TLS and HTTP/3 (unless `http3: false`); closed when the test ends. */
export async function h3App(
  t: TestContext,
  setup: (app: App) => void,
  opts: H3AppOptions = {},
): Promise<{ app: App; port: number }> {
  const { gale } = await import('gale');
  const app = gale(opts.gale);
  setup(app);
  const leaf = opts.leaf ?? testPki().leaf;
  const { port } = await app.listen({
    port: 0,
    host: '127.0.0.1',
    tls: { cert: leaf.cert, key: leaf.key },
    http3: opts.http3 ?? true,
    ...(opts.http2 ? { http2: true } : {}),
  });
  t.after(() => app.close({ timeout: 500 }));
  return { app, port };
}

/** The response headers of an HTTP/1.1 GET over TLS to 127.0.0.1:`port` (as a.test). */
export function httpsHeaders(port: number, path: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path, ca: testPki().pki.ca, servername: 'a.test', agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      })
      .on('error', reject);
  });
}

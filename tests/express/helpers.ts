// Helpers for the @gale-http/express tests: start an app on 127.0.0.1 port 0, a fetch that keeps cookies.
// biome-ignore-all lint/suspicious/noExplicitAny: apps come from @gale-http/express and real Express
import type { AddressInfo } from 'node:net';

export interface Started {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Listens on a free port; `close` waits until the server has stopped. */
export function start(app: any): Promise<Started> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
    server.once('error', reject);
  });
}

/** A fetch that sends back the cookies the server set (a tiny cookie jar). */
export function cookieFetch(): (url: string, init?: RequestInit) => Promise<Response> {
  const jar = new Map<string, string>();
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair as string).indexOf('=');
      jar.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1));
    }
    return res;
  };
}

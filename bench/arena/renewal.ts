// How a server ends a connection whose request says `Connection: close` (RFC 9112 §9.6: it MUST close after the
// answer and SHOULD say `Connection: close` in it). The arena renews connections that way (arena.lua), and wrk, which
// reads an answer without that header as keep-alive, writes its next request into the closing connection and counts
// the close as a read or write error; load.ts forgives exactly those when this probe saw the server close unannounced.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { ArenaData } from './data.ts';
import { type Profile, rawRequest } from './profiles.ts';

export type CloseBehaviour =
  /** The answer says `Connection: close` and the server closes: wrk renews the connection cleanly. */
  | 'announced'
  /** The server closes after the answer without saying so (uWebSockets.js and Bun.serve 1.4.5, among the entries). */
  | 'unannounced'
  /** The server keeps the connection open: it would not be renewed (the profile is FAILED). */
  | 'kept-open';

/** Sends the profile's first request in its closing form on a new connection and watches the connection for 3 s. */
export function closeBehaviour(port: number, profile: Profile, data: ArenaData): Promise<CloseBehaviour> {
  const t = profile.templates[0];
  if (!t) throw new Error(`${profile.id} has no requests`);
  const upload = t.body && 'upload' in t.body ? readFileSync(data.uploads[t.body.upload]) : undefined;
  const req = rawRequest(t, upload, true);
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const got: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve('kept-open');
    }, 3000);
    s.on('connect', () => s.write(req));
    s.on('data', (d: Buffer) => got.push(d));
    s.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`the close probe's connection failed: ${e.message}`));
    });
    s.on('end', () => {
      clearTimeout(timer);
      s.destroy();
      const text = Buffer.concat(got).toString('latin1');
      const head = text.slice(0, Math.max(0, text.indexOf('\r\n\r\n')));
      if (!/^HTTP\/1\.1 /.test(head)) {
        reject(new Error(`the close probe got no answer before the close: ${JSON.stringify(text.slice(0, 120))}`));
        return;
      }
      resolve(/^connection:[ \t]*close[ \t]*$/im.test(head) ? 'announced' : 'unannounced');
    });
  });
}

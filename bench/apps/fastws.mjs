// Loads Gale's fast-ws protocol class for the fastws-echo apps: packages/fast-ws/dist/server.js (built by
// `npx tsc -p packages/gale/tsconfig.build.json`). Resolves to null when it is not built (the harness reports the
// fastws-echo rows FAILED with that reason before starting any app).
import { existsSync } from 'node:fs';

const built = new URL('../../packages/fast-ws/dist/server.js', import.meta.url);

/** Gale's `FastWsConnection`, or null when packages/fast-ws/dist/server.js does not exist. */
export async function loadFastWs() {
  return existsSync(built) ? (await import(built.href)).FastWsConnection : null;
}

/**
 * Serves one fast-ws connection of a `ws` WebSocket: greets, answers every `echo` event with its data.
 * Without the class (not built) the socket is closed with 1011.
 */
export function fastWsEcho(ws, FastWsConnection) {
  if (!FastWsConnection) return ws.close(1011, 'gale fast-ws is not built');
  const c = new FastWsConnection({ send: (t) => ws.send(t), close: (code, reason) => ws.close(code, reason) });
  c.on('echo', (e) => e.reply(e.data));
  ws.on('message', (data, isBinary) => {
    if (!isBinary) c.receive(data.toString());
  });
  c.greet();
}

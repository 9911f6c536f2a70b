// `ws` client helpers for the WebSocket tests: connect (messages queued from the first byte, since the first ones can
// arrive in the same packet as the 101), the next message, and the close event.
import WebSocket from 'ws';

interface Msg {
  data: Buffer;
  isBinary: boolean;
}
/** Messages are queued from the start: the first ones can arrive in the same packet as the 101. */
const inboxes = new WeakMap<WebSocket, { queue: Msg[]; waiting: ((m: Msg) => void)[] }>();

/** Opens a `ws` client and waits for 'open' (rejects on an unexpected HTTP answer with its status). */
export function connect(url: string, protocols?: string[], opts: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const c = new WebSocket(url, protocols, opts);
    const box = { queue: [] as Msg[], waiting: [] as ((m: Msg) => void)[] };
    inboxes.set(c, box);
    c.on('message', (data: Buffer, isBinary) => {
      const w = box.waiting.shift();
      if (w) w({ data, isBinary });
      else box.queue.push({ data, isBinary });
    });
    c.once('open', () => resolve(c));
    c.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    c.once('error', reject);
  });
}

export function nextMessage(c: WebSocket): Promise<Msg> {
  const box = inboxes.get(c);
  if (box === undefined) throw new Error('nextMessage: open the client with connect()');
  const m = box.queue.shift();
  if (m) return Promise.resolve(m);
  return new Promise((resolve) => box.waiting.push(resolve));
}

export function closed(c: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => c.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

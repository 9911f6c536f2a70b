// A load driver that sends an exact number of requests and waits for every answer: `connections` keep-alive
// connections, each writing `pipeline` GETs at a time and counting whole responses (by Content-Length) before the
// next batch. For counts, not speed: bench/instructions.ts measures a server's instructions over a known number of
// requests with it (wrk runs for a time, not a count).
import net from 'node:net';

export interface DriveOptions {
  port: number;
  /** The request target; `{n}` in it becomes the request's number (0, 1, …), so each request differs. */
  path: string;
  requests: number;
  connections?: number;
  pipeline?: number;
}

/** How many complete responses `buf` holds from `from` on, and where the first incomplete one starts. */
export function countResponses(buf: Buffer, from = 0): { complete: number; rest: number } {
  let at = from;
  let complete = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', at, 'latin1');
    if (end === -1) break;
    const head = buf.toString('latin1', at, end);
    const m = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
    if (m === null) throw new Error(`drive: a response without Content-Length: ${head.split('\r\n')[0]}`);
    const next = end + 4 + Number(m[1]);
    if (next > buf.length) break;
    complete++;
    at = next;
  }
  return { complete, rest: at };
}

/** Sends `requests` GETs of `path` and resolves with the number answered (all of them, or it rejects). */
export async function drive(o: DriveOptions): Promise<number> {
  const connections = o.connections ?? 16;
  const pipeline = o.pipeline ?? 16;
  const head = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${o.port}\r\n\r\n`;
  const one = Buffer.from(head(o.path), 'latin1');
  const numbered = o.path.includes('{n}');
  let next = 0;
  const requests = (k: number): Buffer => {
    if (!numbered) return k === 1 ? one : Buffer.concat(Array.from({ length: k }, () => one));
    let text = '';
    for (let i = 0; i < k; i++) text += head(o.path.replaceAll('{n}', String(next++)));
    return Buffer.from(text, 'latin1');
  };
  let left = o.requests;
  let answered = 0;
  const conn = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.connect(o.port, '127.0.0.1');
      let pending = 0;
      let buf: Buffer = Buffer.alloc(0);
      const batch = () => {
        const k = Math.min(pipeline, left);
        if (k === 0) {
          s.end();
          resolve();
          return;
        }
        left -= k;
        pending = k;
        s.write(requests(k));
      };
      s.on('connect', batch);
      s.on('data', (d: Buffer) => {
        buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
        const { complete, rest } = countResponses(buf);
        buf = buf.subarray(rest);
        pending -= complete;
        answered += complete;
        if (pending < 0) reject(new Error('drive: more responses than requests'));
        else if (pending === 0) batch();
      });
      s.on('error', reject);
      s.on('close', () => {
        if (pending > 0) reject(new Error(`drive: the server closed with ${pending} requests unanswered`));
      });
    });
  await Promise.all(Array.from({ length: connections }, conn));
  return answered;
}

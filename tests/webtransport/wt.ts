// The client side of the WebTransport tests: client.py (Python's aioquic, installed by tests/h3/aioquic.ts) runs a
// script of steps over one QUIC connection and reports what arrived, in order.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testPki } from '../h2/h2.js';
import { aioquicPath } from '../h3/aioquic.js';

const script = join(dirname(fileURLToPath(import.meta.url)), 'client.py');

/** One step of client.py's script (see its header). */
export type Step =
  | { do: 'connect'; path: string; headers?: [string, string][] }
  | { do: 'datagram'; data: string }
  | { do: 'bidi' | 'uni'; name: string; data?: string; fin?: boolean }
  | { do: 'write'; name: string; data?: string; fin?: boolean }
  | { do: 'reset'; name: string; code: number }
  | { do: 'capsule'; hex: string; fin?: boolean }
  | { do: 'get'; path: string }
  | { do: 'wait'; for: string; timeout?: number; since?: number }
  | { do: 'sleep'; s: number };

/** What client.py saw, in order. */
export interface WtEvent {
  kind: string;
  status?: number;
  headers?: [string, string][];
  data?: string;
  stream?: string;
  end?: boolean;
  code?: number;
  hex?: string;
  body?: string;
  for?: string;
}

/**
 * Runs `steps` against 127.0.0.1:`port` and returns the events; by default the server shows the test PKI's a.test
 * certificate (`tls` names another CA file and server name).
 */
export function wtClient(
  port: number,
  steps: Step[],
  timeout = 30,
  tls: { ca: string; servername: string } = { ca: testPki().pki.caPath, servername: 'a.test' },
): Promise<WtEvent[]> {
  const spec = { port, ca: tls.ca, servername: tls.servername, steps };
  const env = { ...process.env, PYTHONPATH: aioquicPath() };
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script], { env, timeout: timeout * 1000 });
    child.stdin.end(JSON.stringify(spec));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code: number | null) => {
      if (code !== 0) return reject(new Error(`aioquic WebTransport client exited ${code}: ${stderr}`));
      resolve((JSON.parse(stdout) as { events: WtEvent[] }).events);
    });
  });
}

/** CLOSE_WEBTRANSPORT_SESSION with `code` and `reason`, as hex (type 0x2843 as a 2-byte varint, 1-byte length). */
export function closeCapsule(code: number, reason: string): string {
  const value = Buffer.concat([Buffer.alloc(4), Buffer.from(reason)]);
  value.writeUInt32BE(code);
  return Buffer.concat([Buffer.from([0x68, 0x43, value.length]), value]).toString('hex');
}

/** The stream data client.py received on `stream`, joined, and whether it ended. */
export function streamText(events: WtEvent[], stream: string): { text: string; end: boolean } {
  const mine = events.filter((e) => e.kind === 'data' && e.stream === stream);
  return { text: mine.map((e) => e.data).join(''), end: mine.some((e) => e.end) };
}

// The soak scenario's Node clients, run in their own process on the load core:
//   node soak-client.mjs ws PORT CYCLES CONCURRENCY      WebSocket connect → one echoed message → close, CYCLES times
//   node soak-client.mjs upload PORT COUNT CONCURRENCY   POST /stream with Content-Length 1 MiB, 64 KiB sent, then a reset
// Every WebSocket echo is checked byte for byte. Prints one JSON line: { done, ok, errors, firstError, seconds }.
import { randomBytes } from 'node:crypto';
import net from 'node:net';

const [mode, portArg, countArg, concArg] = process.argv.slice(2);
const port = Number(portArg);
const count = Number(countArg);
const concurrency = Number(concArg ?? 50);
let started = 0;
let done = 0;
let ok = 0;
let errors = 0;
let firstError = null;
const t0 = Date.now();

function fail(why) {
  errors++;
  firstError ??= why;
}

/** A masked client text frame. */
function frame(payload) {
  const key = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= key[i & 3];
  return Buffer.concat([Buffer.from([0x81, 0x80 | body.length]), key, body]);
}

const CLOSE = Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]); // close 1000, mask 0

function wsCycle(n, next) {
  const sock = net.connect(port, '127.0.0.1');
  const msg = `soak ${n}`;
  let got = Buffer.alloc(0);
  let echoed = false;
  const timer = setTimeout(() => {
    fail(`cycle ${n}: no echo within 5 s`);
    sock.destroy();
  }, 5000);
  sock.on('connect', () => {
    sock.write(
      'GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
    );
    sock.write(frame(msg));
  });
  sock.on('data', (d) => {
    got = Buffer.concat([got, d]);
    const head = got.indexOf('\r\n\r\n');
    if (echoed || head < 0) return;
    const f = got.subarray(head + 4);
    if (f.length < 2 + msg.length) return;
    echoed = true;
    if (f[0] === 0x81 && f[1] === msg.length && f.subarray(2, 2 + msg.length).toString() === msg) ok++;
    else fail(`cycle ${n}: bad echo ${JSON.stringify(f.subarray(0, 40).toString('latin1'))}`);
    sock.end(CLOSE);
  });
  sock.on('error', (e) => fail(`cycle ${n}: ${e.message}`));
  sock.on('close', () => {
    clearTimeout(timer);
    if (!echoed) fail(`cycle ${n}: closed before the echo`);
    next();
  });
}

const CHUNK = Buffer.alloc(64 * 1024, 120);

function uploadCycle(_n, next) {
  const sock = net.connect(port, '127.0.0.1');
  sock.on('connect', () => {
    sock.write(
      'POST /stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 1048576\r\n\r\n',
    );
    sock.write(CHUNK, () => {
      // Give the server the moment to start reading the body, then cut the connection.
      setTimeout(() => {
        ok++;
        sock.resetAndDestroy();
      }, 2);
    });
  });
  sock.on('error', () => {});
  sock.on('close', () => next());
}

const cycle = mode === 'ws' ? wsCycle : uploadCycle;
function launch() {
  if (started >= count) return;
  const n = started++;
  cycle(n, () => {
    done++;
    if (done === count) {
      const seconds = (Date.now() - t0) / 1000;
      process.stdout.write(`${JSON.stringify({ done, ok, errors, firstError, seconds })}\n`);
      process.exit(0);
    } else launch();
  });
}
for (let i = 0; i < Math.min(concurrency, count); i++) launch();

// The broadcast-latency client of `npm run bench -- scale`: SUBS clients on instance A's and on instance B's
// /broadcast (the demo's ws-broadcast scenario, app.publish underneath), one sender on A. Each sample is one broadcast
// carrying its send time; the latency is measured at every client on B (through Redis) and on A (local), in this one
// process (one clock). Usage: node scale-client.mjs PORT_A PORT_B SUBS SAMPLES → one JSON line.
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

const [portA, portB, subs, samples] = process.argv.slice(2).map(Number);
const open = (port) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/broadcast`);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
const remote = [];
const local = [];
let expect = -1;
let pending = 0;
let done;
const listen = (ws, into) =>
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    if (m.type !== 'broadcastResult' || m.payload.id !== expect) return;
    into?.push(performance.now() - m.payload.t);
    if (--pending === 0) done();
  });
const a = await Promise.all(Array.from({ length: subs }, () => open(portA)));
const b = await Promise.all(Array.from({ length: subs }, () => open(portB)));
const sender = a[0];
const send = (id, into) =>
  new Promise((resolve, reject) => {
    expect = id;
    pending = into ? 2 * subs : subs;
    done = resolve;
    const timer = setTimeout(() => reject(new Error(`broadcast ${id} not delivered everywhere in 5 s`)), 5000);
    timer.unref();
    sender.send(JSON.stringify({ type: 'broadcast', payload: { id, t: performance.now() } }));
  });
for (const ws of a) listen(ws, local);
for (const ws of b) listen(ws, remote);
// Until B's subscription is known on A (the announcement crosses Redis), a broadcast reaches A only: warm up.
const arrives = (ws, id, ms) =>
  new Promise((resolve) => {
    const on = (d) => {
      if (JSON.parse(String(d)).payload?.id !== id) return;
      clearTimeout(timer);
      ws.off('message', on);
      resolve(true);
    };
    const timer = setTimeout(() => {
      ws.off('message', on);
      resolve(false);
    }, ms);
    ws.on('message', on);
  });
for (let w = 0; ; w++) {
  if (w > 100) throw new Error('instance B never received a broadcast from A');
  const id = `warm${w}`;
  const arrived = arrives(b[0], id, 300);
  sender.send(JSON.stringify({ type: 'broadcast', payload: { id, t: 0 } }));
  if (await arrived) break;
}
await new Promise((r) => setTimeout(r, 300));
remote.length = 0;
local.length = 0;
for (let i = 0; i < samples; i++) {
  await send(i, true);
  await new Promise((r) => setTimeout(r, 5));
}
for (const ws of [...a, ...b]) ws.terminate();
const pct = (xs, p) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const summary = (xs) => ({
  n: xs.length,
  p50Ms: pct(xs, 50),
  p99Ms: pct(xs, 99),
  maxMs: Math.max(...xs),
});
console.log(JSON.stringify({ subs, samples, remote: summary(remote), local: summary(local) }));

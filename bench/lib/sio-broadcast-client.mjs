// The sio-broadcast load client: --clients real `socket.io-client` sockets (websocket transport only, namespace of --url)
// in one thread. Once every client is connected, clients take turns (rotating) emitting `broadcast` with a payload
// {id, ts, pad} (a sequence number, the send time in µs since the phase began, --size '0's), --in-flight broadcasts
// at a time, for --duration seconds; each broadcast must reach every client exactly once as `broadcastResult` with
// the exact payload. Prints one JSON line shaped like gale-loadgen-ws's (bench/lib/ws-types.ts WsJson, mode
// "sio-broadcast"); exit code 0 only when every delivery was valid and nothing errored.
// Usage: node bench/lib/sio-broadcast-client.mjs --url http://127.0.0.1:PORT/broadcast [--clients 1000]
//        [--in-flight 4] [--size 100] [--duration 10] [--timeout 5] [--server-pid PID]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { summary } from './latency.mjs';

const now = () => performance.now();
/** Sockets connecting at once (as gale-loadgen-ws's 64): all 1 000 at once would time out on a loaded client core. */
const CONNECTING = 64;
const FLYING = 0;
const DONE = 1;
const TIMED_OUT = 2;

const { values: v } = parseArgs({
  options: {
    url: { type: 'string' },
    clients: { type: 'string', default: '1000' },
    'in-flight': { type: 'string', default: '4' },
    size: { type: 'string', default: '100' },
    duration: { type: 'string', default: '10' },
    timeout: { type: 'string', default: '5' },
    'server-pid': { type: 'string' },
  },
});
if (!v.url) {
  console.error('sio-broadcast-client: --url is required (http://HOST:PORT/NAMESPACE)');
  process.exit(2);
}
const n = Math.max(1, Number(v.clients));
const inFlight = Math.max(1, Number(v['in-flight']));
const pad = '0'.repeat(Number(v.size));
const durationMs = Number(v.duration) * 1000;
const timeoutMs = Number(v.timeout) * 1000;
const serverPid = v['server-pid'] ? Number(v['server-pid']) : null;

/** The server's utime+stime in seconds (as the harness reads it: bench/lib/proc.ts cpuSeconds), or null. */
const ticks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
function serverCpuS() {
  if (serverPid === null) return null;
  try {
    const stat = readFileSync(`/proc/${serverPid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / ticks;
  } catch {
    return null;
  }
}

const r = {
  connects: 0,
  valid: 0,
  invalid: 0,
  firstInvalid: null,
  errors: { connect: 0, read: 0, write: 0, timeout: 0, closed: 0 },
  firstError: null,
  connectUs: [],
  rttUs: [],
};
const error = (kind, count, why) => {
  r.errors[kind] += count;
  r.firstError ??= why;
};
const bad = (why) => {
  r.invalid++;
  r.firstInvalid ??= why;
};
const show = (x) => {
  const s = JSON.stringify(x) ?? String(x);
  return s.length > 160 ? `${s.slice(0, 160)}…` : s;
};

const { io } = await import('socket.io-client');
const sockets = new Array(n);
/** Every broadcast sent, by id: its payload's ts, sender, send time, which clients got it and how many have not. */
const sent = [];
const flying = new Set();
let phase = 'connecting';
let t0 = 0;
let deadline = 0;
let finish = () => {};

// Callbacks only, no promise or timer per delivery (the client must stay cheaper than the server): a delivery is
// a lookup by id and four comparisons.
function onDelivery(i, p) {
  if (phase !== 'broadcasting') {
    if (phase === 'connecting') bad(`client ${i} got a broadcastResult before any broadcast was sent: ${show(p)}`);
    return;
  }
  const id = p !== null && typeof p === 'object' ? p.id : undefined;
  const b = Number.isInteger(id) ? sent[id] : undefined;
  if (!b) return bad(`client ${i} got a broadcastResult of no broadcast sent: ${show(p)}`);
  if (b.state === TIMED_OUT) return; // counted as a timeout already
  if (p.ts !== b.ts || p.pad !== pad || Object.keys(p).length !== 3) {
    return bad(
      `broadcast ${id}: client ${i} got ${show(p)}, not the payload sent ` + `(${show({ id, ts: b.ts, pad })})`,
    );
  }
  if (b.state === DONE || b.got[i] === 1) return bad(`broadcast ${id}: client ${i} got it twice`);
  b.got[i] = 1;
  r.valid++;
  if (--b.left === 0) {
    const t = now();
    r.rttUs.push(Math.max(1, Math.round((t - b.sentAt) * 1000)));
    b.state = DONE;
    b.got = null;
    flying.delete(b);
    refill(t);
  }
}

function send(t) {
  const id = sent.length;
  const from = id % n;
  const ts = Math.round((t - t0) * 1000);
  sent.push({ id, ts, from, sentAt: t, got: new Uint8Array(n), left: n, state: FLYING });
  flying.add(sent[id]);
  // No ack callback: the servers' `ack?.()` is then a no-op, and the round trip ends at the last delivery.
  sockets[from].emit('broadcast', { id, ts, pad });
}

/** Keeps --in-flight broadcasts going until the deadline; the phase ends once the last one has landed. */
function refill(t = now()) {
  while (flying.size < inFlight && t < deadline) send(t);
  if (flying.size === 0) finish();
}

/** A broadcast not delivered to every client within --timeout: one timeout error per missing delivery. */
function timedOut(b) {
  const missing = [];
  for (let i = 0; i < n; i++) if (b.got[i] === 0) missing.push(i);
  const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? ', …' : '');
  const sender = missing.includes(b.from) ? '; the sender among them' : '';
  error(
    'timeout',
    b.left,
    `broadcast ${b.id} (sent by client ${b.from}) at ${n} clients: ${b.left} ` +
      `deliver${b.left === 1 ? 'y' : 'ies'} missing after --timeout (client${missing.length === 1 ? '' : 's'} ` +
      `${shown}${sender})`,
  );
  b.state = TIMED_OUT;
  b.got = null;
  flying.delete(b);
}

function connect(i) {
  return new Promise((resolve) => {
    const since = now();
    const socket = io(v.url, { transports: ['websocket'], forceNew: true, reconnection: false, timeout: timeoutMs });
    sockets[i] = socket;
    socket.on('broadcastResult', (p) => onDelivery(i, p));
    socket.once('connect', () => {
      r.connects++;
      r.connectUs.push(Math.max(1, Math.round((now() - since) * 1000)));
      resolve(true);
    });
    socket.once('connect_error', (err) => {
      error(/timeout/i.test(err.message) ? 'timeout' : 'connect', 1, `client ${i}: connect: ${err.message}`);
      resolve(false);
    });
    socket.on('disconnect', (reason) => {
      if (phase !== 'closing') error('closed', 1, `client ${i} disconnected by the server (${reason})`);
    });
  });
}

// Connect every client (CONNECTING at a time) and wait for all of them before the first broadcast.
const c0 = now();
let next = 0;
let allConnected = true;
await Promise.all(
  Array.from({ length: Math.min(CONNECTING, n) }, async () => {
    while (next < n) if (!(await connect(next++))) allConnected = false;
  }),
);
const connectS = (now() - c0) / 1000;

let secs = 0;
let serverCpu = null;
const cpu0 = process.cpuUsage();
if (allConnected) {
  const s0 = serverCpuS();
  phase = 'broadcasting';
  t0 = now();
  deadline = t0 + durationMs;
  const watchdog = setInterval(() => {
    const t = now();
    let freed = false;
    for (const b of flying) {
      if (t - b.sentAt > timeoutMs) {
        timedOut(b);
        freed = true;
      }
    }
    if (freed) refill(t);
  }, 100);
  await new Promise((resolve) => {
    finish = resolve;
    refill(t0);
  });
  clearInterval(watchdog);
  secs = (now() - t0) / 1000;
  const s1 = serverCpuS();
  serverCpu = s0 !== null && s1 !== null ? Math.round((s1 - s0) * 1000) / 1000 : null;
}
const cpu = process.cpuUsage(cpu0);
const clientCpuS = (cpu.user + cpu.system) / 1e6;
phase = 'closing';
for (const s of sockets) s?.close();

const broadcasts = r.rttUs.length;
const rate = (x, s) => (s > 0 ? Math.round(x / s) : 0);
const out = {
  mode: 'sio-broadcast',
  duration_s: Math.round(secs * 1e6) / 1e6,
  connects: r.connects,
  connects_per_s: rate(r.connects, connectS),
  echoes: 0,
  echoes_per_s: 0,
  valid: r.valid,
  invalid: r.invalid,
  first_invalid: r.firstInvalid,
  errors: r.errors,
  first_error: r.firstError,
  connect_us: summary(r.connectUs),
  echo_us: null,
  detail: {
    clients: n,
    in_flight: inFlight,
    size: pad.length,
    connect_s: Math.round(connectS * 1000) / 1000,
    broadcasts_sent: sent.length,
    broadcasts,
    broadcasts_per_s: rate(broadcasts, secs),
    deliveries_per_s: rate(r.valid, secs),
    rtt_us: summary(r.rttUs),
    server_cpu_s: serverCpu,
    client_cpu_s: Math.round(clientCpuS * 1e6) / 1e6,
    client_cpu_pct: secs > 0 ? Math.round((1000 * clientCpuS) / secs) / 10 : null,
  },
};
process.stdout.write(`${JSON.stringify(out)}\n`);
const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
process.exit(r.invalid === 0 && errors === 0 && r.valid > 0 ? 0 : 1);

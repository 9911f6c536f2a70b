// The sio-echo load client: the real `socket.io-client` (websocket transport only) in Node worker threads. Each of
// --connections connections (split across --workers threads) connects, sends --messages `emit('echo', payload, ack)`
// one after another (each after the previous ack), checks every ack equals the payload, disconnects and connects
// again until --duration has passed. Prints one JSON line shaped like gale-loadgen-ws's (bench/lib/ws-types.ts
// WsJson, mode "sio"); exit code 0 only when every ack was valid and nothing errored.
// Usage: node bench/lib/sio-client.mjs --url http://127.0.0.1:PORT [--connections 100] [--messages 100]
//        [--size 1024] [--duration 10] [--timeout 5] [--workers 2]
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { summary } from './latency.mjs';

const now = () => performance.now();

async function workerMain({ url, connections, messages, size, timeoutMs, deadline }) {
  const { io } = await import('socket.io-client');
  const payload = '0'.repeat(size);
  const r = {
    connects: 0,
    valid: 0,
    invalid: 0,
    firstInvalid: null,
    errors: { connect: 0, read: 0, write: 0, timeout: 0, closed: 0 },
    firstError: null,
    connectUs: [],
    echoUs: [],
  };
  const error = (kind, why) => {
    r.errors[kind]++;
    r.firstError ??= why;
  };
  // Callbacks only, no promise, timer or listener per message (the client must stay cheaper than the server): each
  // connection is a small state machine, and one interval checks every pending ack against the timeout.
  const active = new Set();
  let loops = connections;
  let finishAll;
  const allDone = new Promise((res) => {
    finishAll = res;
  });
  const connection = () => {
    if (now() >= deadline) {
      if (--loops === 0) finishAll();
      return;
    }
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, timeout: timeoutMs });
    const c = { pending: false, since: now(), over: false, end: null };
    let sent = 0;
    const end = (next) => {
      if (c.over) return;
      c.over = true;
      active.delete(c);
      socket.close();
      if (next === 'later') setTimeout(connection, 10);
      else connection();
    };
    c.end = end;
    const onAck = (got) => {
      c.pending = false;
      if (c.over) return;
      if (got !== payload) {
        r.invalid++;
        r.firstInvalid ??= describeAck(got, payload);
        return end();
      }
      r.valid++;
      r.echoUs.push(Math.max(1, Math.round((now() - c.since) * 1000)));
      send();
    };
    const send = () => {
      // A connection that got through sends at least once, even past the deadline (a slow connect must not turn a
      // server that never acks into "no valid message").
      if (sent >= messages || (sent > 0 && now() >= deadline)) return end();
      sent++;
      c.pending = true;
      c.since = now();
      socket.emit('echo', payload, onAck);
    };
    socket.once('connect', () => {
      r.connects++;
      r.connectUs.push(Math.max(1, Math.round((now() - c.since) * 1000)));
      active.add(c);
      send();
    });
    socket.once('connect_error', (err) => {
      error(/timeout/i.test(err.message) ? 'timeout' : 'connect', `connect: ${err.message}`);
      end('later');
    });
    socket.on('disconnect', (reason) => {
      if (c.over) return;
      error('closed', `disconnected by the server (${reason})`);
      end();
    });
  };
  const watchdog = setInterval(() => {
    const t = now();
    for (const c of active) {
      if (c.pending && t - c.since > timeoutMs) {
        error('timeout', 'no ack within --timeout');
        c.end();
      }
    }
  }, 100);
  for (let i = 0; i < connections; i++) connection();
  await allDone;
  clearInterval(watchdog);
  return r;
}

/** Why an ack is not the payload: its type, length, start and first differing character. */
function describeAck(got, payload) {
  if (typeof got !== 'string') return `expected the ${payload.length}-character payload as the ack, got ${typeof got}`;
  let i = 0;
  while (i < got.length && got[i] === payload[i]) i++;
  return (
    `expected the ${payload.length}-character payload as the ack, got a ${got.length}-character string: ` +
    `${JSON.stringify(got.slice(0, 120))} (first difference at character ${i})`
  );
}

async function main() {
  const { values: v } = parseArgs({
    options: {
      url: { type: 'string' },
      connections: { type: 'string', default: '100' },
      messages: { type: 'string', default: '100' },
      size: { type: 'string', default: '1024' },
      duration: { type: 'string', default: '10' },
      timeout: { type: 'string', default: '5' },
      workers: { type: 'string', default: '2' },
    },
  });
  if (!v.url) {
    console.error('sio-client: --url is required');
    process.exit(2);
  }
  const connections = Number(v.connections);
  const workers = Math.max(1, Math.min(Number(v.workers), connections));
  const durationMs = Number(v.duration) * 1000;
  const parts = Array.from(
    { length: workers },
    (_, i) => Math.floor(connections / workers) + (i < connections % workers ? 1 : 0),
  );
  // The run starts once every worker has loaded socket.io-client (which can take most of a second on a loaded
  // machine): a deadline counted from before would leave a short run with no time to connect.
  const ws = parts.map(
    (n) =>
      new Worker(new URL(import.meta.url), {
        workerData: {
          url: v.url,
          connections: n,
          messages: Number(v.messages),
          size: Number(v.size),
          timeoutMs: Number(v.timeout) * 1000,
        },
      }),
  );
  const results = ws.map(
    (w) =>
      new Promise((resolve, reject) => {
        w.on('message', (m) => {
          if (m !== 'ready') resolve(m);
        });
        w.once('error', reject);
      }),
  );
  await Promise.all(ws.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const start = now();
  // An absolute time: each worker has its own performance.timeOrigin.
  for (const w of ws) w.postMessage({ deadlineEpoch: performance.timeOrigin + start + durationMs });
  const done = await Promise.all(results);
  const secs = (now() - start) / 1000;
  const all = {
    connects: 0,
    valid: 0,
    invalid: 0,
    firstInvalid: null,
    errors: { connect: 0, read: 0, write: 0, timeout: 0, closed: 0 },
    firstError: null,
    connectUs: [],
    echoUs: [],
  };
  for (const r of done) {
    all.connects += r.connects;
    all.valid += r.valid;
    all.invalid += r.invalid;
    all.firstInvalid ??= r.firstInvalid;
    all.firstError ??= r.firstError;
    for (const k of Object.keys(all.errors)) all.errors[k] += r.errors[k];
    for (const x of r.connectUs) all.connectUs.push(x);
    for (const x of r.echoUs) all.echoUs.push(x);
  }
  const rate = (n) => Math.round(n / secs);
  const out = {
    mode: 'sio',
    duration_s: Math.round(secs * 1e6) / 1e6,
    connects: all.connects,
    connects_per_s: rate(all.connects),
    echoes: all.echoUs.length,
    echoes_per_s: rate(all.echoUs.length),
    valid: all.valid,
    invalid: all.invalid,
    first_invalid: all.firstInvalid,
    errors: all.errors,
    first_error: all.firstError,
    connect_us: summary(all.connectUs),
    echo_us: summary(all.echoUs),
    detail: { connections, messages: Number(v.messages), size: Number(v.size), workers },
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  const errors = Object.values(all.errors).reduce((a, b) => a + b, 0);
  process.exit(all.invalid === 0 && errors === 0 && all.valid > 0 ? 0 : 1);
}

if (isMainThread) await main();
else {
  const d = workerData;
  parentPort?.postMessage('ready');
  const { deadlineEpoch } = await new Promise((resolve) => parentPort?.once('message', resolve));
  const deadline = deadlineEpoch - performance.timeOrigin;
  parentPort?.postMessage(await workerMain({ ...d, deadline }));
  process.exit(0);
}

// Runs autocannon once (started by lib/autocannon.ts, pinned to the load core) and prints one JSON line.
// Usage: node bench/lib/autocannon-run.mjs <config.json>
//   config: { url, connections, pipelining, durationS, timeoutS, method, headers, expectStatus, expectBodyFile }
//
// autocannon's own `expectBody` compares the body as a string decoded chunk by chunk (a multi-byte character split
// between two reads would make a correct response a mismatch, and two different invalid byte sequences decode alike),
// so the body is checked here instead: a `setupClient` hook wraps each client's HTTP parser callbacks and compares
// the status and every body byte with the expected ones as they are parsed. autocannon's own counters (responses per
// status, errors, timeouts) are reported too, and a connection the server closes is counted (autocannon silently
// reconnects). Latency: autocannon's per-response duration (from the request's write to the end of its response),
// kept at full precision here (autocannon's own histogram rounds to whole milliseconds).
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const expected = readFileSync(cfg.expectBodyFile);
const SAMPLE = 120;

let checked = 0;
let invalid = 0;
let firstInvalid = '';
let closed = 0;
let connectErrors = 0;
let socketErrors = 0;
let hookProblem = null;
let latMs = new Float64Array(1 << 16);
let nLat = 0;

/** The same form as gale-loadgen and the wrk validator: printable ASCII kept, other bytes as \xNN. */
function printable(buf) {
  let s = '';
  for (const b of buf) s += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return s;
}

/** Wraps the parser callbacks of one client (its constructor has set them when it first connects). */
function hookParser(client) {
  const parser = client.parser;
  const P = parser?.constructor;
  const keys = [P?.kOnHeadersComplete, P?.kOnBody, P?.kOnMessageComplete];
  if (keys.some((k) => k === undefined || typeof parser[k] !== 'function')) {
    hookProblem = 'this autocannon version has no hookable HTTP parser (client.parser callbacks): cannot validate';
    return;
  }
  const [kHead, kBody, kDone] = keys;
  const onHead = parser[kHead];
  const onBody = parser[kBody];
  const onDone = parser[kDone];
  let status = 0;
  let got = 0;
  let same = true;
  let sample = null;
  let sampled = 0;
  parser[kHead] = (...args) => {
    status = args[0]?.statusCode ?? 0;
    got = 0;
    same = true;
    sample = firstInvalid ? null : [];
    sampled = 0;
    return onHead(...args);
  };
  parser[kBody] = (buf, start, len) => {
    if (same && (got + len > expected.length || buf.compare(expected, got, got + len, start, start + len) !== 0)) {
      same = false;
    }
    if (sample && sampled < SAMPLE) {
      const n = Math.min(len, SAMPLE - sampled);
      sample.push(Buffer.from(buf.subarray(start, start + n)));
      sampled += n;
    }
    got += len;
    return onBody(buf, start, len);
  };
  parser[kDone] = (...args) => {
    // autocannon counts a response only while the client is running: so does this.
    if (!client.destroyed) {
      checked++;
      if (status !== cfg.expectStatus || !same || got !== expected.length) {
        invalid++;
        if (!firstInvalid) {
          firstInvalid = `status ${status}, ${got}-byte body: ${printable(Buffer.concat(sample ?? []))}`;
        }
      }
    }
    return onDone(...args);
  };
}

function setupClient(client) {
  const connect = client._connect;
  if (typeof connect !== 'function') {
    hookProblem = 'this autocannon version has no client._connect: cannot validate';
    return;
  }
  let hooked = false;
  client._connect = function (...args) {
    if (!hooked) {
      hooked = true;
      hookParser(client);
    }
    const r = connect.apply(this, args);
    this.conn?.on('end', () => {
      if (!client.destroyed) closed++;
    });
    return r;
  };
  client.on('connError', (err) => {
    if (client.destroyed) return;
    if (err?.code === 'ECONNREFUSED' || err?.syscall === 'connect') connectErrors++;
    else socketErrors++;
  });
  client.on('response', (_status, _bytes, durationMs) => {
    if (nLat === latMs.length) {
      const bigger = new Float64Array(latMs.length * 2);
      bigger.set(latMs);
      latMs = bigger;
    }
    latMs[nLat++] = durationMs;
  });
}

const opts = {
  url: cfg.url,
  connections: cfg.connections,
  pipelining: cfg.pipelining,
  duration: cfg.durationS,
  timeout: cfg.timeoutS,
  method: cfg.method,
  headers: cfg.headers,
  setupClient,
};

autocannon(opts, (err, result) => {
  if (err) {
    console.error(`autocannon: ${err.message ?? err}`);
    process.exit(3);
  }
  const lat = latMs.subarray(0, nLat).sort();
  const q = (p) => (nLat ? Math.round(lat[Math.min(nLat - 1, Math.ceil(p * nLat) - 1)] * 1000) : null);
  let sum = 0;
  for (let i = 0; i < nLat; i++) sum += lat[i];
  const byStatus = Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, v.count]));
  const responses = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const statusErrors = Object.entries(byStatus)
    .filter(([code]) => Number(code) >= 400 && Number(code) !== cfg.expectStatus)
    .reduce((a, [, n]) => a + n, 0);
  const line = {
    requests: responses,
    checked,
    invalid,
    firstInvalid,
    hookProblem,
    errors: {
      connect: connectErrors,
      read: socketErrors,
      write: 0,
      status: statusErrors,
      timeout: result.timeouts,
      closed,
    },
    autocannon: {
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      mismatches: result.mismatches,
      statusCodeStats: byStatus,
    },
    durationS: result.duration,
    latencyUs: {
      min: nLat ? Math.round(lat[0] * 1000) : 0,
      mean: nLat ? Math.round((sum / nLat) * 1000) : 0,
      max: nLat ? Math.round(lat[nLat - 1] * 1000) : 0,
      p50: q(0.5),
      p90: q(0.9),
      p99: q(0.99),
      p999: q(0.999),
    },
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  process.exit(0);
});

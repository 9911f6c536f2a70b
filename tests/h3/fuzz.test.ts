// The live fuzzer over QUIC datagrams: the demo (HTTPS, HTTP/2 and HTTP/3) on an engine built with debug assertions
// (cargo profile `chaos`) gets bench/loadgen-h3's gale-quic-fuzz for GALE_QUIC_FUZZ_SECONDS (60 in CI; the long runs
// are in docs/hardening.md): raw and replayed datagrams, a real client through a relay that drops, duplicates, delays,
// cuts and corrupts them, and generated HTTP/3 streams. After every batch an HTTP/3 GET must get its exact answer;
// the process must never exit or panic (not even in a task the HTTP/3 executor catches), and answer over HTTPS at
// the end.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildChaosAddon } from '../chaos/run.js';
import { testPki } from '../h2/h2.js';
import { loadgenH3 } from './rust-client.js';

const seconds = Number(process.env.GALE_QUIC_FUZZ_SECONDS ?? 60);
const rssKiB = (pid?: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
const root = join(import.meta.dirname, '..', '..');

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const { pki } = testPki();
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path, ca: pki.ca, servername: 'a.test', agent: false, timeout: 5000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('timeout', function (this: { destroy(e: Error): void }) {
        this.destroy(new Error('no answer within 5 s'));
      })
      .on('error', reject);
  });
}

/** The demo with TLS (so HTTP/3) on the chaos engine; resolves with its port once it listens. */
function startDemo(
  native: string,
): Promise<{ child: ChildProcess; port: number; exited: () => string | undefined; panics: () => string[] }> {
  const { leaf } = testPki();
  const child = spawn(process.execPath, [join(root, 'examples', 'demo', 'server.mjs')], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      GALE_NATIVE: native,
      TLS_CERT: leaf.certPath,
      TLS_KEY: leaf.keyPath,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exit: string | undefined;
  let stderr = '';
  // A panic the HTTP/3 executor caught (the task is dropped, the process lives on) is a finding too.
  const panics: string[] = [];
  child.stderr?.on('data', (d) => {
    const text = String(d);
    if (/panicked/.test(text)) panics.push(text.slice(0, 2000));
    stderr = (stderr + text).slice(-4000);
  });
  child.once('exit', (code, signal) => {
    exit = `${signal ? `signal ${signal}` : `exit code ${code}`}\n${stderr}`;
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`the demo did not start: ${stderr}`)), 20_000);
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /localhost:(\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve({ child, port: Number(m[1]), exited: () => exit, panics: () => panics });
      }
    });
    child.once('exit', () => {
      clearTimeout(t);
      reject(new Error(`the demo exited while starting: ${exit}`));
    });
  });
}

test(`QUIC fuzzer: ${seconds} s of datagrams and HTTP/3 streams against the demo, no crash or hang`, {
  timeout: (seconds + 300) * 1000,
}, async (t) => {
  const addon = buildChaosAddon();
  t.after(() => addon.remove());
  const fuzzer = loadgenH3('gale-quic-fuzz');
  const demo = await startDemo(addon.path);
  t.after(() => demo.child.kill('SIGKILL'));
  const before = await get(demo.port, '/json');
  assert.equal(before.status, 200);
  const rssBefore = rssKiB(demo.child.pid);
  const seed = Number(process.env.GALE_QUIC_FUZZ_SEED ?? Date.now() % 1_000_000);
  const run = spawn(
    fuzzer,
    [
      ...['--addr', `127.0.0.1:${demo.port}`, '--ca', testPki().pki.caPath, '--server-name', 'a.test'],
      ...['--check-path', '/json', '--check-body', before.body, '--seconds', String(seconds), '--seed', String(seed)],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  run.stdout.on('data', (d) => {
    out += d;
  });
  run.stderr.on('data', (d) => {
    err += d;
  });
  const kill = setTimeout(() => run.kill('SIGKILL'), (seconds + 120) * 1000);
  const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
  clearTimeout(kill);
  const line = out.trim().split('\n').pop() ?? '';
  t.diagnostic(line);
  if (demo.exited() === undefined) t.diagnostic(`demo RSS ${rssBefore} → ${rssKiB(demo.child.pid)} KiB`);
  assert.equal(demo.exited(), undefined, `the demo exited (replay with GALE_QUIC_FUZZ_SEED=${seed})`);
  assert.equal(code, 0, `gale-quic-fuzz exited ${code}: ${line} ${err} (replay with GALE_QUIC_FUZZ_SEED=${seed})`);
  const r = JSON.parse(line) as {
    finding: string | null;
    batches: number;
    sessions: { raw: number; relay: number; frames: number };
    datagrams: number;
    streams: number;
    answered: number;
  };
  assert.equal(r.finding, null);
  assert.deepEqual(demo.panics(), [], `a panic in the engine (replay with GALE_QUIC_FUZZ_SEED=${seed})`);
  // The run must have done each kind of session, or it proves nothing.
  assert.ok(r.batches > 1 && r.sessions.raw > 0 && r.sessions.relay > 0 && r.sessions.frames > 0, line);
  assert.ok(r.datagrams > 100 && r.streams > 50, line);
  // Some generated requests must have reached the app and been answered, or the streams only tested the parser.
  assert.ok(r.answered > 0, line);
  const after = await get(demo.port, '/json');
  assert.deepEqual(after, before);
});

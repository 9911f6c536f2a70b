// The demo `npm start` serves, started as a real process: every scenario of the benchmark list it
// claims must answer with the exact status, Content-Type and bytes of ../shared/bench/scenarios.md.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FastWsClient } from '@gale-http/fast-ws/client';
import WebSocket from 'ws';
import { largeBytes } from '../examples/demo/assets.mjs';
import { connect, nextMessage } from './ws/clients.js';

const root = join(import.meta.dirname, '..');

async function startDemo(t: { after(fn: () => unknown): void }): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [join(root, 'examples/demo/server.mjs')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => {
    child.kill('SIGTERM');
  });
  let out = '';
  for await (const chunk of child.stdout as NodeJS.ReadableStream) {
    out += chunk.toString();
    const m = /http:\/\/localhost:(\d+)\/json/.exec(out);
    if (m) return `http://127.0.0.1:${m[1]}`;
  }
  throw new Error(`demo exited without printing its URL: ${out}`);
}

test('npm start serves every scenario with the exact bytes', { timeout: 20_000 }, async (t) => {
  const base = await startDemo(t);
  const cases: Array<[string, string, string | Buffer, RequestInit?]> = [
    ['/json', 'application/json', '{"foo":"bar","one":[2,"three"],"bar":{"baz":"quux"}}'],
    ['/', 'application/json', '{"hello":"world"}'],
    ['/text', 'text/plain; charset=utf-8', 'Hello 世界'],
    ['/hello/test', 'text/plain; charset=utf-8', 'Hello test'],
    ['/mw', 'application/json', '{"hello":"world"}'],
    ['/stream', 'text/plain; charset=utf-8', ' '.repeat(10 * 1024)],
    ['/static/index.html', 'text/html; charset=utf-8', readFileSync(join(root, 'examples/demo/public/index.html'))],
    ['/static/large.bin', 'application/octet-stream', largeBytes()],
    [
      '/prerendered.html',
      'text/html; charset=utf-8',
      readFileSync(join(root, 'examples/demo/prerendered/prerendered.html')),
    ],
  ];
  for (const [path, type, body, init] of cases) {
    const r = await fetch(base + path, init);
    assert.equal(r.status, 200, path);
    assert.equal(r.headers.get('content-type'), type, path);
    const got = Buffer.from(await r.arrayBuffer());
    assert.ok(got.equals(Buffer.from(body)), `${path}: body differs (${got.length} bytes)`);
  }
  // static-large with a Range, body-json and stream-echo.
  const range = await fetch(`${base}/static/large.bin`, { headers: { range: 'bytes=0-1023' } });
  assert.equal(range.status, 206);
  assert.equal(range.headers.get('content-range'), 'bytes 0-1023/1048576');
  assert.ok(Buffer.from(await range.arrayBuffer()).equals(largeBytes().subarray(0, 1024)));
  const obj = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key${i}`, 'x'.repeat(16)]));
  const body = await fetch(`${base}/body`, { method: 'POST', body: JSON.stringify(obj) });
  assert.equal(await body.text(), '{"keys":40}');
  const text = 'echo '.repeat(20 * 1024);
  const echo = await fetch(`${base}/stream`, { method: 'POST', body: text, headers: { 'content-type': 'text/plain' } });
  assert.equal(echo.status, 200);
  assert.equal(await echo.text(), text);
  // And a fixed route answered by the engine alone.
  assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
});

test('npm start serves the WebSocket scenarios: /echo, /fws (fast-ws) and /broadcast', {
  timeout: 20_000,
}, async (t) => {
  const base = (await startDemo(t)).replace('http:', 'ws:');
  const payload = '0'.repeat(1024);
  const echo = await connect(`${base}/echo`);
  echo.send(payload);
  assert.equal((await nextMessage(echo)).data.toString(), payload);
  echo.close();
  const fws = new FastWsClient(`${base}/fws`, { WebSocket: WebSocket as never, reconnect: false });
  await fws.connected;
  assert.equal(await fws.emit('echo', payload, true), payload);
  fws.close();
  const [a, b] = await Promise.all([connect(`${base}/broadcast`), connect(`${base}/broadcast`)]);
  a.send(JSON.stringify({ type: 'echo', payload: { t: 1 } }));
  assert.equal((await nextMessage(a)).data.toString(), '{"type":"echo","payload":{"t":1}}');
  b.send(JSON.stringify({ type: 'broadcast', payload: { t: 2, pad: 'xx' } }));
  const want = '{"type":"broadcastResult","payload":{"t":2,"pad":"xx"}}';
  assert.equal((await nextMessage(a)).data.toString(), want);
  assert.equal((await nextMessage(b)).data.toString(), want);
  a.close();
  b.close();
});

test('the demo stops cleanly on SIGTERM', { timeout: 20_000 }, async (t) => {
  const child = spawn(process.execPath, [join(root, 'examples/demo/server.mjs')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => child.kill('SIGKILL'));
  await once(child.stdout as NodeJS.ReadableStream, 'data');
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

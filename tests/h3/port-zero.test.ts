// listen(0) with HTTP/3 when the UDP port of the number the system picks is taken: the engine asks again a bounded
// number of times, then fails naming the UDP bind and the tries, holding no port and no handle (the child exits).
// In a network namespace of its own (as root), whose ephemeral range is the one port this test holds for UDP.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { test } from 'node:test';
import { testPki } from '../h2/h2.js';
import { ensureCommand } from '../system-tools.js';

const PORT = 40_000;

/** Runs `ip` (iproute2, installed when missing) with `args`. */
function ip(...args: string[]): string {
  return execFileSync(ensureCommand('ip', 'iproute2'), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// In the namespace: hold UDP PORT, listen(0) with HTTP/3 (every pick is PORT, so every try collides), then show
// that the TCP port was let go by listening on it with node:net.
const CHILD = `
const dgram = await import('node:dgram');
const net = await import('node:net');
const udp = dgram.createSocket('udp4');
await new Promise((resolve) => udp.bind(${PORT}, '127.0.0.1', resolve));
const { gale } = await import(process.env.GALE_URL);
const app = gale();
let failure;
try {
  await app.listen({ port: 0, host: '127.0.0.1', tls: { cert: process.env.CERT, key: process.env.KEY }, http3: true });
} catch (err) {
  failure = { message: err.message, code: err.code };
}
const srv = net.createServer();
const tcp = await new Promise((resolve, reject) => {
  srv.once('error', reject);
  srv.listen(0, '127.0.0.1', () => resolve(srv.address().port));
});
srv.close();
udp.close();
await app.close().catch(() => {});
console.log(JSON.stringify({ failure, tcp }));
`;

test('listen(0) with HTTP/3 tries other ports while the picked UDP port is taken, then fails saying so', async (t) => {
  if (process.getuid?.() !== 0) {
    assert.fail('this test makes a network namespace: run it as root (CI does)');
  }
  const ns = `gale-h3-port-${process.pid}`;
  ip('netns', 'add', ns);
  t.after(() => ip('netns', 'delete', ns));
  ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  // Per-namespace: the system has this one port to pick for port 0.
  ip('netns', 'exec', ns, 'sysctl', '-qw', `net.ipv4.ip_local_port_range=${PORT} ${PORT}`);
  const { leaf } = testPki();
  const child = spawn(
    ensureCommand('ip', 'iproute2'),
    ['netns', 'exec', ns, process.execPath, '--input-type=module', '-e', CHILD],
    {
      env: { ...process.env, GALE_URL: import.meta.resolve('gale'), CERT: leaf.cert, KEY: leaf.key },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, `the child failed:\n${err}`);
  const got = JSON.parse(out.trim().split('\n').at(-1) as string) as {
    failure?: { message: string; code: string };
    tcp: number;
  };
  assert.ok(got.failure, 'listen must fail: the only UDP port is taken');
  assert.equal(got.failure.code, 'EADDRINUSE');
  // node:http's code and text, then what the engine found.
  assert.match(got.failure.message, /^listen EADDRINUSE: address already in use 127\.0\.0\.1:0 \(/);
  assert.match(got.failure.message, new RegExp(`http3: binding UDP 127\\.0\\.0\\.1:${PORT} failed`));
  assert.match(got.failure.message, /; tried 5 times, each time the UDP port was taken\)$/);
  assert.equal(got.tcp, PORT, 'the TCP port was let go');
});

// The engine's I/O backend choice (`listen({ io })`, GALE_IO) and its fallback to epoll with one warning where io_uring
// cannot be used: GALE_NO_IO_URING, and a seccomp filter refusing io_uring_setup as containers' profiles do. The rest
// of the suite runs on io_uring too in CI (GALE_IO=uring on Node 26); this file checks the choosing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gale } from 'gale';
import { ensureCommand } from '../system-tools.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');

/** Listens in a child process with `io` (or none) and prints the backend and the warnings and errors it logged. */
const PROBE = `
const { gale } = await import('gale');
const logged = [];
const log = (level) => (...a) => logged.push({ level, msg: a.map(String).join(' ') });
const app = gale({ logger: { info: () => {}, warn: log('warn'), error: log('error') } });
app.get('/', (req, res) => res.send('ok'));
const io = process.argv[1] === '-' ? undefined : process.argv[1];
try {
  const { port } = await app.listen({ port: 0, host: '127.0.0.1', io });
  const body = await (await fetch('http://127.0.0.1:' + port + '/')).text();
  console.log(JSON.stringify({ backend: app.ioBackend, body, logged }));
  await app.close();
} catch (err) {
  console.log(JSON.stringify({ error: String(err) }));
}
`;

interface Probe {
  backend?: string;
  body?: string;
  error?: string;
  logged?: Array<{ level: string; msg: string }>;
}

function probe(io: string, env: Record<string, string | undefined> = {}, wrap: string[] = []): Probe {
  const args = [process.execPath, '--input-type=module', '-e', PROBE, io];
  const [cmd, ...rest] = [...wrap, ...args];
  const r = spawnSync(cmd as string, rest, {
    cwd: root,
    env: { ...process.env, GALE_IO: undefined, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 0, `the probe failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as Probe;
}

test('listen({ io: "uring" }) serves through io_uring on this kernel', { timeout: 30_000 }, () => {
  const p = probe('uring');
  assert.equal(p.body, 'ok');
  assert.equal(
    p.backend,
    'uring',
    `io_uring was not used here: ${JSON.stringify(p.logged)} (the io_uring backend needs Linux 6.0+ with ` +
      'kernel.io_uring_disabled = 0; CI runs the whole suite on it)',
  );
  assert.deepEqual(p.logged, [], 'nothing is logged when io_uring is used');
});

test('listen({ io: "epoll" }) and the default use epoll, without a word', { timeout: 30_000 }, () => {
  for (const io of ['epoll', 'auto', '-']) {
    const p = probe(io);
    assert.equal(p.body, 'ok');
    assert.equal(p.backend, 'epoll', `io ${io}`);
    assert.deepEqual(p.logged, []);
  }
});

test('GALE_IO chooses when listen() does not, and a wrong value is refused', { timeout: 30_000 }, () => {
  assert.equal(probe('-', { GALE_IO: 'uring' }).backend, 'uring');
  assert.equal(probe('epoll', { GALE_IO: 'uring' }).backend, 'epoll', 'the option wins over the variable');
  assert.match(probe('-', { GALE_IO: 'iouring' }).error ?? '', /GALE_IO=iouring: expected auto, uring or epoll/);
});

test('listen({ io }) refuses a backend it does not know', async () => {
  const app = gale();
  await assert.rejects(
    app.listen({ port: 0, io: 'kqueue' as 'epoll' }),
    /option io must be "auto", "uring" or "epoll"; got "kqueue"/,
    'an unknown backend is refused, not ignored',
  );
});

test('GALE_NO_IO_URING: io_uring treated as unavailable, epoll serves, one warning says why', {
  timeout: 30_000,
}, () => {
  const p = probe('uring', { GALE_NO_IO_URING: '1' });
  assert.equal(p.body, 'ok');
  assert.equal(p.backend, 'epoll');
  assert.deepEqual(p.logged, [
    {
      level: 'warn',
      msg: 'gale: io_uring cannot be used: GALE_NO_IO_URING is set, so io_uring is treated as unavailable; listening with epoll',
    },
  ]);
  assert.equal(probe('uring', { GALE_NO_IO_URING: '0' }).backend, 'uring', '0 leaves io_uring on');
});

test('io_uring refused by seccomp: epoll serves, and one warning says why', { timeout: 60_000 }, () => {
  const gcc = ensureCommand('gcc', 'gcc');
  const dir = mkdtempSync(join(tmpdir(), 'gale-no-uring-'));
  try {
    const bin = join(dir, 'no-io-uring');
    const built = spawnSync(gcc, ['-O2', '-o', bin, join(here, 'no-io-uring.c')], { encoding: 'utf8' });
    assert.equal(built.status, 0, `building the seccomp launcher failed: ${built.stderr}`);
    const p = probe('uring', {}, [bin]);
    assert.equal(p.body, 'ok', 'requests are served after the fallback');
    assert.equal(p.backend, 'epoll');
    assert.equal(p.logged?.length, 1, `one line: ${JSON.stringify(p.logged)}`);
    const [line] = p.logged ?? [];
    assert.equal(line?.level, 'warn');
    assert.match(line?.msg ?? '', /io_uring cannot be used.*io_uring_setup was refused.*seccomp.*listening with epoll/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

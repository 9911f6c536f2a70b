// The `gale` command as a user runs it, in child processes over real sockets: `gale start` and `gale dev` on the
// demo (dev restarts when a watched file changes, and a changed handler answers differently after it; --workers runs
// it in gale.cluster() workers), `gale --version` names the engine and the binary loaded, `gale bench` passes a
// healthy route and fails one that answers errors, and bad input gets a message instead of a stack.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gale } from 'gale';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'packages', 'gale', 'dist', 'cli', 'main.js');
const demo = join(root, 'examples', 'demo', 'server.mjs');
const version = JSON.parse(readFileSync(join(root, 'packages', 'gale', 'package.json'), 'utf8')).version as string;
const T = { timeout: 60_000 };

/** A running `gale …` whose output is collected; `next(re)` waits for the next line matching re. */
function gale_(args: string[], t: { after(fn: () => unknown): void }, env: NodeJS.ProcessEnv = {}) {
  const child: ChildProcess = spawn(process.execPath, [cli, ...args], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let seen = 0;
  const waiters: (() => void)[] = [];
  const onData = (c: Buffer) => {
    out += c.toString();
    for (const w of waiters.splice(0)) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  /** Resolves with the first match of re in output not consumed by an earlier next(). */
  const next = (re: RegExp, ms = 20_000): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${re} within ${ms} ms; output:\n${out}`)), ms);
      const check = () => {
        const m = new RegExp(re.source, re.flags.replace('g', '')).exec(out.slice(seen));
        if (m) {
          seen += m.index + m[0].length;
          clearTimeout(timer);
          resolve(m);
        } else waiters.push(check);
      };
      check();
    });
  return { child, next, exited, output: () => out };
}

const sync = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });

test('gale start runs the demo, which serves and stops on SIGTERM', T, async (t) => {
  const g = gale_(['start', demo], t);
  const [, port] = await g.next(/listening on http:\/\/localhost:(\d+)\/json/);
  const res = await fetch(`http://127.0.0.1:${port}/json`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } });
  g.child.kill('SIGTERM');
  assert.equal(await g.exited, 0, g.output());
});

test('gale start --port sets PORT for the app; a missing entry is a message, not a stack', T, async (t) => {
  const free = gale();
  const { port } = await free.listen(0, '127.0.0.1');
  await free.close(); // a port that was free a moment ago
  const g = gale_(['start', demo, '--port', String(port)], t);
  await g.next(new RegExp(`listening on http://localhost:${port}/json`));
  g.child.kill('SIGTERM');
  await g.exited;
  const missing = sync(['start', 'no/such/server.js']);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^gale: entry no\/such\/server\.js not found/);
  const bad = sync(['start', demo, '--port', 'eighty']);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--port eighty: a port is 0 to 65535/);
  const unknown = sync(['start', '--wrokers', '2']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /Unknown option '--wrokers'.*gale --help/);
});

test('gale start --workers 2 runs the demo in two cluster workers on one port, and stops on SIGTERM', T, async (t) => {
  const free = gale();
  const { port } = await free.listen(0, '127.0.0.1');
  await free.close(); // a port that was free a moment ago (with SO_REUSEPORT, port 0 would differ per worker)
  const g = gale_(['start', demo, '--workers', '2', '--port', String(port)], t);
  await g.next(/starting 2 workers/);
  await g.next(new RegExp(`listening on http://localhost:${port}/json`));
  await g.next(new RegExp(`listening on http://localhost:${port}/json`));
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/json`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } });
  }
  g.child.kill('SIGTERM');
  assert.equal(await g.exited, 0, g.output());
  const bad = sync(['start', demo, '--workers', 'many']);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--workers many: give a count \(1, 2, …\) or auto/);
});

test('gale dev restarts the demo when a watched file changes', T, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gale-dev-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'config.json'), '{"v":1}');
  const g = gale_(['dev', demo, '--watch', dir], t);
  await g.next(/gale dev: watching/);
  const [, first] = await g.next(/listening on http:\/\/localhost:(\d+)\/json/);
  assert.equal((await fetch(`http://127.0.0.1:${first}/`)).status, 200);
  writeFileSync(join(dir, 'notes.txt'), 'not code: no restart');
  writeFileSync(join(dir, 'config.json'), '{"v":2}');
  await g.next(/gale dev: .*config\.json changed; restarting/);
  const [, second] = await g.next(/listening on http:\/\/localhost:(\d+)\/json/);
  assert.equal((await fetch(`http://127.0.0.1:${second}/`)).status, 200);
  assert.doesNotMatch(g.output(), /notes\.txt/);
  g.child.kill('SIGTERM');
  assert.equal(await g.exited, 0, g.output());
});

test('gale dev: an edited handler answers with the new code after the restart', T, async (t) => {
  // Inside the repository, so the app resolves `gale` through the workspace.
  const dir = mkdtempSync(join(import.meta.dirname, '.dev-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const source = (greeting: string) => `import { gale } from 'gale';
const app = gale();
app.get('/', () => '${greeting}');
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
const { port } = await app.listen(Number(process.env.PORT), '127.0.0.1');
console.log('up on ' + port);
`;
  writeFileSync(join(dir, 'server.mjs'), source('first'));
  const g = gale_(['dev', join(dir, 'server.mjs')], t);
  const [, p1] = await g.next(/up on (\d+)/);
  assert.equal(await (await fetch(`http://127.0.0.1:${p1}/`)).text(), 'first');
  writeFileSync(join(dir, 'server.mjs'), source('second'));
  const [, p2] = await g.next(/up on (\d+)/);
  assert.equal(await (await fetch(`http://127.0.0.1:${p2}/`)).text(), 'second');
  // A crash is reported and the watcher waits for the fix.
  writeFileSync(join(dir, 'server.mjs'), 'throw new Error("broken on purpose");\n');
  await g.next(/exited \(code 1\); waiting for a change to restart/);
  writeFileSync(join(dir, 'server.mjs'), source('third'));
  const [, p3] = await g.next(/up on (\d+)/);
  assert.equal(await (await fetch(`http://127.0.0.1:${p3}/`)).text(), 'third');
  g.child.kill('SIGTERM');
  assert.equal(await g.exited, 0, g.output());
});

test('gale --version prints the package, the engine and the binary it loaded', T, () => {
  const r = sync(['--version']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^gale ${version.replaceAll('.', '\\.')} \\(`, 'm'));
  assert.match(r.stdout, /^engine \d+\.\d+\.\d+/m);
  assert.match(r.stdout, /^binary built from source: .*packages\/gale\/native\/gale\.[a-z0-9-]+\.node$/m);
  assert.match(r.stdout, new RegExp(`^node ${process.version.replaceAll('.', '\\.')} `, 'm'));
  const missing = sync(['--version'], { GALE_NATIVE: join(root, 'no-such-engine.node') });
  assert.equal(missing.status, 1);
  assert.match(missing.stdout, /^engine: not loaded: /m);
});

test('gale bench: a healthy route passes, an error page fails with a reason', T, async (t) => {
  const app = gale();
  let n = 0;
  app.get('/ok', () => 'ok');
  app.get('/flaky', (_req, res) => {
    n++;
    if (n % 10 === 0) res.status(500).send('boom');
    else res.send('ok');
  });
  const { port } = await app.listen(0, '127.0.0.1');
  t.after(() => app.close());
  const run = (args: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn(process.execPath, [cli, 'bench', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout.on('data', (d) => {
        out += d;
      });
      c.stderr.on('data', (d) => {
        out += d;
      });
      c.on('exit', (code) => resolve({ code, out }));
    });
  const base = `http://127.0.0.1:${port}`;
  const ok = await run([`${base}/ok`, '-d', '1', '-c', '2', '--json', '--expect-body', 'ok']);
  assert.equal(ok.code, 0, ok.out);
  const summary = JSON.parse(ok.out);
  assert.ok(summary.ok && summary.requests > 0 && summary.statuses['200'] === summary.requests, ok.out);
  const flaky = await run([`${base}/flaky`, '-d', '1', '-c', '2']);
  assert.equal(flaky.code, 1, flaky.out);
  assert.match(flaky.out, /FAILED: \d+ answers with another status than 2xx/);
  const missing = await run([`${base}/missing`, '-d', '1']);
  assert.equal(missing.code, 1);
  assert.match(missing.out, /the probe got 404, not a 2xx.*--expect-status 404/);
  const notUrl = await run(['localhost:3000']);
  assert.equal(notUrl.code, 1);
  assert.match(notUrl.out, /only http and https URLs|is not a URL/);
});

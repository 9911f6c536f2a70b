// adapter-gale's env.js with an envPrefix (what the adapter's `envPrefix` option bakes in): prefixed names are read,
// LISTEN_PID/LISTEN_FDS never are prefixed, an unexpected prefixed variable stops the start as in adapter-node, and the
// BODY_SIZE_LIMIT / ORIGIN parsers. Each case in a child process, as the built server reads its environment.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const source = readFileSync(
  join(import.meta.dirname, '..', '..', 'packages', 'adapter-gale', 'files', 'env.js'),
  'utf8',
);

/** env.js with ENV_PREFIX = `prefix`, then `probe` (a module body using its exports); prints what probe prints. */
function run(prefix: string, env: Record<string, string>, probe: string) {
  const dir = mkdtempSync(join(tmpdir(), 'adapter-gale-env-'));
  writeFileSync(join(dir, 'env.mjs'), source.replace('= ENV_PREFIX;', `= ${JSON.stringify(prefix)};`));
  writeFileSync(join(dir, 'probe.mjs'), `import * as e from './env.mjs';\n${probe}\n`);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MY_')));
  try {
    return spawnSync(process.execPath, [join(dir, 'probe.mjs')], { env: { ...clean, ...env }, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('envPrefix: prefixed names are read; LISTEN_* are not prefixed', () => {
  const r = run(
    'MY_',
    { MY_PORT: '4100', PORT: '9999', MY_ORIGIN: 'https://a.example', LISTEN_FDS: '0' },
    `console.log(JSON.stringify([e.env('PORT', '3000'), e.env('HOST', '0.0.0.0'), e.env('ORIGIN', null), e.env('LISTEN_FDS', '?')]));`,
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), ['4100', '0.0.0.0', 'https://a.example', '0']);
});

test('envPrefix: an unexpected variable with the prefix stops the start', () => {
  const r = run('MY_', { MY_PORTT: '1' }, '');
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    /You should change envPrefix \(MY_\) to avoid conflicts with existing environment variables — unexpectedly saw MY_PORTT/,
  );
});

test('BODY_SIZE_LIMIT, timeouts and ORIGIN are parsed as adapter-node parses them', () => {
  const r = run(
    '',
    { SHUTDOWN_TIMEOUT: '7', IDLE_TIMEOUT: '' },
    `console.log(JSON.stringify([
  e.parse_as_bytes('512K'), e.parse_as_bytes('2m'), e.parse_as_bytes('1G'), e.parse_as_bytes('100'),
  e.parse_as_bytes('Infinity'), Number.isNaN(e.parse_as_bytes('lots')),
  e.timeout_env('SHUTDOWN_TIMEOUT', 30), e.timeout_env('IDLE_TIMEOUT', 0),
  e.parse_origin(' https://My.Site:443/path '), e.parse_origin(undefined) ?? null,
]));
try { e.parse_origin('localhost:3000'); } catch (err) { console.log(err.message); }`,
  );
  assert.equal(r.status, 0, r.stderr);
  const [values, message] = r.stdout.trim().split('\n');
  assert.deepEqual(JSON.parse(values as string), [
    524288,
    2097152,
    1073741824,
    100,
    null, // Infinity, as JSON
    true,
    7,
    0,
    'https://my.site',
    null,
  ]);
  assert.match(message as string, /Invalid ORIGIN: 'localhost:3000'/);
});

// `npm run bench:wt` end to end, briefly: the WebTransport load modes of gale-loadgen-h3 and the WebSocket echo run
// against bench/apps/wt-echo.mjs with every echo checked, and the table has a row with figures for each scenario.
// (A check that the bench works, run beside other tests: its figures are not quoted.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

test('bench:wt runs WebTransport stream and datagram echo beside WebSocket echo, every echo checked', () => {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'wt', 'run.ts'), '--trials', '1', '--seconds', '1', '--workers', '8'],
    { encoding: 'utf8', timeout: 300_000 },
  );
  assert.equal(r.status, 0, `bench:wt failed: ${r.stderr}`);
  for (const s of ['ws-echo', 'wt-stream', 'wt-datagram']) {
    const row = r.stdout.split('\n').find((l) => l.startsWith(`| ${s} |`));
    assert.ok(row, `a row for ${s}: ${r.stdout}`);
    const perSec = Number(row.split('|')[2]);
    assert.ok(perSec > 0, `${s} echoed messages: ${row}`);
  }
});

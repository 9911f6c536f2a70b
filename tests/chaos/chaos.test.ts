// The live fuzzer's CI run: 60 s of generated and mutated HTTP and WebSocket traffic against the demo running
// on an engine built with debug assertions (cargo profile `chaos`); any crash, hang, wrong answer or 500 fails.
// The long runs are recorded in RUNS.md (`npm run chaos -- --minutes 30 --record`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildChaosAddon } from './run.js';
import { runChaos } from './runner.js';

const seconds = Number(process.env.GALE_CHAOS_SECONDS ?? 60);

test(`live fuzzer: ${seconds} s against the demo, no crash, hang, wrong answer or 500`, {
  timeout: 900_000,
}, async (t) => {
  const addon = buildChaosAddon();
  t.after(() => addon.remove());
  const seed = Number(process.env.GALE_CHAOS_SEED ?? Date.now() % 1_000_000);
  const r = await runChaos({ durationMs: seconds * 1000, seed, native: addon.path, log: (l) => t.diagnostic(l) });
  t.diagnostic(
    `seed ${seed}: ${r.sessions} sessions (${r.httpSessions} HTTP, ${r.wsSessions} WebSocket, ${r.seedSessions} corpus seeds) ` +
      `in ${r.batches} batches, ${(r.bytesSent / 1e6).toFixed(1)} MB; statuses ${JSON.stringify(r.statuses)}; ` +
      `close codes ${JSON.stringify(r.closeCodes)}; demo RSS ${r.server.rssStartKiB} → ${r.server.rssEndKiB} KiB`,
  );
  assert.deepEqual(
    r.findings.map((f) => `${f.kind} in batch ${f.batch}: ${f.detail.slice(0, 300)}`),
    [],
    `replay with GALE_CHAOS_SEED=${seed}`,
  );
  // The run must have exercised both protocols, or it proves nothing.
  assert.ok((r.statuses['200'] ?? 0) > 100 && (r.statuses['101'] ?? 0) > 100, JSON.stringify(r.statuses));
  assert.ok((r.closeCodes['1002'] ?? 0) > 0, `no protocol error closes: ${JSON.stringify(r.closeCodes)}`);
});

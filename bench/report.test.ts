// `npm run bench -- report <dir>` without running anything: report.md and the SVG charts are made from saved JSON
// (a scenario file with a FAILED server and a not-run one, and a connection sweep).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { IterationResult, Measurement } from './lib/measure.ts';
import { type RunMeta, writeReport } from './lib/report-md.ts';

function iteration(rps: number): IterationResult {
  return {
    requests: rps,
    durationS: 1,
    rps,
    latencyUs: { min: 50, mean: 200, max: 5000, p50: 150, p90: 400, p99: 2500, p999: 4000 },
    errors: { connect: 0, read: 0, write: 0, status: 0, timeout: 0, closed: 0 },
    checked: rps,
    invalid: 0,
    firstInvalid: '',
    toolCpuPct: 50,
    serverCpuS: 0.5,
    serverCpuPct: 50,
    serverCpuUsPerReq: 12.5,
  };
}

function result(server: string, label: string, mode: string, rps: number | null, notRun: string | null = null) {
  const m: Measurement = {
    server,
    label,
    scenario: 'json',
    mode,
    depth: mode === 'plain' ? 1 : 16,
    ok: rps !== null && !notRun,
    failure: rps === null && !notRun ? 'iteration 1: 3 timeout errors' : null,
    notRun,
    validation: null,
    warmup: null,
    iterations: rps === null ? [] : [iteration(rps), iteration(rps * 1.1), iteration(rps * 0.9)],
    startRssKiB: 40000,
    peakRssKiB: 51200,
    serverOpenFileLimit: 20000,
    serverStderr: '',
  };
  return m;
}

const meta: RunMeta = {
  started: '2026-11-21T08:00:00.000Z',
  finished: '2026-11-21T08:05:00.000Z',
  hostname: 'testhost',
  kernel: 'Linux 6 x64',
  cpu: 'Test CPU',
  cores: 2,
  node: 'v20.0.0',
  tool: 'wrk: wrk 4.1.0',
  toolId: 'wrk',
  toolDescribe: 'wrk -t1 -c100',
  toolValidates: 'the exact status and the exact body bytes',
  argv: ['json'],
  options: {
    durationS: 10,
    warmupS: 2,
    iterations: 3,
    connections: 100,
    threads: 1,
    timeoutS: 2,
    modes: [
      { id: 'plain', depth: 1 },
      { id: 'pipelined', depth: 16 },
    ],
    serverCpu: 0,
    loadCpu: 1,
    nofile: 65535,
  },
};

test('report <dir>: report.md with one table per scenario and the sweep, and SVG charts, from saved JSON', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gale-report-test-'));
  try {
    const scenario = { id: 'json', description: 'GET /json → a small nested JSON object', kind: 'dynamic' };
    writeFileSync(
      join(dir, 'json.json'),
      JSON.stringify({
        ...meta,
        scenario,
        results: [
          result('node-http', 'node:http', 'plain', 40000),
          result('node-http', 'node:http', 'pipelined', 50000),
          result('express', 'Express 5', 'plain', 10000),
          result('express', 'Express 5', 'pipelined', null),
          result('gale', 'Gale', 'plain', 120000),
          result('gale', 'Gale', 'pipelined', 600000),
          result('nginx', 'nginx', 'plain', null, 'nginx serves only the static scenarios'),
          result('nginx', 'nginx', 'pipelined', null, 'nginx serves only the static scenarios'),
        ],
      }),
    );
    writeFileSync(
      join(dir, 'sweep-json.json'),
      JSON.stringify({
        ...meta,
        tool: 'loadgen: gale-loadgen 0.1.0',
        toolId: 'loadgen',
        toolDescribe: 'loadgen',
        scenario,
        sweep: { scenario: 'json', mode: 'plain', connections: [100, 1000] },
        points: [
          { connections: 100, result: result('gale', 'Gale', 'plain', 120000) },
          { connections: 100, result: result('express', 'Express 5', 'plain', 10000) },
          { connections: 1000, result: result('gale', 'Gale', 'plain', 110000) },
          { connections: 1000, result: result('express', 'Express 5', 'plain', null) },
        ],
      }),
    );
    const { report, charts } = await writeReport(dir);
    const md = readFileSync(report, 'utf8');
    assert.match(md, /^### json: GET \/json/m);
    assert.match(md, /\| server \| plain req\/s \| vs Express \| vs node:http \| pipelined ×16 req\/s \|/);
    // Gale: 120 000 / Express 10 000 = 12×, / node:http 40 000 = 3×; pipelined: Express FAILED → no ratio.
    assert.match(
      md,
      /\| \*\*Gale\*\* \| 120,000 \| 12\.00× \| 3\.00× \| 600,000 \| — \| 12\.00× \| 2\.50 ms \| 12\.5 \|/,
    );
    assert.match(md, /\| Express 5 \| 10,000 \| 1\.00× \| 0\.25× \| \*\*FAILED\*\* \| — \| — \|/);
    assert.match(md, /\| nginx \| — \| — \| — \| — \| — \| — \|/);
    assert.match(md, /Express 5 pipelined ×16 FAILED\*\*: iteration 1: 3 timeout errors/);
    assert.match(md, /## Connection sweep: json \(gale-loadgen, plain mode\)/);
    assert.match(md, /\| \*\*Gale\*\* \| 120,000 \| 110,000 \|/);
    assert.match(md, /\| Express 5 \| 10,000 \| \*\*FAILED\*\* \|/);
    assert.match(md, /Express 5 at 1,000 connections FAILED/);
    assert.match(md, /npm run bench -- json/);
    assert.deepEqual(
      charts.map((c) => c.slice(dir.length + 1)),
      ['charts/json.svg', 'charts/sweep-json.svg'],
    );
    for (const c of charts) {
      assert.ok(existsSync(c));
      assert.match(readFileSync(c, 'utf8'), /^<svg[^>]*>/);
      assert.ok(md.includes(`](${c.slice(dir.length + 1)})`), `${c} is linked from report.md`);
    }
    assert.match(readFileSync(join(dir, 'charts', 'json.svg'), 'utf8'), /FAILED/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// `npm run bench -- report <dir>` without running anything: report.md and the SVG charts are made from saved JSON
// (a scenario file with a FAILED server and a not-run one, and a connection sweep; two runs of one scenario, the second
// on another Node, merged into one table).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { IterationResult, Measurement } from './lib/measure.ts';
import { type RunMeta, writeReport } from './lib/report-md.ts';

function iteration(rps: number, cpuUs = 12.5): IterationResult {
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
    serverCpuUsPerReq: cpuUs,
  };
}

function result(
  server: string,
  label: string,
  mode: string,
  rps: number | null,
  notRun: string | null = null,
  cpuUs = 12.5,
) {
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
    iterations: rps === null ? [] : [iteration(rps, cpuUs), iteration(rps * 1.1, cpuUs), iteration(rps * 0.9, cpuUs)],
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
          result('gale', 'Gale', 'plain', 120000, null, 6.954),
          result('gale', 'Gale', 'pipelined', 600000, null, 1.305),
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
    assert.match(
      md,
      /\| server \| plain req\/s \| vs Express \| vs node:http \| ÷ limit \| CPU µs\/req \(plain\) \| pipelined ×16 req\/s \| vs Express \| vs node:http \| ÷ limit \| CPU µs\/req \(pipelined ×16\) \| p99 \(plain\) \|/,
    );
    // Gale: 120 000 / Express 10 000 = 12×, / node:http 40 000 = 3×; pipelined: Express FAILED → no ratio. Server
    // CPU per request in every mode, two decimals.
    assert.match(
      md,
      /\| \*\*Gale\*\* \| 120,000 \| 12\.00× \| 3\.00× \| — \| 6\.95 \| 600,000 \| — \| 12\.00× \| — \| 1\.30 \| 2\.50 ms \|/,
    );
    assert.match(
      md,
      /\| Express 5 \| 10,000 \| 1\.00× \| 0\.25× \| — \| 12\.50 \| \*\*FAILED\*\* \| — \| — \| — \| — \|/,
    );
    assert.match(md, /\| nginx \| — \| — \| — \| — \| — \| — \| — \| — \| — \|/);
    assert.match(md, /\| Gale \| plain \| 120,000 \| .* \| 6\.95 \| 50\.0 \|/, 'the full table has two decimals too');
    assert.match(md, /Express 5 pipelined ×16 FAILED\*\*: iteration 1: 3 timeout errors/);
    assert.match(md, /## Connection sweep: json \(gale-loadgen, plain mode\)/);
    assert.match(md, /\| \*\*Gale\*\* \| 120,000 \| 110,000 \|/);
    assert.match(md, /\| Express 5 \| 10,000 \| \*\*FAILED\*\* \|/);
    assert.match(md, /Express 5 at 1,000 connections FAILED/);
    assert.match(
      md,
      /\| server CPU µs\/req \\ connections \| 100 \| 1,000 \|\n\|---\|---:\|---:\|\n\| \*\*Gale\*\* \| 12\.50 \| 12\.50 \|/,
    );
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

test("report <dir>: a second run on another Node (json.node26.json) joins the first run's table", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gale-report-merge-'));
  try {
    const scenario = { id: 'json', description: 'GET /json → a small nested JSON object', kind: 'dynamic' };
    const own = { version: 'v20.0.0', path: '/usr/bin/node', own: true };
    writeFileSync(
      join(dir, 'json.json'),
      JSON.stringify({
        ...meta,
        serverNodes: [own],
        scenario,
        results: [
          result('gale', 'Gale', 'plain', 120000, null, 7),
          result('node-http', 'node:http', 'plain', 40000),
          result('bun', 'Bun.serve', 'plain', 60000),
        ],
      }),
    );
    writeFileSync(
      join(dir, 'json.node26.json'),
      JSON.stringify({
        ...meta,
        started: '2026-11-21T09:00:00.000Z',
        argv: ['json', '--node', '26'],
        serverNodes: [{ version: 'v26.1.0', path: '/x/node', own: false }],
        scenario,
        results: [
          result('gale-node26', 'Gale (Node 26)', 'plain', 130000, null, 6.5),
          result('node-http-node26', 'node:http (Node 26)', 'plain', 52000),
          result('bun', 'Bun.serve', 'plain', 61000),
        ],
      }),
    );
    const md = readFileSync((await writeReport(dir)).report, 'utf8');
    assert.equal(md.match(/^### json:/gm)?.length, 1, 'one table for both runs');
    const rows = md
      .slice(md.indexOf('### json:'), md.indexOf('![json'))
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| server'));
    // Each Node variant right after its plain row; the later run's Bun row replaces the earlier one.
    assert.deepEqual(
      rows.map((l) => l.split(' | ')[0]),
      ['| **Gale**', '| **Gale (Node 26)**', '| node:http', '| node:http (Node 26)', '| Bun.serve'],
    );
    // Gale on 26 is compared with node:http on 26 (130 000 / 52 000), Gale on 20 with node:http on 20.
    assert.match(md, /\| \*\*Gale \(Node 26\)\*\* \| 130,000 \| — \| 2\.50× \| — \| 6\.50 \|/);
    assert.match(md, /\| \*\*Gale\*\* \| 120,000 \| — \| 3\.00× \| — \| 7\.00 \|/);
    assert.match(md, /\| Bun\.serve \| 61,000 \|/);
    assert.match(md, /Node-based servers also ran on Node v26\.1\.0/);
    assert.match(md, /npm run bench -- json\nnpm run bench -- json --node 26\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

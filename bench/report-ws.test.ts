// `npm run bench -- report <dir>` with WebSocket results: report.md gets one section per WebSocket scenario (servers as
// rows, ratios to Express + express-ws and to ws on node:http, FAILED and "not implemented yet" rows) and an SVG chart
// per scenario, from saved ws/<scenario>.json files alone.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeReport } from './lib/report-md.ts';
import type { WsIteration, WsMeasurement, WsScenarioId } from './lib/ws.ts';

const lat = { min: 100, mean: 900, median: 800, p95: 2000, p99: 3000, max: 5000, stddev: 300 };

function iteration(scenario: WsScenarioId, figure: number): WsIteration {
  const idle = scenario === 'ws-idle';
  return {
    json: {
      mode: idle ? 'idle' : scenario === 'ws-broadcast' ? 'broadcast' : 'echo',
      duration_s: 2,
      connects: 200,
      connects_per_s: 100,
      echoes: idle ? 0 : figure * 2,
      echoes_per_s: idle ? 0 : figure,
      valid: 1000,
      invalid: 0,
      first_invalid: null,
      errors: { connect: 0, read: 0, write: 0, timeout: 0, closed: 0 },
      first_error: null,
      connect_us: lat,
      echo_us: idle ? null : lat,
      detail: idle
        ? { opened: 1000, open_s: 1, pong_us: lat }
        : { clients_held: figure, held_rtt_us: { min: 1000, median: 2000, mean: 2000, p95: 3000, max: 4000 } },
    },
    failure: null,
    toolCpuPct: 50,
    serverCpuS: 1,
    ...(idle
      ? { idle: { baselineRssKiB: 50000, openRssKiB: 50000 + figure * 1000, opened: 1000, perConnectionKiB: figure } }
      : {}),
  };
}

function result(
  scenario: WsScenarioId,
  server: string,
  label: string,
  figures: number[] | string | null,
): WsMeasurement {
  const its = Array.isArray(figures) ? figures.map((f) => iteration(scenario, f)) : [];
  return {
    scenario,
    server,
    label,
    ok: Array.isArray(figures),
    failure: typeof figures === 'string' ? figures : null,
    notImplemented: figures === null ? 'Gale has no WebSocket support yet' : null,
    iterations: its,
    median: its[1] ?? its[0] ?? null,
    peakRssMiB: 80,
    args: [],
  };
}

const meta = {
  started: '2026-11-21T08:00:00.000Z',
  hostname: 'testhost',
  kernel: 'Linux 6 x64',
  cpu: 'Test CPU',
  cores: 2,
  node: 'v20.0.0',
  tool: 'wrk: wrk 4.1.0',
  argv: ['ws-echo', 'ws-idle'],
  options: { durationS: 2, iterations: 3 },
  wsOptions: { connections: 100, durationS: 2, iterations: 3, serverCpu: 0, loadCpu: 1 },
  wsVersions: { ws: '8.23.0' },
};

test('report <dir>: WebSocket sections and charts from saved ws/*.json', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gale-report-ws-test-'));
  try {
    mkdirSync(join(dir, 'ws'));
    const save = (scenario: WsScenarioId, results: WsMeasurement[]) =>
      writeFileSync(
        join(dir, 'ws', `${scenario}.json`),
        JSON.stringify({ ...meta, scenario, description: `the ${scenario} scenario`, results }),
      );
    save('ws-echo', [
      result('ws-echo', 'node-http', 'ws on node:http', [40000, 50000, 45000]),
      result('ws-echo', 'express', 'Express 5 + express-ws', [20000, 25000, 22000]),
      result('ws-echo', 'fastify', 'Fastify 5 + @fastify/websocket', 'iteration 1: 3 invalid message(s); first: …'),
      result('ws-echo', 'gale', 'Gale', null),
    ]);
    save('ws-idle', [
      result('ws-idle', 'node-http', 'ws on node:http', [10, 12, 11]),
      result('ws-idle', 'express', 'Express 5 + express-ws', [20, 22, 24]),
    ]);
    const { report, charts } = await writeReport(dir);
    const md = readFileSync(report, 'utf8');
    assert.match(md, /^## WebSocket scenarios/m);
    assert.match(md, /^### ws-echo: the ws-echo scenario/m);
    assert.match(md, /gale-loadgen-ws, 3 iterations: 100 connections × 100 messages, 2 s/);
    // Medians: node:http 45 000, Express 22 000 → node:http is 2.05× Express.
    assert.match(md, /\| ws on node:http \| 45,000 \| 2\.05× \| 1\.00× \| 40,000–50,000 \|/);
    assert.match(md, /\| Express 5 \+ express-ws \| 22,000 \| 1\.00× \| 0\.49× \|/);
    assert.match(md, /\| Fastify 5 \+ @fastify\/websocket \| \*\*FAILED\*\* \|/);
    assert.match(md, /\*\*Fastify 5 \+ @fastify\/websocket: FAILED\*\*: iteration 1: 3 invalid message/);
    assert.match(md, /\| \*\*Gale\*\* \| — not implemented yet \|/);
    // ws-idle: KiB per connection, lower is better; Express 22 vs node:http 11 → 2.00×.
    assert.match(
      md,
      /\| Express 5 \+ express-ws \| 22\.0 \| 1\.00× \| 2\.00× \| 20\.0–24\.0 \| 48\.8 \| 70\.3 \| 1,000 \|/,
    );
    assert.deepEqual(
      charts.map((c) => c.slice(dir.length + 1)),
      ['charts/ws-echo.svg', 'charts/ws-idle.svg'],
    );
    for (const c of charts) {
      assert.ok(existsSync(c));
      assert.ok(md.includes(`](${c.slice(dir.length + 1)})`), `${c} is linked from report.md`);
    }
    const echoSvg = readFileSync(join(dir, 'charts', 'ws-echo.svg'), 'utf8');
    assert.match(echoSvg, /^<svg[^>]*>/);
    assert.match(echoSvg, /FAILED/);
    assert.match(echoSvg, /not implemented yet/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

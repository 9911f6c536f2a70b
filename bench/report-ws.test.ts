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

function iteration(scenario: WsScenarioId, figure: number, steady = true): WsIteration {
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
    // Files saved before the second wave existed lack the private (RssAnon) figures too; here they are 3/4 of RSS.
    ...(idle
      ? {
          idle: {
            baselineRssKiB: 50000,
            openRssKiB: 50000 + figure * 1000,
            opened: 1000,
            perConnectionKiB: figure,
            ...(steady
              ? { baselineAnonKiB: 20000, openAnonKiB: 20000 + figure * 750, perConnectionAnonKiB: figure * 0.75 }
              : {}),
          },
        }
      : {}),
    // ws-idle's second wave on the same server: half the fresh figure here.
    ...(idle && steady
      ? {
          steady: {
            baselineRssKiB: 60000,
            openRssKiB: 60000 + figure * 500,
            opened: 1000,
            perConnectionKiB: figure / 2,
            baselineAnonKiB: 30000,
            openAnonKiB: 30000 + figure * 250,
            perConnectionAnonKiB: figure / 4,
          },
        }
      : {}),
  };
}

function result(
  scenario: WsScenarioId,
  server: string,
  label: string,
  figures: number[] | string | null,
  steady = true,
): WsMeasurement {
  const its = Array.isArray(figures) ? figures.map((f) => iteration(scenario, f, steady)) : [];
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
      // Saved before the second wave existed: no steady figure.
      result('ws-idle', 'node-http', 'ws on node:http', [10, 12, 11], false),
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
    // ws-idle: fresh KiB per connection, lower is better; Express 22 vs node:http 11 → 2.00×; then the steady
    // state's median and min–max (the second waves: 10, 11, 12), the private medians of both waves (3/4 of 22, 1/4
    // of 22), and the fresh wave's RSS before and with all open.
    assert.match(
      md,
      /\| Express 5 \+ express-ws \| 22\.00 \| 1\.00× \| 2\.00× \| 20\.00–24\.00 \| 11\.00 \| 10\.00–12\.00 \| 16\.50 \/ 5\.50 \| 48\.8 \| 70\.3 \| 1,000 \|/,
    );
    assert.match(
      md,
      /\| ws on node:http \| 11\.00 \| 0\.50× \| 1\.00× \| 10\.00–12\.00 \| — \| — \| — \/ — \| 48\.8 \|/,
    );
    assert.match(md, /\*\*private\*\*: the same waves measured with `RssAnon`/);
    assert.match(md, /\*\*fresh\*\*: the first wave on a new server process/);
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

/** A Socket.IO iteration: `cpuUs` of server CPU per acked echo or per delivery (100 000 of them over 2 s). */
function sioIteration(scenario: 'sio-echo' | 'sio-broadcast', cpuUs: number, clientPct: number): WsIteration {
  const events = 100_000;
  const cpuS = (cpuUs * events) / 1e6;
  const broadcast = scenario === 'sio-broadcast';
  return {
    json: {
      mode: scenario,
      duration_s: 2,
      connects: broadcast ? 1000 : 200,
      connects_per_s: 100,
      echoes: broadcast ? 0 : events,
      echoes_per_s: broadcast ? 0 : events / 2,
      valid: broadcast ? events + 100 : events,
      invalid: 0,
      first_invalid: null,
      errors: { connect: 0, read: 0, write: 0, timeout: 0, closed: 0 },
      first_error: null,
      connect_us: lat,
      echo_us: broadcast ? null : lat,
      detail: broadcast
        ? {
            clients: 1000,
            in_flight: 16,
            deliveries: events,
            acks: 100,
            deliveries_per_s: events / 2,
            broadcasts_per_s: 50,
            rtt_us: lat,
            server_cpu_s: cpuS,
            client_cpu_pct: clientPct,
          }
        : { concurrent: 4 },
    },
    failure: null,
    toolCpuPct: clientPct,
    // sio-broadcast: the whole run's server CPU includes the connects; the table must use the phase's.
    serverCpuS: broadcast ? cpuS + 5 : cpuS,
  };
}

test('report <dir>: sio-echo and sio-broadcast lead with server CPU per event, ratio to Socket.IO 4', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gale-report-sio-test-'));
  try {
    mkdirSync(join(dir, 'ws'));
    const row = (scenario: 'sio-echo' | 'sio-broadcast', server: string, label: string, cpu: number[], pct = 40) => {
      const its = cpu.map((c) => sioIteration(scenario, c, pct));
      return { ...result(scenario, server, label, []), iterations: its, median: its[1] ?? null, args: ['--mode'] };
    };
    const save = (scenario: WsScenarioId, results: WsMeasurement[]) =>
      writeFileSync(
        join(dir, 'ws', `${scenario}.json`),
        JSON.stringify({ ...meta, scenario, description: `the ${scenario} scenario`, results }),
      );
    save('sio-echo', [
      row('sio-echo', 'gale', 'Gale', [9, 10, 11]),
      row('sio-echo', 'socketio', 'Socket.IO 4 on node:http', [38, 40, 42]),
    ]);
    save('sio-broadcast', [
      row('sio-broadcast', 'gale', 'Gale', [0.9, 1, 1.1], 95),
      row('sio-broadcast', 'socketio', 'Socket.IO 4 on node:http', [9, 10, 11]),
    ]);
    const { report } = await writeReport(dir);
    const md = readFileSync(report, 'utf8');
    assert.match(
      md,
      /gale-loadgen-ws --mode sio-echo, 3 iterations: 100 connections × 100 messages, 4 in flight per socket/,
    );
    assert.match(
      md,
      /gale-loadgen-ws --mode sio-broadcast, 3 iterations: 1000 clients in one room, 16 broadcasts in flight/,
    );
    // Median CPU µs per ack 10 vs 40 → 0.25× Socket.IO's; 50 000 acks/s; the server used 50 % of its core.
    assert.match(md, /\| \*\*Gale\*\* \| 10\.00 \| 0\.25× \| 9\.00–11\.00 \| 50,000 \| 50% \| 40% \|/);
    assert.match(md, /\| Socket\.IO 4 on node:http \| 40\.00 \| 1\.00× \| 38\.00–42\.00 \| 50,000 \| 200% \|/);
    // sio-broadcast: the broadcast phase's server CPU (not the whole run's) per delivery; ‡ for a client at 95 %.
    assert.match(md, /\| \*\*Gale\*\* \| 1\.00 \| 0\.10× \| 0\.90–1\.10 \| 50,000 ‡ \| 5% \| 95% \|/);
    assert.match(md, /server CPU µs per delivery \(median\)/);
    assert.doesNotMatch(md, /socket\.io-client\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

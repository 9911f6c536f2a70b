// `npm test`: the WebSocket part of the harness. gale-loadgen-ws must report deliberately wrong WebSocket and
// Socket.IO servers (bench/fixtures/ws-wrong-server.mjs, sio-wrong-server.mjs) as FAILED, with the reason and no
// figure, and let correct ones pass (the Socket.IO ones with socket.io-client too, which --sio-client keeps).
// Needs cargo (gale-loadgen-ws is built on first use) and taskset.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureCommand } from '../tests/system-tools.ts';
import { commandExists } from './lib/proc.ts';
import { benchDir } from './lib/servers.ts';
import {
  isSio,
  type WsOptions,
  type WsScenarioId,
  type WsServer,
  wsBinary,
  wsMeasure,
  wsServers,
  wsServes,
} from './lib/ws.ts';
import { wsFigure, wsTable } from './lib/ws-table.ts';

const opts: WsOptions = {
  scenarios: ['ws-echo', 'fastws-echo', 'sio-echo', 'sio-broadcast', 'ws-broadcast', 'ws-idle'],
  serverNames: [],
  quick: true,
  durationS: 1,
  iterations: 1,
  connections: 4,
  timeoutS: 1,
  serverCpu: 0,
  loadCpu: 1,
  nofile: 4096,
  messages: 100,
  step: 3,
  maxClients: 6,
  samples: 3,
  idleConnections: 50,
  holdS: 1,
};

const wrong = (defect: string, scenario?: WsScenarioId): WsServer =>
  scenario === 'sio-echo' || scenario === 'sio-broadcast'
    ? {
        name: `wrong-${defect}`,
        label: `wrong (${defect})`,
        entry: join(benchDir, 'fixtures', 'sio-wrong-server.mjs'),
        env: { SIO_WRONG: defect },
        serves: ['sio-echo', 'sio-broadcast'],
      }
    : {
        name: `wrong-${defect}`,
        label: `wrong (${defect})`,
        entry: join(benchDir, 'fixtures', 'ws-wrong-server.mjs'),
        env: { WS_WRONG: defect, WS_FIRST_WAVE: String(opts.idleConnections) },
      };

/** taskset pins server and client to their cores; cargo builds gale-loadgen-ws. Missing either fails the test. */
function ensureTools(): void {
  ensureCommand('taskset', 'util-linux');
  if (!commandExists('cargo'))
    throw new Error('cargo is needed to build gale-loadgen-ws: install Rust (https://rustup.rs)');
}

const cases: [string, WsScenarioId, RegExp][] = [
  ['echo-late', 'ws-echo', /invalid message.*first difference at byte 1023/],
  ['broadcast-payload', 'ws-broadcast', /invalid message|did not get it/],
  ['broadcast-skip', 'ws-broadcast', /broadcast 0 at \d+ clients: \d+ deliveries missing after --timeout/],
  ['echo-json', 'ws-broadcast', /no echo within --timeout|unexpected message/],
  ['idle-close', 'ws-idle', /errors: \d+ (closed|read).*connection \d+: (closed by the server while idle|read: )/],
  // Right for the first wave, wrong for the second: the steady-state wave is checked as strictly.
  [
    'idle-close-later',
    'ws-idle',
    /second wave: errors: \d+ (closed|read).*connection \d+: (closed by the server while idle|read: )/,
  ],
  // The payload's last '0' became '1': byte 1025 of the ack's arguments ["000…"].
  [
    'ack-late',
    'sio-echo',
    /invalid message.*ack \d+: expected the 1028-byte arguments \["000…"\] \(the event's payload\), got 1028 bytes: \["0+ \(first difference at byte 1025\)/,
  ],
  ['no-ack', 'sio-echo', /errors: \d+ timeout.*no ack within --timeout \(event 0\)/],
  ['ack-drop', 'sio-echo', /errors: 1 timeout.*no ack within --timeout \(event \d+\)/],
  [
    'broadcast-skip',
    'sio-broadcast',
    /broadcast \d+ \(sent by client \d+\) at \d+ clients: 1 delivery missing after --timeout \(client \d+/,
  ],
  [
    'broadcast-payload',
    'sio-broadcast',
    /invalid message.*broadcast (\d+): client \d+ got \{"id":\1,"ts":\d+,"pad":"0+.*, not the payload sent \(\{"id":\1,/,
  ],
  [
    'broadcast-no-ack',
    'sio-broadcast',
    /errors: 1 timeout.*broadcast \d+ \(sent by client \d+\): no ack within --timeout/,
  ],
  ['fastws-greeting', 'fastws-echo', /server version mismatch: the first frame must be the 2-byte text \\x00\\x02/],
  // The 21st event has reply id 20 and is answered with 19.
  [
    'fastws-reply',
    'fastws-echo',
    /invalid message.*1033-byte text message sent, got text, 1033 bytes: \\x0619\\x01\[.*byte 1\)/,
  ],
];

test('gale-loadgen-ws: wrong WebSocket servers are FAILED, correct ones pass', async (t) => {
  ensureTools();
  const bin = wsBinary();
  if ('failure' in bin) throw new Error(bin.failure);
  for (const [defect, scenario, why] of cases) {
    await t.test(`${defect} on ${scenario} is FAILED`, async () => {
      const m = await wsMeasure(opts, wrong(defect, scenario), scenario, bin.path);
      assert.equal(m.ok, false, `expected FAILED, got ${JSON.stringify(m.median?.json)}`);
      assert.match(m.failure ?? '', why);
      const table = wsTable(scenario, [m]);
      assert.match(table, /\*\*FAILED\*\*/);
      t.diagnostic(m.failure ?? '');
    });
  }
  for (const scenario of opts.scenarios) {
    await t.test(`a correct server passes ${scenario}; Gale is "not implemented yet" or passes`, async () => {
      const m = await wsMeasure(opts, wrong('ok', scenario), scenario, bin.path);
      assert.equal(m.ok, true, m.failure ?? '');
      const j = m.median?.json;
      assert.ok(j && j.valid > 0 && j.invalid === 0);
      if (scenario === 'ws-idle') {
        assert.equal(j.detail.opened, 50);
        assert.equal(j.valid, 50, 'every idle connection answered its ping');
        assert.ok((m.median?.idle?.perConnectionKiB ?? Number.NaN) > -1000, 'RSS per connection was measured');
        // The second wave on the same server: every connection upgraded and answered again, its memory measured.
        assert.equal(m.median?.steady?.opened, 50, 'the second wave opened every connection');
        assert.ok((m.median?.steady?.perConnectionKiB ?? Number.NaN) > -1000, 'the steady state was measured');
      }
      if (isSio(scenario)) {
        assert.match(m.args.join(' '), new RegExp(`^--mode ${scenario} `), 'gale-loadgen-ws is the default client');
        assert.notEqual(wsFigure(scenario, m.median), null, 'server CPU per event was measured');
      }
      const gale = wsServers.find((s) => s.name === 'gale');
      assert.ok(gale);
      // Gale serves every scenario (sio-echo with @gale-http/socket.io) and must pass like any server.
      const g = wsServes(gale, scenario) ? await wsMeasure(opts, gale, scenario, bin.path) : null;
      const table = wsTable(scenario, g ? [m, g] : [m]);
      if (g?.notImplemented) assert.match(table, /\| \*\*Gale\*\* \| — not implemented yet \|/);
      else if (g) assert.equal(g.ok, true, `Gale on ${scenario}: ${g.failure}`);
      assert.doesNotMatch(table, /FAILED/);
    });
  }
  await t.test(
    'ws-echo-h2: Gale passes over HTTP/2 streams; a server without RFC 8441 is FAILED, saying why',
    async () => {
      const gale = wsServers.find((s) => s.name === 'gale');
      assert.ok(gale && wsServes(gale, 'ws-echo-h2'));
      const g = await wsMeasure(opts, gale, 'ws-echo-h2', bin.path);
      assert.equal(g.ok, true, g.failure ?? '');
      assert.match(g.args.join(' '), /--over h2c/);
      const j = g.median?.json;
      assert.ok(j && j.valid > 0 && j.invalid === 0);
      assert.equal(wsServes(wrong('ok', 'ws-echo'), 'ws-echo-h2'), false, 'only servers that say so have a row');
      // The `ws` fixture speaks HTTP/1.1 only: the generator's HTTP/2 handshake fails, or gets no answer within
      // --timeout (seen on Node 26), and the run is FAILED saying which.
      const m = await wsMeasure(opts, wrong('ok', 'ws-echo'), 'ws-echo-h2', bin.path);
      assert.equal(m.ok, false);
      assert.match(m.failure ?? '', /HTTP\/2|ENABLE_CONNECT_PROTOCOL|connect \+ handshake timed out/);
    },
  );
  await t.test('--sio-client socket.io-client still drives sio-echo and sio-broadcast', async () => {
    for (const scenario of ['sio-echo', 'sio-broadcast'] as const) {
      const o: WsOptions = { ...opts, sioClient: 'socket.io-client' };
      const m = await wsMeasure(o, wrong('ok', scenario), scenario, bin.path);
      assert.equal(m.ok, true, m.failure ?? '');
      assert.match(m.args[0] ?? '', /sio-[a-z-]*client\.mjs$/);
      assert.match(wsTable(scenario, [m]), /\(socket\.io-client\)/);
    }
  });
});

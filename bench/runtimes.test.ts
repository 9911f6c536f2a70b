// `npm test`: the harness's other runtimes. Bun.serve and Deno.serve (pinned npm binaries, installed into .cache/ on
// first use) pass their scenarios and a deliberately wrong fetch server on either is FAILED; a missing or broken
// runtime is a FAILED row with the reason; `--node` runs the Node apps on another binary as rows of their own.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureCommand } from '../tests/system-tools.ts';
import { parseOptions } from './lib/cli.ts';
import {
  BUN,
  DENO,
  type NodeRuntime,
  ownNode,
  resolveNodes,
  runtimeBinary,
  runtimeUnavailable,
} from './lib/runtimes.ts';
import { findScenario } from './lib/scenarios.ts';
import {
  benchDir,
  bunServer,
  denoServer,
  findServer,
  knownFailure,
  launchServer,
  onNodes,
  runtimeLaunch,
  type ServerDef,
} from './lib/servers.ts';
import { type WsOptions, wsBinary, wsMeasure, wsServers } from './lib/ws.ts';
import { quickMeasure } from './selftest.ts';

const wrongFetch = (runtime: 'bun' | 'deno', defect: string): ServerDef => ({
  name: `wrong-${runtime}-${defect}`,
  label: `wrong ${runtime} (${defect})`,
  launch: runtimeLaunch(runtime, join(benchDir, 'fixtures', 'wrong-fetch-server.mjs'), {
    WRONG_MODE: defect,
    LATE_OK: '2000',
  }),
  kinds: ['dynamic'],
  unavailable: () => runtimeUnavailable(runtime === 'bun' ? BUN : DENO),
});

test('Bun.serve and Deno.serve: their apps pass, wrong ones are FAILED, a missing runtime is FAILED', async (t) => {
  ensureCommand('wrk', 'wrk');
  ensureCommand('taskset', 'util-linux');
  for (const rt of [BUN, DENO]) {
    const bin = runtimeBinary(rt);
    assert.ok('path' in bin, `${rt.name} could not be installed: ${'failure' in bin ? bin.failure : ''}`);
    assert.equal(bin.version, rt.version, `${rt.name} runs the pinned version`);
  }
  const middleware = findScenario('middleware');
  const params = findScenario('params');
  for (const server of [bunServer, denoServer]) {
    for (const scenario of [middleware, params]) {
      await t.test(`${server.label} passes ${scenario?.id}, plain and pipelined`, async () => {
        for (const mode of [
          { id: 'plain', depth: 1 },
          { id: 'pipelined', depth: 16 },
        ]) {
          const m = await quickMeasure(server, mode, undefined, scenario);
          assert.equal(m.ok, true, `${server.name} ${scenario?.id} ${mode.id}: ${m.failure}`);
          assert.equal(m.iterations[0]?.checked, m.iterations[0]?.requests);
        }
      });
    }
  }
  const cases: ['bun' | 'deno', string, RegExp][] = [
    ['bun', 'late', /responses invalid \(first: status 200, 17-byte body: \{"hello":"w0rld"\}\)/],
    ['deno', 'late', /responses invalid \(first: status 200, 17-byte body: \{"hello":"w0rld"\}\)/],
    ['bun', 'ctype', /Content-Type "text\/html"/],
  ];
  for (const [runtime, defect, why] of cases) {
    await t.test(`a wrong ${runtime} server (${defect}) is FAILED`, async () => {
      const m = await quickMeasure(wrongFetch(runtime, defect));
      assert.equal(m.ok, false, `${runtime} ${defect}: must be FAILED`);
      assert.match(m.failure ?? '', why);
    });
  }
  await t.test('a missing or broken runtime binary is a FAILED row with the reason', async () => {
    process.env.GALE_TEST_NO_BUN = join(benchDir, 'no-such-bun');
    process.env.GALE_TEST_FALSE_BUN = '/bin/false';
    const missing = { ...BUN, name: 'Bun (missing)', envVar: 'GALE_TEST_NO_BUN' };
    const broken = { ...BUN, name: 'Bun (broken)', envVar: 'GALE_TEST_FALSE_BUN' };
    for (const [rt, why] of [
      [missing, /Bun \(missing\) is not available: GALE_TEST_NO_BUN=.*no-such-bun does not exist/],
      [broken, /Bun \(broken\) is not available: \/bin\/false --version failed/],
    ] as const) {
      const m = await quickMeasure({ ...bunServer, name: rt.name, unavailable: () => runtimeUnavailable(rt) });
      assert.equal(m.ok, false);
      assert.match(m.failure ?? '', why);
    }
  });
});

// Bun.serve's known failure is still Bun's: if a Bun release fixes it, this fails, and the knownFailures entry (which
// keeps `--quick` from counting it against the harness) must go.
test("Bun.serve's known failure (async-io, pipelined) still fails, and only there", async () => {
  ensureCommand('wrk', 'wrk');
  ensureCommand('taskset', 'util-linux');
  const asyncIo = findScenario('async-io');
  assert.ok(knownFailure(bunServer, 'async-io', 'pipelined'));
  assert.equal(knownFailure(bunServer, 'async-io', 'plain'), null);
  assert.equal(knownFailure(bunServer, 'async', 'pipelined'), null);
  const piped = await quickMeasure(bunServer, { id: 'pipelined', depth: 16 }, undefined, asyncIo);
  assert.equal(piped.ok, false, 'Bun.serve now answers pipelined async-io: remove its knownFailures entry');
  const plain = await quickMeasure(bunServer, { id: 'plain', depth: 1 }, undefined, asyncIo);
  assert.equal(plain.ok, true, plain.failure ?? '');
});

test('Bun.serve and Deno.serve pass ws-echo and ws-broadcast (Bun pub/sub, Deno socket loop)', async (t) => {
  ensureCommand('taskset', 'util-linux');
  const bin = wsBinary();
  if ('failure' in bin) throw new Error(bin.failure);
  const o: WsOptions = {
    scenarios: ['ws-echo', 'ws-broadcast'],
    serverNames: ['bun', 'deno'],
    quick: true,
    durationS: 1,
    iterations: 1,
    connections: 4,
    timeoutS: 2,
    serverCpu: 0,
    loadCpu: 1,
    nofile: 4096,
    messages: 50,
    step: 3,
    maxClients: 6,
    samples: 3,
  };
  for (const name of ['bun', 'deno']) {
    const server = wsServers.find((s) => s.name === name);
    assert.ok(server, `${name} has WebSocket rows`);
    for (const scenario of o.scenarios) {
      await t.test(`${server.label}: ${scenario}`, async () => {
        const m = await wsMeasure(o, server, scenario, bin.path);
        assert.equal(m.ok, true, m.failure ?? '');
        assert.ok((m.median?.json?.valid ?? 0) > 0 && m.median?.json?.invalid === 0);
      });
    }
  }
});

test('--node: Node apps get one row per Node (suffixed on another Node); Bun, Deno and nginx keep one', async () => {
  const own = ownNode();
  // The harness's own binary, taken as another Node: the whole path of a suffixed row, without a download.
  const other: NodeRuntime = { ...own, own: false };
  const gale = findServer('gale');
  const nginx = findServer('nginx');
  assert.ok(gale && nginx);
  const rows = onNodes([gale, bunServer, nginx], [own, other]);
  assert.deepEqual(
    rows.map((s) => [s.name, s.label]),
    [
      ['gale', 'Gale'],
      [`gale-node${own.major}`, `Gale (Node ${own.major})`],
      ['bun', 'Bun.serve'],
      ['nginx', 'nginx'],
    ],
  );
  const variant = rows[1] as ServerDef;
  assert.equal(launchServer(variant, { port: 1, connections: 1 }).cmd, process.execPath);
  const m = await quickMeasure(variant);
  assert.equal(m.ok, true, m.failure ?? '');
  assert.equal(m.label, `Gale (Node ${own.major})`);

  // The CLI: the harness's own major needs no download; a path to a missing file and two binaries of one major are
  // refused with a message.
  const o = parseOptions(['hello', '--servers', 'gale,bun', '--node', String(own.major)]);
  assert.ok(o !== 'help');
  assert.deepEqual(
    o.servers.map((s) => s.name),
    ['gale', 'bun'],
  );
  assert.throws(() => parseOptions(['hello', '--node', join(benchDir, 'no-such-node')]), /--node .*no such file/);
  assert.throws(() => resolveNodes(`${process.execPath},${process.execPath}`), /two Node \d+ binaries/);
});

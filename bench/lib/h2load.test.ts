// The h2load tool of the HTTP/2 scenarios: its output parsers, and real h2load runs against a correct node:http2 server
// and against wrong ones (a body one byte longer now and then, a 500 now and then), which must be counted invalid.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { parseH2loadSummary, readH2loadLog } from './h2load.ts';
import { judge } from './measure.ts';
import { allowedCpus, commandExists } from './proc.ts';
import { findScenario } from './scenarios.ts';
import { tools } from './tools.ts';

const output = `finished in 2.01s, 50520.00 req/s, 2.07MB/s
requests: 101040 total, 101056 started, 101040 done, 101040 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 101040 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 4.14MB (4345264) total, 789.69KB (808644) headers (space savings 90.80%), 1.64MB (1717680) data
                     min         max         mean         sd        +/- sd
time for request:       84us     12.48ms       278us       523us    97.35%
`;

test('parseH2loadSummary reads the counts and the DATA bytes', () => {
  assert.deepEqual(parseH2loadSummary(output), {
    started: 101056,
    done: 101040,
    succeeded: 101040,
    failed: 0,
    errored: 0,
    timeout: 0,
    dataBytes: 1717680,
  });
  assert.equal(parseH2loadSummary('connect to 127.0.0.1:1 failed'), null);
});

test('readH2loadLog counts wrong statuses and sorts the latencies', () => {
  const l = readH2loadLog('1\t200\t30\n2\t200\t10\n3\t500\t20\n', 200);
  assert.equal(l.count, 3);
  assert.equal(l.wrongStatus, 1);
  assert.equal(l.firstWrong, 'status 500');
  assert.deepEqual([...l.latencies], [10, 20, 30]);
});

const canRun = commandExists('h2load') && commandExists('taskset');

test('h2load runs: a correct server passes, a wrong body length or status is invalid', {
  skip: !canRun && 'h2load or taskset missing',
  timeout: 60_000,
}, async () => {
  const scenario = findScenario('h2c-hello');
  assert.ok(scenario);
  let mode: 'good' | 'long' | 'status' = 'good';
  let n = 0;
  const server = http2.createServer((_req, res) => {
    n++;
    const odd = n % 50 === 0;
    // The long bodies carry 1 000 bytes more, past what the DATA byte check allows for the streams still open when
    // the run stops (one body each), however few requests a busy machine gets through.
    const body = mode === 'long' && odd ? `{"hello":"world"}${' '.repeat(1000)}` : '{"hello":"world"}';
    res.writeHead(mode === 'status' && odd ? 500 : 200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const cpu = allowedCpus().at(-1) ?? 0;
  const run = () =>
    (tools.h2load as NonNullable<(typeof tools)['h2load']>).run({
      url: `http://127.0.0.1:${port}/`,
      scenario,
      depth: 4,
      durationS: 1,
      connections: 2,
      threads: 1,
      timeoutS: 2,
      cpu,
      nofile: 1024,
    });
  try {
    const good = await run();
    assert.equal(judge(good), null, JSON.stringify(good));
    assert.ok(good.requests > 100 && good.checked === good.requests);
    mode = 'long';
    const long = await run();
    assert.match(judge(long) ?? '', /invalid.*DATA bytes/);
    mode = 'status';
    const status = await run();
    assert.ok(status.invalid > 0, 'the 500s are counted invalid');
    assert.match(judge(status) ?? '', /invalid \(first: status 500\)/);
  } finally {
    server.close();
  }
});

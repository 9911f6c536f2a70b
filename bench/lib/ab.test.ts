// Unit tests of the ab report parser and of what the harness concludes from ab's figures (no ab needed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { abProblems, parseAbPercentiles, parseAbReport } from './ab.ts';

// ab -n 300 -c 5 -k against bench/fixtures/wrong-server.mjs (late-length: 3 bodies one byte longer), trimmed.
const report = `Document Path:          /
Document Length:        17 bytes

Concurrency Level:      5
Time taken for tests:   0.088 seconds
Complete requests:      300
Failed requests:        3
   (Connect: 0, Receive: 0, Length: 3, Exceptions: 0)
Keep-Alive requests:    0
Total transferred:      37203 bytes
HTML transferred:       5103 bytes
Requests per second:    3406.69 [#/sec] (mean)
Time per request:       1.468 [ms] (mean)
Time per request:       0.294 [ms] (mean, across all concurrent requests)
`;

test('parseAbReport reads the counts ab prints', () => {
  const r = parseAbReport(report);
  assert.equal(r.complete, 300);
  assert.deepEqual(r.failedBy, { connect: 0, receive: 0, length: 3, exceptions: 0 });
  assert.equal(r.non2xx, 0);
  assert.equal(r.keepAlive, 0);
  assert.equal(r.documentLength, 17);
  assert.equal(r.htmlBytes, 5103);
  assert.equal(r.timeTakenS, 0.088);
  assert.equal(r.meanMs, 1.468);
  assert.throws(() => parseAbReport('apr_socket_recv: Connection refused (111)'));
});

test('abProblems: length failures, non-2xx, a wrong document length and a byte total that does not add up', () => {
  assert.match(abProblems(parseAbReport(report), 17).first, /3 bodies whose length differs/);
  assert.equal(abProblems(parseAbReport(report), 17).invalid, 3);
  const clean = parseAbReport(
    report
      .replace('Failed requests:        3', 'Failed requests:        0')
      .replace('Length: 3', 'Length: 0')
      .replace('5103', '5100'),
  );
  assert.deepEqual(abProblems(clean, 17), { invalid: 0, first: '' });
  assert.match(abProblems(clean, 18).first, /body of 17 bytes \(expected 18/);
  assert.equal(abProblems(clean, 18).invalid, 300);
  const non2xx = parseAbReport(
    `${report.replace('5103', '5100').replace('Length: 3', 'Length: 0')}Non-2xx responses:      7\n`,
  );
  assert.match(abProblems(non2xx, 17).first, /7 non-2xx responses/);
  const bytes = parseAbReport(report.replace('Length: 3', 'Length: 0').replace('5103', '5099'));
  assert.match(abProblems(bytes, 17).first, /5099 body bytes received, expected 300 × 17/);
});

test('parseAbPercentiles reads ab -e CSV in microseconds', () => {
  const p = parseAbPercentiles('Percentage served,Time in ms\n0,0.375\n50,2.159\n99,5.558\n100,7.928\n');
  assert.equal(p.get(50), 2159);
  assert.equal(p.get(100), 7928);
});

// The limit rows' io_uring gate: which `kernel.io_uring_disabled` settings skip the limit-uring row, with what reason,
// and that the responders' answers are the scenarios' exact bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { limitResponse, limitResponses, uringRefusal } from './limit.ts';
import { scenarios } from './scenarios.ts';

test('io_uring_disabled: 0 (or no sysctl) lets everyone; 1 only root (the io_uring_group); 2 nobody', () => {
  assert.equal(uringRefusal('0\n', 1000), null);
  assert.equal(uringRefusal('', 1000), null, 'no sysctl (Linux before 6.6) is 0');
  assert.equal(uringRefusal('1\n', 0), null);
  assert.match(uringRefusal('1\n', 1000) ?? '', /limited to kernel\.io_uring_group .*io_uring_disabled = 1/);
  assert.match(uringRefusal('1', undefined) ?? '', /io_uring_disabled = 1/, 'no uid (Windows) is not root');
  assert.match(uringRefusal('2\n', 0) ?? '', /disabled on this machine .*io_uring_disabled = 2/);
});

test('the responses file holds every plain dynamic scenario, length-prefixed, as limitResponse gives it', () => {
  const file = limitResponses();
  let at = 0;
  const seen: string[] = [];
  while (at < file.length) {
    const nl = file.indexOf(0x0a, at);
    const [path = '', len] = file.subarray(at, nl).toString('latin1').split(' ');
    const bytes = file.subarray(nl + 1, nl + 1 + Number(len));
    const s = scenarios.find((x) => x.path === path && x.kind === 'dynamic' && Object.keys(x.headers).length === 0);
    assert.ok(s, `a scenario serves ${path}`);
    assert.deepEqual(bytes, limitResponse(s));
    assert.match(
      bytes.toString('latin1'),
      /^HTTP\/1\.1 \d{3} [A-Za-z ]+\r\nContent-Type: .+\r\nContent-Length: \d+\r\n\r\n/,
    );
    seen.push(path);
    at = nl + 1 + Number(len);
  }
  assert.ok(seen.includes('/'), 'hello is among them');
});

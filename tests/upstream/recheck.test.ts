// How scripts/upstream/run.mjs judges a failure of an upstream case that races itself: the case alone, RECHECKS
// times, every one passing, or it stays failed. Only the cases a suite names as racing are judged again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without types
import { recheckRacing, score } from '../../scripts/upstream/run.mjs';
// @ts-expect-error: a plain .mjs script without types
import { RACING, RECHECKS } from '../../scripts/upstream/socketio.mjs';

type State = 'passed' | 'failed';
const RACY = Object.keys(RACING)[0] as string;
const PLAIN = 'test/socket.ts :: socket should not race';

/** A baseline that passed both cases, a run that failed both, and a suite whose rechecks answer from `alone`. */
function setup(alone: State[]) {
  const cases = (state: State) =>
    new Map([RACY, PLAIN].map((id) => [id, { id, state, error: state === 'failed' ? 'Timeout' : undefined }]));
  const s = score({ cases: cases('passed') }, { cases: cases('failed') });
  const asked: string[] = [];
  const k = {
    racing: RACING,
    recheck: async (id: string) => {
      asked.push(id);
      return { id, state: alone.shift() ?? 'failed' };
    },
  };
  return { s, k, asked };
}

test('a racing case that passes every time alone leaves the failures, saying why', async () => {
  const { s, k, asked } = setup(Array(RECHECKS).fill('passed'));
  const raced = await recheckRacing(k, '/copy', s);
  assert.deepEqual(asked, Array(RECHECKS).fill(RACY), 'only the racing case runs again, RECHECKS times');
  assert.equal(raced.length, 1);
  assert.equal(raced[0].id, RACY);
  assert.equal(raced[0].why, RACING[RACY]);
  assert.deepEqual(
    s.failed.map((f: { id: string }) => f.id),
    [PLAIN],
    'a case not named as racing stays failed',
  );
  assert.equal(s.passed, 1);
});

test('a racing case that fails once alone stays failed, with what it gave alone', async () => {
  const { s, k } = setup(['passed', 'failed', 'passed']);
  const raced = await recheckRacing(k, '/copy', s);
  assert.equal(raced.length, 0);
  const racy = s.failed.find((f: { id: string }) => f.id === RACY);
  assert.ok(racy, 'still failed');
  assert.match(racy.error, /alone: passed, failed, passed/);
  assert.equal(s.passed, 0);
});

test('a suite that names no racing case is not judged again', async () => {
  const { s } = setup([]);
  assert.deepEqual(await recheckRacing({}, '/copy', s), []);
  assert.equal(s.failed.length, 2);
});

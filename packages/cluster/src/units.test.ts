// Unit tests of the scale-out layer's pure parts: the Redis publish frame (round trip, malformed input refused),
// the worker count and option checks (clear errors for bad values).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveOptions, workerCount } from './options.js';
import type { DataMessage } from './protocol.js';
import { decodeData, encodeData } from './redis.js';

test('a publish frame carries topics, except, flags and bytes both ways', () => {
  const m: DataMessage = {
    k: 'data',
    from: '0123456789abcdef',
    topics: ['room:1', 'größe'],
    data: new Uint8Array([0, 1, 255]),
    binary: true,
    compress: false,
    except: ['muted'],
    volatile: true,
  };
  const back = decodeData(encodeData(m));
  assert.deepEqual({ ...back, data: [...(back.data as Uint8Array)] }, { ...m, data: [0, 1, 255] });
  const text = decodeData(
    encodeData({ k: 'data', from: 'ffffffffffffffff', topics: ['t'], data: 'héllo', binary: false, compress: true }),
  );
  assert.equal(Buffer.from(text.data as Uint8Array).toString(), 'héllo');
  assert.equal(text.binary, false);
  assert.equal(text.except, undefined);
});

test('malformed frames are refused, never misread', () => {
  const good = encodeData({
    k: 'data',
    from: '0123456789abcdef',
    topics: ['a'],
    data: 'x',
    binary: false,
    compress: true,
  });
  for (let cut = 0; cut < 15; cut++) assert.throws(() => decodeData(good.subarray(0, cut)));
  assert.throws(() => decodeData(Buffer.concat([Buffer.from([9]), good.subarray(1)])), /not a gale/);
  const noTopics = Buffer.from(good);
  noTopics.writeUInt16BE(0, 10);
  assert.throws(() => decodeData(noTopics));
});

test('worker counts and options: numbers, strings from the environment, auto; bad values explained', () => {
  assert.equal(workerCount(3), 3);
  assert.equal(workerCount('2'), 2);
  assert.ok(workerCount('auto') >= 1);
  assert.ok(workerCount(0) >= 1);
  for (const bad of ['two', -1, 1.5, '', 5000]) {
    assert.throws(() => workerCount(bad as number), /workers must be a whole number from 1 to 1024 or 'auto'/);
  }
  assert.throws(() => resolveOptions({ drainTimeout: -5 }), /drainTimeout must be a number of milliseconds/);
  assert.throws(() => resolveOptions({ pubsub: 3 as unknown as string }), /pubsub must be 'ipc', a Redis URL or false/);
  assert.equal(resolveOptions({ drainTimeout: 1000 }).shutdownTimeout, 6000);
});

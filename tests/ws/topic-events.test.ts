// app.onTopicChange: a topic's first subscriber and its last one leaving (unsubscribe or close) are reported,
// once each, with the topics active when the listener is added; nothing is reported once it is removed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sleep, T, withApp } from '../helpers.js';
import { closed, connect, nextMessage } from './clients.js';

test('onTopicChange reports topics becoming active and inactive', T, async (t) => {
  const events: string[] = [];
  let off: () => void = () => {};
  const { app, port } = await withApp(t, (app) =>
    app.ws('/t', {
      message: (ws, data) => {
        const [op, topic] = data.toString().split(' ') as [string, string];
        if (op === 'sub') ws.subscribe(topic);
        else ws.unsubscribe(topic);
        ws.send('ok');
      },
    }),
  );
  const a = await connect(`ws://127.0.0.1:${port}/t`);
  const b = await connect(`ws://127.0.0.1:${port}/t`);
  const say = async (c: typeof a, m: string) => {
    c.send(m);
    await nextMessage(c);
  };
  await say(a, 'sub early');
  off = app.onTopicChange((topic, active) => events.push(`${active ? '+' : '-'}${topic}`));
  await sleep(20);
  assert.deepEqual(events, ['+early'], 'topics active before the listener are reported at once');
  await say(a, 'sub chat');
  await say(b, 'sub chat'); // not the first: no event
  await say(a, 'unsub chat'); // b is still there: no event
  await say(b, 'sub news');
  await say(b, 'unsub chat'); // last one: -chat
  await sleep(20);
  assert.deepEqual(events, ['+early', '+chat', '+news', '-chat']);
  const bClosed = closed(b);
  b.close();
  await bClosed;
  await sleep(50);
  assert.deepEqual(events, ['+early', '+chat', '+news', '-chat', '-news'], 'closing the last subscriber');
  off();
  await say(a, 'sub later');
  await sleep(20);
  assert.ok(!events.includes('+later'), 'no events after the listener is removed');
  a.close();
});

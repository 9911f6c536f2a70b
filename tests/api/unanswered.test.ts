// Requests whose handler never answers (issue 42): handlerTimeout answers 503 and logs the route and where it was
// declared; routes set their own or turn it off; streams, SSE, WebSocket upgrades and Engine.IO long-polls are not
// cut; development mode warns about a handler that settled without answering, and not about one answering late.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attach } from '@gale-http/engine.io';
import { gale, type Logger } from 'gale';
import { sleep, T, withApp } from '../helpers.js';
import { connect, nextMessage } from '../ws/clients.js';

/** A logger that keeps every line (level and text) for the test to read. */
function capture(): { logger: Logger; lines: { level: string; text: string; obj: unknown }[] } {
  const lines: { level: string; text: string; obj: unknown }[] = [];
  const keep =
    (level: string) =>
    (obj: unknown, msg?: string): void => {
      lines.push({ level, text: typeof obj === 'string' ? obj : (msg ?? ''), obj });
    };
  return { logger: { info: keep('info'), warn: keep('warn'), error: keep('error') }, lines };
}

const json = { headers: { accept: 'application/json' } };

test(
  'handlerTimeout: a handler that never answers gets 503 problem+json and an error line naming the route',
  T,
  async (t) => {
    const { logger, lines } = capture();
    const { url } = await withApp(
      t,
      (app) => {
        app.get('/forgot/:id', () => {}); // returns without answering
        app.get('/async', async () => {
          await sleep(1); // an async handler whose `return` was forgotten
        });
        app.get(
          '/mw',
          (_req, _res, _next) => {},
          () => 'never reached',
        ); // middleware that never calls next()
        app.get('/fine', () => 'ok');
      },
      { handlerTimeout: 300, logger, requestLogging: false, development: false },
    );
    for (const path of ['/forgot/7', '/async', '/mw']) {
      const t0 = performance.now();
      const res = await fetch(url + path, json);
      const took = performance.now() - t0;
      assert.equal(res.status, 503, path);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      const doc = (await res.json()) as { status: number; code: string; detail: string };
      assert.equal(doc.status, 503);
      assert.equal(doc.code, 'GALE_ERR_HANDLER_TIMEOUT');
      assert.match(doc.detail, /did not answer within 300 ms/);
      assert.ok(took >= 290 && took < 3000, `${path} answered after ${took} ms`);
    }
    assert.equal(await (await fetch(`${url}/fine`)).text(), 'ok');
    const errors = lines.filter((l) => l.level === 'error').map((l) => l.text);
    assert.equal(errors.length, 3, errors.join('\n'));
    assert.match(
      errors[0] as string,
      /GET \/forgot\/7: the route \/forgot\/:id \(declared at .*unanswered\.test\.[jt]s:\d+:\d+\)/,
    );
    assert.match(errors[1] as string, /GET \/async: the route \/async .*handlerTimeout \(300 ms\)/);
    assert.match(errors[2] as string, /GET \/mw: the route \/mw /);
  },
);

test('handlerTimeout per route: a longer one, false, and the app-wide false', T, async (t) => {
  const { url } = await withApp(
    t,
    (app) => {
      app.get('/slow', { handlerTimeout: 2000 }, async () => {
        await sleep(500);
        return 'slow but within its own limit';
      });
      app.get('/wait', { handlerTimeout: false }, async () => {
        await sleep(500);
        return 'no limit';
      });
      app.get('/short', { handlerTimeout: 100 }, () => {});
    },
    { handlerTimeout: 200, requestLogging: false, logger: capture().logger },
  );
  assert.equal(await (await fetch(`${url}/slow`)).text(), 'slow but within its own limit');
  assert.equal(await (await fetch(`${url}/wait`)).text(), 'no limit');
  assert.equal((await fetch(`${url}/short`)).status, 503);

  const off = await withApp(t, (app) => app.get('/late', (_req, res) => void setTimeout(() => res.send('late'), 400)), {
    handlerTimeout: false,
  });
  assert.equal(await (await fetch(`${off.url}/late`)).text(), 'late');
  assert.throws(() => gale({ handlerTimeout: 0 }), /handlerTimeout.*above 0, or false/);
  assert.throws(() => gale().get('/x', { handlerTimeout: -1 } as never, () => 'x'), /handlerTimeout must be/);
});

test('handlerTimeout stops at the head: a stream, SSE and a slow body are not cut', T, async (t) => {
  const { url } = await withApp(
    t,
    (app) => {
      app.get('/stream', () => {
        let n = 0;
        return new ReadableStream<string>({
          async pull(c) {
            await sleep(250); // the first chunk comes after the timeout
            if (n++ === 2) c.close();
            else c.enqueue(`part${n} `);
          },
        });
      });
      app.get('/sse', (_req, res) => {
        const s = res.sse({ heartbeat: 0 });
        setTimeout(() => {
          s.send({ data: 'late news' });
          s.close();
        }, 500);
      });
      app.get('/body', (_req, res) => {
        res.write('a');
        setTimeout(() => res.end('b'), 500);
      });
    },
    { handlerTimeout: 150, requestLogging: false, logger: capture().logger },
  );
  assert.equal(await (await fetch(`${url}/stream`)).text(), 'part1 part2 ');
  const sse = await fetch(`${url}/sse`);
  assert.equal(sse.status, 200);
  assert.match(await sse.text(), /data: late news/);
  assert.equal(await (await fetch(`${url}/body`)).text(), 'ab');
});

test('handlerTimeout leaves WebSocket upgrades and Engine.IO long-polls alone', T, async (t) => {
  const { port, url } = await withApp(
    t,
    (app) => {
      app.ws('/ws', {
        upgrade: async () => {
          await sleep(400);
          return {};
        },
        open: (ws) => ws.send('opened'),
      });
      attach(app, { pingInterval: 700, pingTimeout: 500 });
    },
    { handlerTimeout: 150, requestLogging: false, logger: capture().logger },
  );
  const c = await connect(`ws://127.0.0.1:${port}/ws`);
  assert.equal((await nextMessage(c)).data.toString(), 'opened');
  c.close();
  // Engine.IO: the handshake, then a poll that waits for the server's ping (longer than handlerTimeout).
  const open = await (await fetch(`${url}/engine.io/?EIO=4&transport=polling`)).text();
  const sid = (JSON.parse(open.slice(1)) as { sid: string }).sid;
  const t0 = performance.now();
  const poll = await fetch(`${url}/engine.io/?EIO=4&transport=polling&sid=${sid}`);
  assert.equal(poll.status, 200);
  assert.equal(await poll.text(), '2'); // the ping packet
  assert.ok(performance.now() - t0 > 400, 'the poll waited for the ping');
});

test(
  'development mode warns about a handler that settled without answering, not about a late callback',
  T,
  async (t) => {
    const { logger, lines } = capture();
    const { url } = await withApp(
      t,
      (app) => {
        app.get('/forgot', async () => {
          await sleep(1);
        });
        app.get('/callback', (_req, res) => void setTimeout(() => res.send('answered in a callback'), 300));
      },
      { development: true, handlerTimeout: 2500, logger, requestLogging: false },
    );
    assert.equal(await (await fetch(`${url}/callback`)).text(), 'answered in a callback');
    const ac = new AbortController();
    const pending = fetch(`${url}/forgot`, { signal: ac.signal }).catch(() => undefined);
    await sleep(1600); // the grace delay (1 s) and a margin
    const warns = lines.filter((l) => l.level === 'warn').map((l) => l.text);
    assert.equal(warns.length, 1, warns.join('\n'));
    assert.match(
      warns[0] as string,
      /GET \/forgot: the route \/forgot \(declared at .*unanswered\.test\.[jt]s:\d+:\d+\) returned without answering/,
    );
    ac.abort();
    await pending;
  },
);

test('app.request() without a signal fails after 10 s naming the route that holds the request', {
  timeout: 20_000,
}, async () => {
  const app = gale({ handlerTimeout: false, requestLogging: false });
  app.get('/never/:id', () => {});
  app.get('/ok', () => 'ok');
  const t0 = performance.now();
  await assert.rejects(app.request('/never/1?x=2'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'GALE_ERR_IN_PROCESS');
    assert.match(
      err.message,
      /^app\.request\(GET \/never\/1\?x=2\): no response within 10000 ms: the route \/never\/:id \(declared at .*unanswered\.test\.[jt]s:\d+:\d+\) has not answered it\. Pass a signal/,
    );
    return true;
  });
  const took = performance.now() - t0;
  assert.ok(took >= 9900 && took < 15_000, `failed after ${took} ms`);
  // A request that is answered is not touched by the timer (it is cleared with the head).
  assert.equal(await (await app.request('/ok')).text(), 'ok');
  await app.close();
});

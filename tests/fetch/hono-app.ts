// A real Hono app using routing, params, sub-apps, built-in middleware (cors, logger, etag, secure-headers,
// basic-auth, body-limit, request-id), c.json/text/html/body/redirect, streaming (stream, streamText, streamSSE),
// cookies (plain and signed), errors (onError, HTTPException) and notFound. hono.test.ts serves it with Gale and
// with @hono/node-server; nothing here knows which server runs it.
import { Hono } from 'hono';
import { basicAuth } from 'hono/basic-auth';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, getSignedCookie, setCookie, setSignedCookie } from 'hono/cookie';
import { cors } from 'hono/cors';
import { etag } from 'hono/etag';
import { HTTPException } from 'hono/http-exception';
import { logger } from 'hono/logger';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { stream, streamSSE, streamText } from 'hono/streaming';

export const COOKIE_SECRET = 'hono-test-secret';

export interface HonoProbe {
  /** Lines hono/logger printed. */
  logs: string[];
  /** Set when a streaming response saw its client go away (stream.onAbort). */
  aborted: { sse: boolean; stream: boolean };
}

export function honoApp(probe: HonoProbe): Hono {
  const app = new Hono();
  app.use(logger((line) => probe.logs.push(line)));
  app.use(
    '/api/*',
    cors({ origin: ['https://a.example'], allowHeaders: ['X-Custom'], maxAge: 600, credentials: true }),
  );
  app.use('/secure/*', secureHeaders());
  app.use('/etag/*', etag());
  app.use('/admin/*', basicAuth({ username: 'ada', password: 'lovelace' }));
  app.use('/id/*', requestId());
  app.use(async (c, next) => {
    const t = Date.now();
    await next();
    c.header('x-response-time', String(Date.now() - t));
  });

  app.get('/', (c) => c.json({ hello: 'world' }));
  app.get('/text', (c) => c.text('plain text'));
  app.get('/html', (c) => c.html('<h1>Hi</h1>'));
  app.get('/body', (c) => c.body(new Uint8Array([1, 2, 3]), 201, { 'content-type': 'application/x-bytes' }));
  app.get('/redirect', (c) => c.redirect('/text', 301));
  app.get('/users/:id', (c) => c.json({ id: c.req.param('id'), q: c.req.query('q'), all: c.req.queries('tag') }));
  app.get('/posts/:id{[0-9]+}', (c) => c.text(`post ${c.req.param('id')}`));
  app.get('/files/*', (c) => c.text(`file ${c.req.path}`));
  app.get('/optional/:name?', (c) => c.text(`name=${c.req.param('name') ?? 'none'}`));
  app.get('/headers', (c) => c.json({ ua: c.req.header('user-agent'), multi: c.req.header('x-multi') }));
  app.get('/env', (c) => c.json({ env: typeof c.env, url: c.req.url }));
  app.put('/items/:id', async (c) => c.json({ id: c.req.param('id'), body: await c.req.json() }, 202));
  app.delete('/items/:id', (c) => c.body(null, 204));
  app.all('/any', (c) => c.text(c.req.method));

  const api = new Hono();
  api.get('/data', (c) => c.json({ data: [1, 2, 3] }));
  api.post('/data', async (c) => c.json({ posted: await c.req.json() }, 201));
  app.route('/api', api);
  app.get('/secure/page', (c) => c.text('secured'));
  app.get('/etag/doc', (c) => c.text('a document with an etag'));
  app.get('/admin/panel', (c) => c.text('welcome ada'));
  app.get('/id/me', (c) => c.text(String(c.get('requestId'))));

  // request bodies
  app.post('/json', async (c) => c.json({ got: await c.req.json() }));
  app.post('/text-body', async (c) => c.text((await c.req.text()).toUpperCase()));
  app.post('/form', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const file = body.file;
    return c.json({
      name: body.name,
      tags: body.tag,
      file: file instanceof File ? { name: file.name, text: await file.text() } : null,
    });
  });
  app.post('/formdata', async (c) => {
    const f = await c.req.formData();
    return c.json(Object.fromEntries(f));
  });
  app.post('/limited', bodyLimit({ maxSize: 16, onError: (c) => c.text('too big', 413) }), async (c) =>
    c.text(`ok ${(await c.req.text()).length}`),
  );

  // cookies
  app.get('/cookies/set', async (c) => {
    setCookie(c, 'plain', 'value one', { path: '/', httpOnly: true });
    setCookie(c, 'theme', 'dark', { maxAge: 3600, sameSite: 'Lax' });
    await setSignedCookie(c, 'session', 'user-42', COOKIE_SECRET, { path: '/' });
    return c.text('set');
  });
  app.get('/cookies/get', async (c) =>
    c.json({
      plain: getCookie(c, 'plain'),
      all: getCookie(c),
      signed: await getSignedCookie(c, COOKIE_SECRET, 'session'),
    }),
  );
  app.get('/cookies/delete', (c) => {
    deleteCookie(c, 'plain', { path: '/' });
    return c.text('deleted');
  });

  // streaming
  app.get('/stream', (c) =>
    stream(c, async (s) => {
      s.onAbort(() => {
        probe.aborted.stream = true;
      });
      for (let i = 0; i < 3; i++) {
        await s.write(`chunk${i};`);
        await s.sleep(5);
      }
    }),
  );
  app.get('/stream/forever', (c) =>
    stream(c, async (s) => {
      s.onAbort(() => {
        probe.aborted.stream = true;
      });
      while (!s.aborted) {
        await s.write('tick\n');
        await s.sleep(10);
      }
    }),
  );
  app.get('/stream-text', (c) =>
    streamText(c, async (s) => {
      await s.writeln('line one');
      await s.sleep(2);
      await s.write('line two');
    }),
  );
  app.get('/sse', (c) =>
    streamSSE(c, async (s) => {
      s.onAbort(() => {
        probe.aborted.sse = true;
      });
      let id = 0;
      const once = c.req.query('once') !== undefined;
      while (!s.aborted) {
        await s.writeSSE({ event: 'tick', id: String(id), data: JSON.stringify({ n: id }) });
        id++;
        if (once && id === 3) break;
        await s.sleep(10);
      }
    }),
  );

  // errors
  app.get('/boom', () => {
    throw new Error('kaboom');
  });
  app.get('/forbidden', () => {
    throw new HTTPException(403, { message: 'not for you' });
  });
  app.get('/async-boom', async () => {
    await new Promise((r) => setTimeout(r, 1));
    throw new Error('async kaboom');
  });
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    return c.json({ error: err.message }, 500);
  });
  app.notFound((c) => c.json({ missing: c.req.path }, 404));
  return app;
}

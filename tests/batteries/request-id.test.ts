// requestId(): the id Gale's logging uses (req.id, reqId on req.log lines) is the echoed header: a valid incoming
// id is kept, an invalid or missing one replaced; the header name, generator and trust are configurable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Logger, requestId } from 'gale';
import { simpleRequest, T, withApp } from '../helpers.js';

function recordingLogger(): Logger & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const make = (bindings: Record<string, unknown>): Logger => ({
    info: (obj) => lines.push({ ...bindings, ...(obj as object) }),
    warn: () => {},
    error: () => {},
    child: (b) => make({ ...bindings, ...b }),
  });
  return Object.assign(make({}), { lines });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('requestId(): a valid incoming X-Request-Id is echoed and is req.id and the reqId of log lines', T, async (t) => {
  const logger = recordingLogger();
  const { port } = await withApp(
    t,
    (app) => {
      app.use(requestId());
      app.get('/', (req) => {
        req.log.info({ step: 'handler' });
        return { id: req.id };
      });
    },
    { logger },
  );
  const r = await simpleRequest(port, { headers: { 'x-request-id': 'abc-123' } });
  assert.equal(r.get('x-request-id'), 'abc-123');
  assert.deepEqual(JSON.parse(r.text), { id: 'abc-123' });
  const lines = logger.lines.filter((l) => l.reqId === 'abc-123');
  assert.ok(
    lines.some((l) => l.step === 'handler'),
    JSON.stringify(logger.lines),
  );
  assert.ok(
    lines.some((l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 200),
    'the request line too',
  );
  for (const bad of ['has space', 'x'.repeat(129), 'quote"d']) {
    const g = await simpleRequest(port, { headers: { 'x-request-id': bad } });
    assert.match(g.get('x-request-id') ?? '', UUID, `${bad} replaced`);
  }
  assert.match((await simpleRequest(port)).get('x-request-id') ?? '', UUID);
});

test('requestId(): header name, generator, trustIncoming: false and setHeader: false', T, async (t) => {
  let n = 0;
  const { port } = await withApp(t, (app) => {
    app.use('/custom', requestId({ header: 'X-Correlation-Id', generator: (req) => `${req.method}-${++n}` }));
    app.use('/distrust', requestId({ trustIncoming: false, generator: () => 'server-made' }));
    app.use('/quiet', requestId({ setHeader: false }));
    for (const p of ['/custom', '/distrust', '/quiet']) app.get(p, (req) => req.id);
  });
  const c = await simpleRequest(port, { path: '/custom' });
  assert.equal(c.get('x-correlation-id'), 'GET-1');
  assert.equal(c.text, 'GET-1');
  assert.equal(
    (await simpleRequest(port, { path: '/custom', headers: { 'x-correlation-id': 'given' } })).text,
    'given',
  );
  const d = await simpleRequest(port, { path: '/distrust', headers: { 'x-request-id': 'client-made' } });
  assert.equal(d.text, 'server-made');
  const q = await simpleRequest(port, { path: '/quiet', headers: { 'x-request-id': 'kept' } });
  assert.equal(q.text, 'kept');
  assert.equal(q.get('x-request-id'), undefined);
});

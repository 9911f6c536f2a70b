// morgan and response-time on Gale's native API: on-headers' patched res.writeHead runs just before the head goes
// out, on-finished hears 'finish' (and the client leaving); morgan's lines match Express 5's for the same requests.
// biome-ignore-all lint/suspicious/noExplicitAny: Express middleware is typed for Express's req/res
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import realExpress from 'express';
import { session } from 'gale';
import morgan from 'morgan';
import responseTime from 'response-time';
import { sleep, T, withApp } from '../helpers.js';
import { request, startExpress } from './helpers.js';

/** A stream morgan writes to, keeping its lines. */
function sink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { stream, lines };
}

async function waitFor(lines: string[], n: number): Promise<void> {
  for (let i = 0; i < 100 && lines.length < n; i++) await sleep(10);
}

const FORMAT = ':method :url HTTP/:http-version :status :res[content-length] :response-time ms :remote-addr';
/** morgan's line with the response time (different on every run) taken out. */
const steady = (line: string) => line.replace(/ \d+\.\d{3} ms /, ' <t> ms ');

test('morgan: one line per request with status, length and response time, as on Express', T, async (t) => {
  const ours = sink();
  const { port } = await withApp(t, (app) => {
    app.use(morgan(FORMAT, { stream: ours.stream }) as any);
    app.get('/hello', () => 'hello world');
    app.get('/json', (_req, res) => res.json({ a: [1, 2] }));
    app.get('/missing', (_req, res) => res.status(404).send('nope'));
    app.get('/stream', (_req, res) => {
      res.write('a');
      res.end('b');
    });
  });
  const theirs = sink();
  const ref = realExpress();
  ref.use(morgan(FORMAT, { stream: theirs.stream }));
  ref.get('/hello', (_req, res) => res.send('hello world'));
  ref.get('/json', (_req, res) => res.json({ a: [1, 2] }));
  ref.get('/missing', (_req, res) => res.status(404).send('nope'));
  ref.get('/stream', (_req, res) => {
    res.write('a');
    res.end('b');
  });
  const e = await startExpress(ref);
  t.after(() => e.close());
  const paths = ['/hello?x=1', '/json', '/missing', '/stream'];
  for (const p of paths) {
    const a = await request(port, 'GET', p);
    const b = await request(e.port, 'GET', p);
    assert.equal(a.status, b.status, p);
    assert.equal(a.body.toString(), b.body.toString(), p);
  }
  await waitFor(ours.lines, paths.length);
  await waitFor(theirs.lines, paths.length);
  assert.equal(ours.lines.length, paths.length, ours.lines.join(''));
  for (const line of ours.lines) assert.match(line, / \d+\.\d{3} ms /, 'a measured response time');
  assert.deepEqual(ours.lines.map(steady), theirs.lines.map(steady));
  assert.equal(steady(ours.lines[0] as string), 'GET /hello?x=1 HTTP/1.1 200 11 <t> ms 127.0.0.1\n');
});

test('morgan: a request whose client left before the answer is logged too (status -)', T, async (t) => {
  const ours = sink();
  let reached!: () => void;
  const inHandler = new Promise<void>((r) => {
    reached = r;
  });
  const { port } = await withApp(t, (app) => {
    app.use(morgan(':method :url :status', { stream: ours.stream }) as any);
    app.get('/slow', (_req, res) => {
      reached();
      setTimeout(() => res.end('late'), 300); // dropped: the client has left by then
    });
  });
  const c = net.connect(port, '127.0.0.1');
  c.on('error', () => {});
  c.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await inHandler;
  c.destroy();
  await waitFor(ours.lines, 1);
  assert.deepEqual(ours.lines, ['GET /slow -\n']);
  await sleep(350);
});

test(
  'morgan with Gale’s session(): the session cookie and morgan’s response time both reach the head',
  T,
  async (t) => {
    const ours = sink();
    const { port } = await withApp(t, (app) => {
      app.use(morgan(':status :res[content-length] :response-time', { stream: ours.stream }) as any);
      app.use(session({ secret: 'a secret long enough for hmac' }));
      app.get('/login', (req) => {
        req.session.user = 'ada';
        return 'in';
      });
    });
    const a = await request(port, 'GET', '/login');
    assert.equal(a.body.toString(), 'in');
    assert.match(String(a.headers['set-cookie']), /^gale\.sid=/);
    await waitFor(ours.lines, 1);
    assert.match(ours.lines[0] as string, /^200 2 \d+\.\d{3}\n$/);
  },
);

test('response-time: X-Response-Time on send(), returned values, streams and 304s', T, async (t) => {
  const { port } = await withApp(
    t,
    (app) => {
      app.use(responseTime() as any);
      app.get('/send', (_req, res) => res.send('hi'));
      app.get('/value', () => ({ v: 1 }));
      app.get('/stream', (_req, res) => {
        res.write('a');
        res.end('b');
      });
      app.get('/etag', (_req, res) => res.send('cached body'));
    },
    { etag: true },
  );
  for (const p of ['/send', '/value', '/stream', '/etag']) {
    const a = await request(port, 'GET', p);
    assert.equal(a.status, 200, p);
    assert.match(String(a.headers['x-response-time']), /^\d+\.\d{3}ms$/, p);
  }
  const tag = String((await request(port, 'GET', '/etag')).headers.etag);
  const fresh = await request(port, 'GET', '/etag', { 'if-none-match': tag });
  assert.equal(fresh.status, 304);
  assert.match(String(fresh.headers['x-response-time']), /^\d+\.\d{3}ms$/);
});

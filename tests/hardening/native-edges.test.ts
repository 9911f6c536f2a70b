// The native boundary's null-pointer edge: a view of a detached ArrayBuffer has length 0 and a null data
// pointer. Every call that hands bytes to the engine must take it as empty (building a slice from the null
// pointer would be undefined behaviour even at length 0), over real sockets. Also: Buffers that are views into
// a larger ArrayBuffer at an offset, and the limits of the message length that crosses to JS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';
import { connect, nextMessage } from '../ws/clients.js';

/** A Uint8Array whose ArrayBuffer has been transferred away: length 0, data pointer null. */
function detached(): Uint8Array {
  const ab = new ArrayBuffer(64);
  const view = new Uint8Array(ab);
  structuredClone(ab, { transfer: [ab] });
  assert.equal(view.byteLength, 0);
  return view;
}

test('detached views as response bodies: res.end, res.write, res.send and returned values are empty', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/end', (_req, res) => res.end(detached()));
    app.get('/send', (_req, res) => res.send(detached()));
    app.get('/return', () => detached());
    app.get('/write', (_req, res) => {
      res.write(detached());
      res.write('x');
      res.write(detached());
      res.end(detached());
    });
    app.fixed('GET', '/fixed', { body: detached() });
  });
  const conn = await RawConn.open(port);
  for (const [path, body] of [
    ['/end', ''],
    ['/send', ''],
    ['/return', ''],
    ['/write', 'x'],
    ['/fixed', ''],
  ] as const) {
    await conn.write(buildRequest({ path }));
    const res = await conn.readResponse();
    assert.deepEqual([res.status, res.text], [200, body], path);
  }
  conn.socket.destroy();
});

test('detached views through WebSocket calls: send, ping, publish, close', T, async (t) => {
  const results: string[] = [];
  const { port } = await withApp(t, (app) =>
    app.ws('/d', {
      open: (ws) => ws.subscribe('t'),
      message: (ws) => {
        results.push(ws.send(detached(), { binary: true }));
        ws.ping(detached());
        results.push(String(ws.publish('t', detached())));
        results.push(String(app.publish('t', detached(), { binary: true })));
        ws.send('done');
      },
    }),
  );
  const c = await connect(`ws://127.0.0.1:${port}/d`);
  c.send('go');
  const a = await nextMessage(c);
  assert.deepEqual([a.data.length, a.isBinary], [0, true]);
  const b = await nextMessage(c); // app.publish reaches the sender too
  assert.deepEqual([b.data.length, b.isBinary], [0, true]);
  assert.equal((await nextMessage(c)).data.toString(), 'done');
  assert.deepEqual(results, ['sent', '0', '1']);
  c.close();
});

test('Buffers that view a larger ArrayBuffer at an offset send exactly their own bytes', T, async (t) => {
  const big = Buffer.from('0123456789abcdefghij');
  const { port } = await withApp(t, (app) => {
    app.get('/slice', (_req, res) => res.end(big.subarray(5, 8)));
    app.ws('/s', { message: (ws) => ws.send(new Uint8Array(big.buffer, big.byteOffset + 10, 4), { binary: true }) });
  });
  const r = await fetch(`http://127.0.0.1:${port}/slice`);
  assert.equal(await r.text(), '567');
  const c = await connect(`ws://127.0.0.1:${port}/s`);
  c.send('x');
  assert.equal((await nextMessage(c)).data.toString(), 'abcd');
  c.close();
});

test('non-Uint8Array bodies are refused with a TypeError that says what to pass', T, async (t) => {
  const errors: string[] = [];
  const { port } = await withApp(t, (app) => {
    app.get('/f64', (_req, res) => {
      try {
        res.end(new Float64Array(2) as unknown as Uint8Array);
      } catch (e) {
        errors.push((e as Error).message);
        res.end('refused');
      }
    });
  });
  const r = await fetch(`http://127.0.0.1:${port}/f64`);
  assert.equal(await r.text(), 'refused');
  assert.match(errors[0] ?? '', /must be a string, a Buffer or a Uint8Array, not Float64Array/);
});

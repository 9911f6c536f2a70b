// The close probe (renewal.ts) against real servers on 127.0.0.1: node:http (says `Connection: close` and closes), a
// server that closes without saying so (as uWebSockets.js and Bun.serve do), and one that keeps the connection open.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { test } from 'node:test';
import { arenaData } from './data.ts';
import { profileById } from './profiles.ts';
import { closeBehaviour } from './renewal.ts';

const listen = async (s: net.Server): Promise<number> => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as net.AddressInfo).port;
};

/** A raw server answering one request per connection with `answer`, then closing (or not). */
function raw(answer: string, close: boolean): net.Server {
  return net.createServer((c) => {
    c.once('data', () => {
      c.write(answer);
      if (close) c.end();
    });
    c.on('error', () => {});
  });
}

const answer = (extra: string) => `HTTP/1.1 200 OK\r\nContent-Length: 2\r\n${extra}\r\nok`;

test('node:http answers with Connection: close and closes: announced', async () => {
  const s = http.createServer((_req, res) => res.end('ok'));
  const port = await listen(s);
  try {
    assert.equal(await closeBehaviour(port, profileById('limited-conn'), arenaData()), 'announced');
  } finally {
    s.close();
  }
});

test('a server that closes after an answer without the header: unannounced', async () => {
  const s = raw(answer('Connection: keep-alive\r\n'), true);
  const port = await listen(s);
  try {
    assert.equal(await closeBehaviour(port, profileById('limited-conn'), arenaData()), 'unannounced');
  } finally {
    s.close();
  }
});

test('a server that keeps the connection open: kept-open', async () => {
  const s = raw(answer(''), false);
  const port = await listen(s);
  try {
    assert.equal(await closeBehaviour(port, profileById('json'), arenaData()), 'kept-open');
  } finally {
    s.close();
  }
});

test('a server that closes without answering is an error, not a renewal', async () => {
  const s = net.createServer((c) => c.once('data', () => c.end()));
  const port = await listen(s);
  try {
    await assert.rejects(closeBehaviour(port, profileById('baseline'), arenaData()), /no answer before the close/);
  } finally {
    s.close();
  }
});

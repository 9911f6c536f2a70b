// req.chunks(): the body piece by piece, kept or transient (each chunk freed when the next is asked for), and the
// engine's reuse of freed body buffers checked against concurrent uploads whose bytes must all arrive intact.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import { T, withApp } from '../helpers.js';

function sha(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

/** `size` bytes of a pattern that differs by `seed`, so one upload's bytes cannot pass for another's. */
function pattern(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed * 17 + (i >> 11)) & 0xff;
  return b;
}

/** A request body that arrives in `pieces` writes (chunked framing), so the server sees it in several reads. */
function trickle(body: Uint8Array, pieces: number): ReadableStream<Uint8Array> {
  const step = Math.ceil(body.length / pieces);
  let at = 0;
  return new ReadableStream({
    async pull(c) {
      if (at >= body.length) return c.close();
      c.enqueue(body.subarray(at, at + step));
      at += step;
      await new Promise((r) => setTimeout(r, 2));
    },
  });
}

function routes(app: App): void {
  app.post('/transient', async (req) => {
    const hash = createHash('sha256');
    let size = 0;
    let chunks = 0;
    let prev: Buffer | undefined;
    let keptAfterNext = 0;
    for await (const chunk of req.chunks({ transient: true })) {
      // The chunk before this one was freed when this one was asked for.
      if (prev !== undefined) keptAfterNext += prev.length;
      hash.update(chunk);
      size += chunk.length;
      chunks++;
      prev = chunk;
    }
    return { size, chunks, sha: hash.digest('hex'), keptAfterNext, lastAfterLoop: prev?.length ?? -1 };
  });
  app.post('/kept', async (req) => {
    const parts: Buffer[] = [];
    for await (const chunk of req.chunks()) parts.push(chunk);
    // Hold them across turns in which other uploads free and reuse buffers: nothing of these may change.
    await new Promise((r) => setTimeout(r, 30));
    return { size: parts.reduce((n, p) => n + p.length, 0), sha: sha(Buffer.concat(parts)) };
  });
  app.post('/first-only', async (req) => {
    let first: Buffer | undefined;
    let firstLength = 0;
    for await (const chunk of req.chunks({ transient: true })) {
      first = chunk;
      firstLength = chunk.length;
      break;
    }
    return { firstLength, afterBreak: first?.length ?? -1 };
  });
  app.post('/text-then-chunks', async (req) => {
    const text = await req.text();
    let whole: Buffer | undefined;
    for await (const chunk of req.chunks({ transient: true })) whole = chunk;
    // A body read whole is the request's (text() gives it again): it is never freed.
    return { text: text.length, chunk: whole?.length ?? -1, again: (await req.text()) === text };
  });
  app.post('/twice', async (req) => {
    const a = req.chunks()[Symbol.asyncIterator]();
    await a.next();
    try {
      await req.chunks().next();
      return 'read twice';
    } catch (err) {
      return `refused: ${(err as Error).message}`;
    }
  });
}

test('req.chunks({ transient: true }) reads every byte, freeing each chunk as the next is asked for', T, async (t) => {
  const { url } = await withApp(t, routes, { bodyLimit: 16 * 1024 * 1024 });
  const body = pattern(6 * 1024 * 1024, 1);
  for (const [how, init] of [
    ['Content-Length', { body }],
    ['chunked, in 24 writes', { body: trickle(body, 24), duplex: 'half' }],
  ] as const) {
    const r = await fetch(`${url}/transient`, { method: 'POST', ...init } as RequestInit);
    assert.equal(r.status, 200, how);
    const out = (await r.json()) as Record<string, number | string>;
    assert.equal(out.size, body.length, how);
    assert.equal(out.sha, sha(body), how);
    assert.ok((out.chunks as number) > 1, `${how}: read in more than one chunk (${out.chunks})`);
    assert.equal(out.keptAfterNext, 0, `${how}: every chunk read as empty once the next was asked for`);
    assert.equal(out.lastAfterLoop, 0, `${how}: the last chunk freed when the loop ended`);
  }
});

test('uploads at once, transient and kept, each arrive intact while freed buffers are reused', T, async (t) => {
  const { url } = await withApp(t, routes, { bodyLimit: 16 * 1024 * 1024 });
  const jobs = [];
  for (let i = 0; i < 8; i++) {
    const body = pattern((2 + (i % 3)) * 1024 * 1024 + i * 4097, 10 + i);
    const path = i % 2 === 0 ? '/transient' : '/kept';
    const init = i % 4 < 2 ? { body } : { body: trickle(body, 16), duplex: 'half' };
    jobs.push(
      fetch(`${url}${path}`, { method: 'POST', ...init } as RequestInit).then(async (r) => {
        assert.equal(r.status, 200);
        const out = (await r.json()) as { size: number; sha: string };
        assert.equal(out.size, body.length, `upload ${i} (${path}): size`);
        assert.equal(out.sha, sha(body), `upload ${i} (${path}): every byte as sent`);
      }),
    );
  }
  await Promise.all(jobs);
  // And again, now that the pool holds what the first round freed.
  const again = pattern(3 * 1024 * 1024, 99);
  const r = await fetch(`${url}/kept`, { method: 'POST', body: again });
  assert.deepEqual(await r.json(), { size: again.length, sha: sha(again) });
});

test('leaving the loop frees the chunk in hand; the answer still goes out', T, async (t) => {
  const { url } = await withApp(t, routes, { bodyLimit: 16 * 1024 * 1024 });
  const body = pattern(4 * 1024 * 1024, 3);
  const r = await fetch(`${url}/first-only`, { method: 'POST', body: trickle(body, 8), duplex: 'half' } as RequestInit);
  assert.equal(r.status, 200);
  const out = (await r.json()) as { firstLength: number; afterBreak: number };
  assert.ok(out.firstLength > 0, 'a first chunk was read');
  assert.equal(out.afterBreak, 0, 'freed by the break');
});

test('a body read whole before is handed out once and never freed', T, async (t) => {
  const { url } = await withApp(t, routes, { bodyLimit: 16 * 1024 * 1024 });
  const text = 'x'.repeat(300 * 1024);
  const r = await fetch(`${url}/text-then-chunks`, { method: 'POST', body: text });
  assert.deepEqual(await r.json(), { text: text.length, chunk: text.length, again: true });
});

test('a body can be read as chunks only once at a time', T, async (t) => {
  const { url } = await withApp(t, routes, { bodyLimit: 16 * 1024 * 1024 });
  const r = await fetch(`${url}/twice`, {
    method: 'POST',
    body: pattern(1024 * 1024, 5),
    duplex: 'half',
  } as RequestInit);
  assert.equal(await r.text(), 'refused: the request body is already being read');
});

// Route params as Express 5 matches and decodes them (path-to-regexp 8): named params, wildcards (a list of decoded
// segments), optional parts, percent-escapes and a malformed escape (400), each compared with real Express 5's answer.
// biome-ignore-all lint/suspicious/noExplicitAny: Express-style handlers
import assert from 'node:assert/strict';
import { test } from 'node:test';
import express from '@gale-http/express';
import realExpress from 'express';
import { start } from './helpers.js';

const PATHS = [
  '/u/42',
  '/u/%C3%A9t%C3%A9',
  '/u/a%2Fb',
  '/u/%E0%A4%A',
  '/files/a/b%20c/d',
  '/files/x',
  '/opt',
  '/opt/v',
  '/two/1/and/2',
  '/U/CaSe',
  '/u/42/',
];

async function answers(make: any): Promise<string[]> {
  const app = make();
  const show = (req: any, res: any) =>
    res.json({ params: req.params, proto: Object.getPrototypeOf(req.params) === null, route: req.route.path });
  app.get('/u/:id', show);
  app.get('/files/*rest', show);
  app.get('/opt{/:v}', show);
  app.get('/two/:a/and/:b', show);
  const s = await start(app);
  try {
    const out: string[] = [];
    for (const p of PATHS) {
      const r = await fetch(`${s.url}${p}`);
      out.push(`${p} ${r.status} ${r.status === 200 ? await r.text() : ''}`);
    }
    return out;
  } finally {
    await s.close();
  }
}

test('route params are matched and decoded as Express 5 does', { timeout: 20_000 }, async () => {
  const gale = await answers(express);
  assert.deepEqual(gale, await answers(realExpress));
  assert.ok(
    gale.some((a) => a.startsWith('/u/%E0%A4%A 400')),
    gale.join('\n'),
  );
  assert.ok(
    gale.includes('/files/a/b%20c/d 200 {"params":{"rest":["a","b c","d"]},"proto":true,"route":"/files/*rest"}'),
  );
});

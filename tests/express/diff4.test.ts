// Differential test: the app of diff-app.ts on real Express 4 and on @gale-http/express/4 (compat 4).
import { test } from 'node:test';
import galeExpress4 from '@gale-http/express/4';
import express4 from 'express4';
import { compare, viaNodeHttp } from './diff-run.js';

test('@gale-http/express/4 answers like Express 4 (status, headers that matter, body) on every request', {
  timeout: 60_000,
}, async () => {
  await compare(express4, galeExpress4, 4);
});

test('@gale-http/express/4 as a node:http request listener answers like Express 4', { timeout: 60_000 }, async () => {
  await compare(express4, viaNodeHttp(galeExpress4), 4);
});

// Differential test: the app of diff-app.ts on real Express 5 and on @gale-http/express (compat 5).
import { test } from 'node:test';
import galeExpress from '@gale-http/express';
import express from 'express';
import { compare, viaNodeHttp } from './diff-run.js';

test('@gale-http/express answers like Express 5 (status, headers that matter, body) on every request', {
  timeout: 60_000,
}, async () => {
  await compare(express, galeExpress, 5);
});

test('the same app as a node:http request listener (http.createServer(app)) answers like Express 5', {
  timeout: 60_000,
}, async () => {
  await compare(express, viaNodeHttp(galeExpress), 5);
});

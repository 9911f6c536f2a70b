// CommonJS: require('@gale-http/express') and require('@gale-http/express/4') from a .cjs file in a child process
// serve a request (Node's require of ES modules; the export is the express function itself).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

test('require("@gale-http/express") and require("@gale-http/express/4") work from a .cjs file', {
  timeout: 20_000,
}, () => {
  // Inside the repo, so `gale` resolves through the workspace's node_modules.
  const dir = mkdtempSync(path.join(import.meta.dirname, '.cjs-'));
  const file = path.join(dir, 'app.cjs');
  writeFileSync(
    file,
    `'use strict';
const express = require('@gale-http/express');
const express4 = require('@gale-http/express/4');
if (typeof express !== 'function' || typeof express.Router !== 'function' || typeof express.json !== 'function') {
  throw new Error('require("@gale-http/express") is not the express function');
}
const app = express();
const r = express.Router();
r.get('/hi/:name', (req, res) => res.json({ hi: req.params.name, v: typeof express4.query }));
app.use('/cjs', r);
const server = app.listen(0, '127.0.0.1', async () => {
  const res = await fetch('http://127.0.0.1:' + server.address().port + '/cjs/hi/ada');
  process.stdout.write(res.status + ' ' + (await res.text()));
  server.close();
});
`,
  );
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 15_000 });
  try {
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '200 {"hi":"ada","v":"function"}');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

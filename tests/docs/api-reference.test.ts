// The API reference check (`npm run docs:api -- --check`, run by CI) fails when docs/api is not what TypeDoc makes of
// the code: here on a copy of docs/api with one export's page missing (an export added without regenerating), one page
// of an export that no longer exists, and one page edited by hand; each is named, with what to run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../temp.js';

const root = join(import.meta.dirname, '..', '..');

test('docs:api --check names every page that differs from the generated reference', { timeout: 120_000 }, (t) => {
  const copy = join(tempDir(t, 'api-reference'), 'api');
  cpSync(join(root, 'docs', 'api'), copy, { recursive: true });
  rmSync(join(copy, 'gale', 'gale', 'functions', 'serve.md'));
  writeFileSync(join(copy, 'gale', 'gale', 'functions', 'removedExport.md'), '# removedExport\n');
  writeFileSync(join(copy, 'gale', 'gale', 'functions', 'serveStatic.md'), '# edited by hand\n');
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'docs-api.mjs'), '--check'], {
    cwd: root,
    env: { ...process.env, GALE_DOCS_API_DIR: copy },
    encoding: 'utf8',
  });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /docs\/api is not what the code documents \(3 files\); run npm run docs:api/);
  assert.match(r.stdout, /missing: docs\/api\/gale\/gale\/functions\/serve\.md/);
  assert.match(r.stdout, /not generated any more: docs\/api\/gale\/gale\/functions\/removedExport\.md/);
  assert.match(r.stdout, /differs: docs\/api\/gale\/gale\/functions\/serveStatic\.md/);
});

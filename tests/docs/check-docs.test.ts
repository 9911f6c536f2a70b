// The docs checker can fail: on a fixture with one good and one bad TypeScript block (and a shell block it must
// skip), scripts/check-docs.mjs reports exactly the bad block's error, at its markdown file and line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../temp.js';

const root = join(import.meta.dirname, '..', '..');
const script = join(root, 'scripts', 'check-docs.mjs');
const fixture = relative(root, join(import.meta.dirname, 'fixtures', 'check-docs.md'));
const { checkDocs, extractBlocks, docFiles } = (await import(pathToFileURL(script).href)) as {
  checkDocs(
    files: string[],
    options?: { base?: string },
  ): { blocks: number; errors: { file: string; line: number; column: number; code: number; message: string }[] };
  extractBlocks(markdown: string): { line: number; indent: number; code: string }[];
  docFiles(): string[];
};

test('extractBlocks takes ```ts and ```typescript blocks (list indentation removed), not the others', () => {
  const blocks = extractBlocks(
    [
      '# t',
      '```ts',
      'const a = 1;',
      '```',
      '```sh',
      'ls',
      '```',
      '- item',
      '',
      '  ```typescript',
      '  let b;',
      '  ```',
    ].join('\n'),
  );
  assert.deepEqual(blocks, [
    { line: 3, indent: 0, code: 'const a = 1;\n' },
    { line: 11, indent: 2, code: 'let b;\n' },
  ]);
});

test('the bad block of the fixture is reported at its file:line, the good one passes', () => {
  const { blocks, errors } = checkDocs([fixture]);
  assert.equal(blocks, 2);
  assert.equal(errors.length, 1, JSON.stringify(errors));
  const [e] = errors;
  assert.equal(e?.file, fixture);
  assert.equal(e?.line, 23); // `const port: string = app.address()?.port;`
  assert.equal(e?.code, 2322);
});

test('the command exits 1 and prints file:line:column for the error', () => {
  const r = spawnSync(process.execPath, [script, fixture], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, new RegExp(`^${fixture.replace(/[.\\/]/g, '\\$&')}:23:9 - error TS2322: `, 'm'));
  assert.match(r.stdout, /2 TypeScript blocks in 1 markdown files, 1 error/);
});

test('the checked files: README.md, docs/ but its generated parts, every package README', () => {
  const files = docFiles();
  assert.ok(files.includes('README.md'));
  assert.ok(files.includes('packages/gale/README.md'));
  assert.ok(files.some((f) => f.startsWith('docs/guides/')));
  assert.ok(!files.some((f) => f.startsWith('docs/api/') || f.startsWith('docs/bench/')), files.join(', '));
  assert.ok(!files.some((f) => f.startsWith('tests/')), 'fixtures are not docs');
});

test('a ```ts decorators block is checked with legacy decorators (NestJS code); the same block without it fails', (t) => {
  const dir = tempDir(t, 'gale-check-docs-decorators-');
  const block = [
    'function Body(): ParameterDecorator {',
    '  return () => {};',
    '}',
    'class Controller {',
    '  create(@Body() dto: string): string {',
    '    return dto;',
    '  }',
    '}',
    'console.log(new Controller().create("x"));',
  ];
  const md = (fence: string) => ['# t', '', fence, ...block, '```', ''].join('\n');
  assert.deepEqual(
    extractBlocks(md('```ts decorators')).map((b) => (b as { decorators?: boolean }).decorators),
    [true],
  );
  writeFileSync(join(dir, 'legacy.md'), md('```ts decorators'));
  writeFileSync(join(dir, 'standard.md'), md('```ts'));
  const legacy = checkDocs([join(dir, 'legacy.md')]);
  assert.deepEqual([legacy.blocks, legacy.errors], [1, []]);
  const standard = checkDocs([join(dir, 'standard.md')]);
  assert.equal(standard.blocks, 1);
  assert.ok(standard.errors.length > 0, 'parameter decorators need experimentalDecorators');
  assert.equal(standard.errors[0]?.line, 8); // the line of `create(@Body() dto: string)`
});

#!/usr/bin/env node
// `npm create gale@latest my-app` (or `node packages/create-gale/index.js my-app` in the Gale repository): copies the
// TypeScript app in template/ into a new directory. Everything comes from this package: no download, works offline.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const own = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));

const USAGE = `Usage: npm create gale@latest <directory> [-- --install]
       create-gale <directory> [--install] [--force]

Creates a Gale app in TypeScript in <directory>: a JSON route, a WebSocket route, a static folder, a node:test
test, and the scripts dev (restart on change), build, start and test.

  --install   run npm install in the new directory
  --force     write into a directory that is not empty
  --version   print create-gale's version`;

function fail(message) {
  process.stderr.write(`create-gale: ${message}\n`);
  process.exit(1);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      install: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
} catch (err) {
  fail(`${err.message}\n\n${USAGE}`);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (values.version) {
  process.stdout.write(`${own.version}\n`);
  process.exit(0);
}
if (positionals.length !== 1) fail(`give the directory to create, e.g. npm create gale@latest my-app\n\n${USAGE}`);

const target = resolve(positionals[0]);
// npm package names: lower case, no spaces; the directory's name is the usual choice.
const name =
  basename(target)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '') || 'gale-app';
if (existsSync(target) && readdirSync(target).length > 0 && !values.force) {
  fail(`${positionals[0]} exists and is not empty; choose another directory, or pass --force to write into it`);
}

cpSync(join(here, 'template'), target, { recursive: true, force: values.force });
// npm leaves .gitignore files out of published packages, so the template carries it as _gitignore.
renameSync(join(target, '_gitignore'), join(target, '.gitignore'));
const pkgFile = join(target, 'package.json');
const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
pkg.name = name;
// gale and create-gale are released together: the app gets the gale this create-gale was made for.
pkg.dependencies.gale = `^${own.version}`;
writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);

const shown = relative(process.cwd(), target) || '.';
process.stdout.write(`Created ${name} in ${shown}\n`);
if (values.install) {
  // npm is npm.cmd on Windows, which only a shell runs.
  const r = spawnSync('npm', ['install', '--no-fund', '--no-audit'], {
    cwd: target,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (r.status !== 0) fail(`npm install failed in ${shown}; run it there yourself once the problem above is fixed`);
}
process.stdout.write(
  [
    '',
    'Next:',
    `  cd ${shown}`,
    ...(values.install ? [] : ['  npm install']),
    '  npm run dev      # http://localhost:3000/, restarts on change',
    '  npm test',
    '  npm run build && npm start',
    '',
  ].join('\n'),
);

// `npm run check:docs`: every ```ts / ```typescript block of README.md, docs/**/*.md (not the generated docs/api/ and
// docs/bench/) and packages/*/README.md is written as its own module in a temp directory and type-checked with tsc's
// API under `strict`, NodeNext and tsconfig.base.json's options; errors are reported at the markdown file and line.
// `gale` and `@gale-http/*` resolve through the workspace's node_modules to the packages' built types (build first).
// A block whose fence says ```ts decorators is TypeScript's legacy decorators, as NestJS code is (experimentalDecorators
// and emitDecoratorMetadata, which its tsconfig has): those blocks are checked with these two options on.
// `node scripts/check-docs.mjs file.md …` checks only the given files. Depends on typescript and nothing of the repo.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');

/** The markdown files whose TypeScript blocks are checked, relative to the repo root, sorted. */
export function docFiles(dir = root) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(join(dir, d))) {
      const p = d ? `${d}/${name}` : name;
      if (p === 'docs/api' || p === 'docs/bench') continue; // generated: TypeDoc's pages, benchmark reports
      if (statSync(join(dir, p)).isDirectory()) walk(p);
      else if (name.endsWith('.md')) files.push(p);
    }
  };
  files.push('README.md');
  walk('docs');
  for (const pkg of readdirSync(join(dir, 'packages'))) {
    try {
      if (statSync(join(dir, 'packages', pkg, 'README.md')).isFile()) files.push(`packages/${pkg}/README.md`);
    } catch {}
  }
  return files.sort();
}

const TS_FENCE = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)(?:\s(.*))?$/;
const ANY_FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/**
 * The TypeScript blocks of a markdown text: `{ line, indent, code }`, `line` being the 1-based line of the block's
 * first code line; blocks indented under a list item lose that indentation (`indent` characters) in `code`. A block
 * fenced ```ts decorators also has `decorators: true`.
 */
export function extractBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = ANY_FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence] = open;
    const tsFence = TS_FENCE.exec(lines[i]);
    const isTs = tsFence !== null;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = ANY_FENCE.exec(lines[j]);
      if (close && close[2][0] === fence[0] && close[2].length >= fence.length && close[3].trim() === '') break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    if (isTs) {
      const decorators = /(^|\s)decorators(\s|$)/.test(tsFence[4] ?? '');
      blocks.push({
        line: i + 2,
        indent: indent.length,
        code: `${body.join('\n')}\n`,
        ...(decorators && { decorators }),
      });
    }
    i = j;
  }
  return blocks;
}

/** The compiler options: tsconfig.base.json's, for type-checking only. */
function compilerOptions(dir) {
  const base = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile);
  if (base.error) throw new Error(ts.flattenDiagnosticMessageText(base.error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(base.config.compilerOptions, root);
  if (errors.length)
    throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  return {
    ...options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    // Every block is a module of its own, with or without imports (top-level await, no shared globals).
    moduleDetection: ts.ModuleDetectionKind.Force,
    // A snippet shows a handler's usual `(req, res)` or a value it could use; unused names are not type errors.
    noUnusedLocals: false,
    noUnusedParameters: false,
    typeRoots: [join(root, 'node_modules', '@types')],
    rootDir: dir,
  };
}

/**
 * Type-checks the TypeScript blocks of the given markdown files (paths relative to `base`, or absolute). Returns the
 * number of blocks and the errors, each `{ file, line, column, code, message }` with `file` as given and `line`/
 * `column` in the markdown file.
 */
export function checkDocs(files, { base = root } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gale-check-docs-'));
  try {
    // ES modules (top-level await) that resolve packages as a file of the repo would: through its node_modules.
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'junction');
    const origin = new Map(); // temp file → { file, line }
    const legacy = new Set(); // temp files of ```ts decorators blocks
    let count = 0;
    for (const file of files) {
      const abs = isAbsolute(file) ? file : join(base, file);
      const name = relative(base, abs)
        .split(sep)
        .join('_')
        .replace(/[^A-Za-z0-9_.-]/g, '_');
      for (const block of extractBlocks(readFileSync(abs, 'utf8'))) {
        const out = join(dir, 'blocks', `${name}_L${block.line}.ts`);
        mkdirSync(join(dir, 'blocks'), { recursive: true });
        writeFileSync(out, block.code);
        origin.set(out, { file, line: block.line, indent: block.indent });
        if (block.decorators) legacy.add(out);
        count++;
      }
    }
    const options = compilerOptions(dir);
    const plain = [...origin.keys()].filter((f) => !legacy.has(f));
    const programs = [ts.createProgram(plain, options)];
    if (legacy.size) {
      const decorators = { ...options, experimentalDecorators: true, emitDecoratorMetadata: true };
      programs.push(ts.createProgram([...legacy], decorators));
    }
    const errors = [];
    for (const d of programs.flatMap((program) => ts.getPreEmitDiagnostics(program))) {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const where = d.file && origin.get(d.file.fileName.split('/').join(sep));
      if (!where || d.start === undefined) {
        // Not in a block (a package's types, the options): report it as it is, so it is never lost.
        const at = d.file ? `${relative(root, d.file.fileName)}: ` : '';
        errors.push({ file: '(tsc)', line: 0, column: 0, code: d.code, message: `${at}${message}` });
        continue;
      }
      const pos = d.file.getLineAndCharacterOfPosition(d.start);
      errors.push({
        file: where.file,
        line: where.line + pos.line,
        column: where.indent + pos.character + 1,
        code: d.code,
        message,
      });
    }
    return { blocks: count, errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const files = args.length ? args : docFiles();
  const { blocks, errors } = checkDocs(files, { base: args.length ? process.cwd() : root });
  for (const e of errors) console.error(`${e.file}:${e.line}:${e.column} - error TS${e.code}: ${e.message}`);
  console.log(
    `check:docs: ${blocks} TypeScript blocks in ${files.length} markdown files, ${errors.length} error${errors.length === 1 ? '' : 's'}`,
  );
  if (errors.length || blocks === 0) process.exit(1);
}

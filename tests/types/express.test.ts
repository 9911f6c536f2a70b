// @gale-http/express's types are @types/express's, so a typical TypeScript Express app compiles with it as it does with
// `express`: tests/types/express/ holds such an app (app.mts, and app.cts in CommonJS form: express-session with its
// SessionData merged, multer's req.file, passport, cookie-parser, Request/Response/NextFunction by name,
// `express.Request` as a namespace, an ErrorRequestHandler) and its Express 4 version (app4.mts, app4.cts), plus
// gale.mts for what the package adds. Each tsconfig there is compiled here under `strict` with `skipLibCheck: false`,
// and any diagnostic fails: against @gale-http/express and /4 (tsconfig.json, tsconfig.4.json) and, the same files
// with the import mapped to @types/express and @types/express@4 by `paths`, against Express's own types
// (tsconfig.express.json, tsconfig.express4.json), which shows the app is one Express's typings accept as it is.
// Then every name @types/express exports, @gale-http/express exports too, as the same declaration, and every value
// the types declare is there at run time (the runtime is Gale's, not Express's).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');
const dir = join(import.meta.dirname, 'express');
const rel = (file: string) => relative(root, file).split(sep).join('/');

interface Case {
  config: string;
  what: string;
  /** The @types/express the app is typed with (as the program holds it). */
  types: string;
  /** The entry files of @gale-http/express the program holds (none: compiled against Express's own types). */
  gale: string[];
}

const CASES: Case[] = [
  {
    config: 'tsconfig.json',
    what: "the Express 5 app (ESM and CommonJS) and Gale's additions, against @gale-http/express",
    types: 'node_modules/@types/express/index.d.ts',
    gale: ['packages/express/types/index.d.ts', 'packages/express/cjs/index.d.cts'],
  },
  {
    config: 'tsconfig.express.json',
    what: 'the same Express 5 app against express (@types/express)',
    types: 'node_modules/@types/express/index.d.ts',
    gale: [],
  },
  {
    // Middleware typings (express-session, multer, …) use whichever @types/express the project has: an Express 4
    // project has @types/express@4 (mapped here with paths, as the app's own import is in tsconfig.express4.json).
    config: 'tsconfig.4.json',
    what: 'the Express 4 app (ESM and CommonJS) against @gale-http/express/4',
    types: 'node_modules/@types/express-4/index.d.ts',
    gale: ['packages/express/types/4.d.ts', 'packages/express/cjs/4.d.cts'],
  },
  {
    config: 'tsconfig.express4.json',
    what: 'the same Express 4 app against express@4 (@types/express@4)',
    types: 'node_modules/@types/express-4/index.d.ts',
    gale: [],
  },
];

function parse(config: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(dir, config),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    },
  );
  assert.ok(parsed, config);
  return parsed;
}

/** The program of a tsconfig; those of @gale-http/express are kept for the tests at the end, which read them again. */
const programs = new Map<string, ts.Program>();
function compile(config: string, keep = true): ts.Program {
  let program = programs.get(config);
  if (program === undefined) {
    const parsed = parse(config);
    program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
    if (keep) programs.set(config, program);
  }
  return program;
}

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

for (const c of CASES) {
  test(`${c.what} (${c.config}): no diagnostic under strict, skipLibCheck false`, () => {
    const parsed = parse(c.config);
    const program = compile(c.config, c.gale.length > 0);
    assert.equal(parsed.options.strict, true);
    assert.equal(parsed.options.skipLibCheck, false);
    assert.equal(parsed.options.moduleResolution, ts.ModuleResolutionKind.NodeNext);
    const diagnostics = ts.getPreEmitDiagnostics(program);
    assert.equal(ts.formatDiagnostics(diagnostics, formatHost), '', `${c.config}: ${diagnostics.length} diagnostic(s)`);
    // The fixture in both module systems: .mts files as ES modules, .cts files as CommonJS.
    const roots = parsed.fileNames.map((f) => program.getSourceFile(f) as ts.SourceFile);
    assert.ok(roots.some((f) => f.fileName.endsWith('.mts') && f.impliedNodeFormat === ts.ModuleKind.ESNext));
    assert.ok(roots.some((f) => f.fileName.endsWith('.cts') && f.impliedNodeFormat === ts.ModuleKind.CommonJS));
    // Typed by what the case says: @gale-http/express's entries (and through them @types/express), or Express's
    // own types with nothing of @gale-http/express in the program.
    const files = program.getSourceFiles().map((f) => rel(f.fileName));
    assert.ok(files.includes(c.types), `${c.config} holds ${c.types}`);
    for (const f of c.gale) assert.ok(files.includes(f), `${c.config} holds ${f}`);
    if (c.gale.length === 0) {
      assert.deepEqual(
        files.filter((f) => f.startsWith('packages/')),
        [],
      );
    }
  });
}

test('the app compiled against Express is the one compiled against @gale-http/express, file for file', () => {
  const files = (config: string) => parse(config).fileNames.map(rel);
  for (const [gale, upstream] of [
    ['tsconfig.json', 'tsconfig.express.json'],
    ['tsconfig.4.json', 'tsconfig.express4.json'],
  ] as const) {
    const ours = files(gale);
    const theirs = files(upstream);
    assert.ok(theirs.length >= 2, upstream);
    for (const f of theirs) assert.ok(ours.includes(f), `${f} is compiled by ${upstream} but not by ${gale}`);
  }
});

/**
 * The names `moduleFile` exports (an `export =` module: the members of what it exports), each resolved to the
 * declaration it names.
 */
function exportsOf(program: ts.Program, moduleFile: string): Map<string, ts.Symbol> {
  const checker = program.getTypeChecker();
  const file = program.getSourceFiles().find((f) => rel(f.fileName) === moduleFile);
  assert.ok(file, `${moduleFile} is in the program`);
  const mod = checker.getSymbolAtLocation(file);
  assert.ok(mod, `${moduleFile} is a module`);
  const resolve = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  return new Map(checker.getExportsOfModule(mod).map((s) => [s.name, resolve(s)]));
}

for (const [config, types, entries] of [
  ['tsconfig.json', 'node_modules/@types/express/index.d.ts', ['types/index.d.ts', 'cjs/index.d.cts']],
  ['tsconfig.4.json', 'node_modules/@types/express-4/index.d.ts', ['types/4.d.ts', 'cjs/4.d.cts']],
] as const) {
  test(`every name ${types} exports, ${entries.join(' and ')} export as the same declaration`, () => {
    const program = compile(config);
    const checker = program.getTypeChecker();
    const theirs = exportsOf(program, types);
    assert.ok(theirs.has('Request') && theirs.has('json') && theirs.has('Router'), [...theirs.keys()].join());
    for (const entry of entries) {
      const ours = exportsOf(program, `packages/express/${entry}`);
      const problems: string[] = [];
      for (const [name, symbol] of theirs) {
        // `static` is no identifier to import by: the ES module exports it as serveStatic (as the runtime does).
        const mine = ours.get(name === 'static' && entry.startsWith('types/') ? 'serveStatic' : name);
        if (mine === undefined) problems.push(`${name} is missing`);
        // Express and Application are @types/express's extended with Gale's listen(); the rest are its own.
        else if (name === 'Express' || name === 'Application') {
          const bases = checker.getBaseTypes(checker.getDeclaredTypeOfSymbol(mine) as ts.InterfaceType);
          assert.deepEqual(
            bases.map((b) => b.symbol),
            [symbol],
            `${entry}: ${name} extends @types/express's`,
          );
        } else if (mine !== symbol) problems.push(`${name} is not @types/express's`);
      }
      assert.deepEqual(problems, [], `${entry}: ${problems.join(', ')}`);
    }
  });
}

for (const [config, specifier, esm, cjs] of [
  ['tsconfig.json', '@gale-http/express', 'types/index.d.ts', 'cjs/index.d.cts'],
  ['tsconfig.4.json', '@gale-http/express/4', 'types/4.d.ts', 'cjs/4.d.cts'],
] as const) {
  test(`every value the types of ${specifier} declare exists at run time, by import and by require`, async () => {
    const program = compile(config);
    const values = (entry: string) =>
      [...exportsOf(program, `packages/express/${entry}`)]
        .filter(([, symbol]) => symbol.flags & ts.SymbolFlags.Value)
        .map(([name]) => name)
        .sort();
    const mod = (await import(specifier)) as { default: Record<string, unknown> };
    assert.deepEqual(
      values(esm).filter((name) => !(name in mod)),
      [],
      `declared by ${esm}, not exported by import('${specifier}')`,
    );
    // The default export's own members (the namespace of ${cjs}), before require() adds the named exports to it.
    assert.deepEqual(
      values(cjs).filter((name) => mod.default[name] === undefined),
      [],
      `declared by ${cjs}, not on the default export of import('${specifier}')`,
    );
    const required = createRequire(import.meta.url)(specifier) as Record<string, unknown>;
    assert.deepEqual(
      values(cjs).filter((name) => required[name] === undefined),
      [],
      `declared by ${cjs}, not on require('${specifier}')`,
    );
    assert.ok(values(esm).includes('default') && values(cjs).includes('json'));
  });
}

// Compiles the Nest app of tests/nest/fixture into a temp dir for one test file, and loads it from there. Nest's
// dependency injection and ValidationPipe read the decorators' metadata (emitDecoratorMetadata), which tsx (esbuild)
// does not emit, so the fixture is compiled by TypeScript itself with the compiler options of its tsconfig
// (experimentalDecorators, emitDecoratorMetadata), file by file (ts.transpileModule: 0.6 s here, where a whole
// program takes 5-7 s; its metadata is the same for these files). Type errors are `npm run typecheck`'s
// (tsc -p tests/nest/fixture). The temp dir gets a package.json (ES modules) and a link to the repository's
// node_modules, so the compiled files import @nestjs/* and @gale-http/express as the tests do; the dir, link
// included, is removed after the file's last test.
import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { INestApplication } from '@nestjs/common';
import ts from 'typescript';
import { fileTempDir } from '../temp.js';

const root = join(import.meta.dirname, '..', '..');
const fixture = join(import.meta.dirname, 'fixture');

// What the tests use of the fixture's modules (typed here: the fixture is type-checked with its own tsconfig, whose
// decorators the tests' does not take).
type Class<T = unknown> = new (...args: never[]) => T;
/** fixture/app.module.ts */
export interface AppFixture {
  AppModule: Class;
  setUp(app: INestApplication): INestApplication;
}
/** fixture/gateways.ts */
export interface GatewaysFixture {
  WsAppModule: Class;
  IoAppModule: Class;
  IoGateway: Class<{ server: unknown }>;
  BadWsAppModule: Class;
}

/** Where the fixture was compiled to; `load(name)` imports one of its modules (e.g. 'app.module'). */
export interface Built {
  dir: string;
  load<T = Record<string, unknown>>(name: string): Promise<T>;
  /** Milliseconds the compilation took. */
  ms: number;
}

/** Compiles tests/nest/fixture into a temp dir of this test file (call it at the top level of the test file). */
export function buildFixture(): Built {
  const t0 = performance.now();
  const dir = fileTempDir('gale-nest-');
  try {
    compile(dir);
  } catch (err) {
    // The file fails to load, and its after() hooks never run: remove the dir now.
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const ms = performance.now() - t0;
  return {
    dir,
    ms,
    load: (name) => import(pathToFileURL(join(dir, `${name}.js`)).href),
  };
}

function compile(dir: string): void {
  const read = ts.readConfigFile(join(fixture, 'tsconfig.json'), ts.sys.readFile);
  if (read.error !== undefined) assertNoDiagnostics([read.error]);
  const { options, errors } = ts.convertCompilerOptionsFromJson(read.config.compilerOptions, fixture);
  assertNoDiagnostics(errors);
  const { moduleResolution: _resolution, ...emitOptions } = options;
  for (const name of readdirSync(fixture)) {
    if (!name.endsWith('.ts')) continue;
    const fileName = join(fixture, name);
    const out = ts.transpileModule(readFileSync(fileName, 'utf8'), {
      // ES modules, as NodeNext makes of them under the repository's package.json (one file alone cannot tell).
      compilerOptions: {
        ...emitOptions,
        module: ts.ModuleKind.ES2022,
        noEmit: false,
        sourceMap: false,
        declaration: false,
      },
      fileName,
      reportDiagnostics: true,
    });
    assertNoDiagnostics(out.diagnostics ?? []);
    writeFileSync(join(dir, name.replace(/\.ts$/, '.js')), out.outputText);
  }
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

function assertNoDiagnostics(list: readonly ts.Diagnostic[]): void {
  if (list.length === 0) return;
  const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  throw new Error(`tests/nest/fixture does not compile:\n${ts.formatDiagnostics(list, host)}`);
}

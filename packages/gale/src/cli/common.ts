// Shared by the `gale` commands: the error type that prints without a stack, finding the app's entry file, the
// environment options (--port, --host, --env-file) and running TypeScript entries. Loads no engine.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A user-facing failure: printed as `gale: <message>`, exit code 1 (or the one given). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const TS = /\.[mc]?tsx?$/;
export const isTypeScript = (file: string): boolean => TS.test(file);

/**
 * The app's entry: the argument, else package.json `main`, else the first file that exists of `candidates`
 * (relative to `cwd`). Throws a CliError naming what was tried.
 */
export function resolveEntry(arg: string | undefined, candidates: string[], cwd = process.cwd()): string {
  if (arg !== undefined) {
    const file = resolve(cwd, arg);
    if (!existsSync(file)) throw new CliError(`entry ${arg} not found (looked for ${file})`);
    return file;
  }
  const tried: string[] = [];
  const pkgFile = join(cwd, 'package.json');
  if (existsSync(pkgFile)) {
    const main = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { main?: unknown }).main;
    if (typeof main === 'string') {
      const file = resolve(cwd, main);
      if (existsSync(file)) return file;
      tried.push(`package.json "main" (${main})`);
    }
  }
  for (const c of candidates) {
    const file = join(cwd, c);
    if (existsSync(file)) return file;
    tried.push(c);
  }
  throw new CliError(
    `no entry file given and none found in ${cwd} (tried ${tried.join(', ')}). Name it: gale start server.js`,
  );
}

/** What start and dev do with --port, --host and --env-file: they become the app's environment. */
export function applyEnv(env: NodeJS.ProcessEnv, o: { port?: string; host?: string; envFile?: string }): void {
  if (o.envFile !== undefined) {
    const file = resolve(o.envFile);
    if (!existsSync(file)) throw new CliError(`--env-file ${o.envFile}: no such file`);
    const load = (process as { loadEnvFile?: (path: string) => void }).loadEnvFile;
    if (typeof load !== 'function') throw new CliError('--env-file needs Node.js >= 20.12 (process.loadEnvFile)');
    // loadEnvFile writes process.env; copy what it set into env when env is a child's environment.
    const before = { ...process.env };
    load(file);
    for (const [k, v] of Object.entries(process.env)) if (before[k] !== v && env !== process.env) env[k] = v;
  }
  if (o.port !== undefined) {
    const n = Number(o.port);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`--port ${o.port}: a port is 0 to 65535`);
    env.PORT = String(n);
  }
  if (o.host !== undefined) env.HOST = o.host;
}

/** Node strips TypeScript types itself from 22.18 / 23.6 on (process.features.typescript). */
function nodeStripsTypes(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

/**
 * How to run a TypeScript entry: Node's own type stripping when it has it, else tsx from the app's dependencies
 * (the scaffolded app has it), as the URL `--import` / `register()` takes. Undefined for JavaScript.
 */
export function typeScriptLoader(entry: string, cwd = process.cwd()): { tsx?: string } | undefined {
  if (!isTypeScript(entry)) return undefined;
  for (const base of [join(cwd, 'package.json'), entry]) {
    try {
      return { tsx: pathToFileURL(createRequire(base).resolve('tsx')).href };
    } catch {}
  }
  if (nodeStripsTypes()) return {};
  throw new CliError(
    `${relative(cwd, entry)} is TypeScript: install tsx (npm install -D tsx), use Node.js >= 22.18, or build it ` +
      'first (npm run build) and start the JavaScript',
  );
}

/** The path as the user would type it (relative when under cwd). */
export function shown(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

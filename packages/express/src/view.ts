// Express's View (app.set('view', View)): finds a template under the `views` directories by name and
// default extension, loads the engine (`app.engine` or the module's `__express`), renders it.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';

type Engine = (path: string, options: object, cb: (err: unknown, html?: string) => void) => unknown;

const requireFromApp = createRequire(join(process.cwd(), 'index.js'));

function tryStat(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * A view as Express resolves it.
 *
 * @example
 * app.set('views', './views').set('view engine', 'ejs');
 */
export class View {
  readonly defaultEngine: string | undefined;
  readonly ext: string;
  readonly name: string;
  readonly root: string | string[];
  readonly engine: Engine;
  readonly path: string | undefined;

  constructor(
    name: string,
    options: { defaultEngine?: string; root: string | string[]; engines: Record<string, Engine> },
  ) {
    this.defaultEngine = options.defaultEngine;
    this.name = name;
    this.root = options.root;
    let ext = extname(name);
    if (!ext && !this.defaultEngine) throw new Error('No default engine was specified and no extension was provided.');
    let fileName = name;
    if (!ext) {
      const d = this.defaultEngine as string;
      ext = d[0] !== '.' ? `.${d}` : d;
      fileName += ext;
    }
    this.ext = ext;
    if (!options.engines[ext]) {
      const mod = ext.slice(1);
      const fn = (requireFromApp(mod) as { __express?: Engine }).__express;
      if (typeof fn !== 'function') throw new Error(`Module "${mod}" does not provide a view engine.`);
      options.engines[ext] = fn;
    }
    this.engine = options.engines[ext] as Engine;
    this.path = this.lookup(fileName);
  }

  lookup(name: string): string | undefined {
    let path: string | undefined;
    const roots = ([] as string[]).concat(this.root);
    for (let i = 0; i < roots.length && !path; i++) {
      const loc = resolve(roots[i] as string, name);
      path = this.resolve(dirname(loc), basename(loc));
    }
    return path;
  }

  render(options: object, callback: (err: unknown, html?: string) => void): void {
    let sync = true;
    this.engine(this.path as string, options, function (this: unknown, ...args: unknown[]) {
      if (!sync) return callback.apply(this, args as [unknown, string?]);
      process.nextTick(() => callback.apply(this, args as [unknown, string?]));
    });
    sync = false;
  }

  resolve(dir: string, file: string): string | undefined {
    const ext = this.ext;
    let path = join(dir, file);
    let stat = tryStat(path);
    if (stat?.isFile()) return path;
    path = join(dir, basename(file, ext), `index${ext}`);
    stat = tryStat(path);
    if (stat?.isFile()) return path;
    return undefined;
  }
}

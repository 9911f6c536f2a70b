// Server-side views as in Express: `app.engine(ext, fn)` registers a template engine called as
// `fn(path, data, callback)`, `views` / `view engine` say where templates live and which extension a
// bare name gets, and `res.render(name, data)` answers with the rendered HTML.
import { stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { ErrorCodes, GaleError } from './errors.js';

/**
 * A template engine with Express's signature (EJS's `renderFile`, Eta, Pug's `__express`, …).
 *
 * @example
 * app.engine('eta', (file, data, cb) => cb(null, eta.render(path.relative('./views', file), data)));
 */
export type ViewEngine = (
  path: string,
  data: Record<string, unknown>,
  callback: (err: unknown, rendered?: string) => void,
) => unknown;

/** @internal an app's view settings and engines */
export class Views {
  readonly engines = new Map<string, ViewEngine>();
  readonly locals: Record<string, unknown> = Object.create(null);
  dirs: string[] = [resolve('views')];
  defaultEngine: string | undefined;
  cache = process.env.NODE_ENV === 'production';
  private readonly found = new Map<string, [path: string, engine: ViewEngine]>();

  setDirs(dirs: string | readonly string[]): void {
    this.dirs = (typeof dirs === 'string' ? [dirs] : [...dirs]).map((d) => resolve(d));
    this.found.clear();
  }

  setDefaultEngine(ext: string): void {
    this.defaultEngine = ext.startsWith('.') ? ext : `.${ext}`;
    this.found.clear();
  }

  register(ext: string, fn: ViewEngine): void {
    if (typeof fn !== 'function') throw new TypeError('engine(ext, fn): fn must be a function');
    this.engines.set(ext.startsWith('.') ? ext : `.${ext}`, fn);
    this.found.clear();
  }

  /** Renders `name` with `data` (the app's locals underneath). */
  async render(name: string, data: Record<string, unknown>): Promise<string> {
    const [path, engine] = await this.lookup(name);
    const merged = { ...this.locals, ...data };
    return new Promise<string>((resolvePromise, reject) => {
      let settled = false;
      const done = (err: unknown, rendered?: string): void => {
        if (settled) return;
        settled = true;
        if (err) reject(err);
        else resolvePromise(rendered ?? '');
      };
      let out: unknown;
      try {
        out = engine(path, merged, done);
      } catch (err) {
        done(err);
        return;
      }
      // Engines that return instead of calling back (a string, or a promise of one).
      if (typeof out === 'string') done(null, out);
      else if (typeof (out as PromiseLike<string> | undefined)?.then === 'function') {
        (out as PromiseLike<string>).then(
          (s) => done(null, s),
          (e) => done(e ?? new Error('view engine rejected')),
        );
      }
    });
  }

  private async lookup(name: string): Promise<[string, ViewEngine]> {
    const cached = this.cache ? this.found.get(name) : undefined;
    if (cached) return cached;
    let ext = extname(name);
    let file = name;
    if (ext === '') {
      if (this.defaultEngine === undefined) {
        throw new GaleError(
          ErrorCodes.VIEW_ENGINE,
          `cannot render "${name}": no extension given and no default engine; set the viewEngine option or app.set('view engine', ext)`,
        );
      }
      ext = this.defaultEngine;
      file += ext;
    }
    const engine = this.engines.get(ext);
    if (engine === undefined) {
      throw new GaleError(
        ErrorCodes.VIEW_ENGINE,
        `no view engine for "${ext}" files; register one with app.engine('${ext.slice(1)}', fn)`,
      );
    }
    for (const dir of this.dirs) {
      const full = resolve(dir, file);
      // As Express: name.ext, then name/index.ext.
      for (const candidate of [full, join(dirname(full), basename(full, ext), `index${ext}`)]) {
        if (await isFile(candidate)) {
          const hit: [string, ViewEngine] = [candidate, engine];
          if (this.cache) this.found.set(name, hit);
          return hit;
        }
      }
    }
    throw new GaleError(
      ErrorCodes.VIEW_NOT_FOUND,
      `failed to look up view "${name}" in ${this.dirs.length === 1 ? 'views directory' : 'views directories'} ${this.dirs.map((d) => `"${d}"`).join(', ')}`,
    );
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

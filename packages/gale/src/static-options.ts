// Checks `app.static()`/`serveStatic()` options once, when the mount is made, so that none is silently ignored: the
// engine reads only the fields and types it knows (a string maxAge, a boolean immutable, an unknown dotfiles value or
// serve-static's setHeaders would otherwise do nothing). Wrong types and unknown names throw a TypeError saying what
// to write instead (GALE_ERR_INVALID_OPTION, options-check.ts); `compress` without `cache` is valid configuration that
// does nothing, so it warns.
import type { StaticOptions } from './options.js';
import { checkNames, invalidOption } from './options-check.js';

const KNOWN = [
  'index',
  'extensions',
  'fallback',
  'dotfiles',
  'maxAge',
  'immutable',
  'cache',
  'precompressed',
  'compress',
  'headers',
  'redirect',
  'etag',
  'lastModified',
  'acceptRanges',
];

/** serve-static/express.static option names, and what to do in Gale instead. */
const FOREIGN: Record<string, string> = {
  setHeaders: "Gale's engine serves files without calling JavaScript: put fixed headers in `headers: { … }`",
  fallthrough:
    'a path with no file falls through to the routes declared for it, then to the 404 (there is no switch for it)',
  cacheControl:
    'Cache-Control comes from `maxAge` and `immutable`; set `headers: { "cache-control": … }` to replace it',
  maxage: 'the option is `maxAge` (milliseconds)',
  root: 'the directory is the second argument of app.static(prefix, dir, options) (the first of serveStatic)',
};

/** Emitted (once per mount) when an option is accepted but has no effect; `process.on('warning')` sees it. */
export const STATIC_WARNING_CODE = 'GALE_STATIC_OPTION_UNUSED';

function fail(where: string, message: string): never {
  throw invalidOption(where, message);
}

function isBool(v: unknown): v is boolean | undefined {
  return v === undefined || typeof v === 'boolean';
}

/**
 * Validates and normalises static options (`where` names the call in messages). Returns the options the engine
 * will be given: `extensions` without leading dots and as an array.
 */
export function checkStaticOptions(options: unknown, where: string): StaticOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) fail(where, 'options must be an object');
  const o = options as Record<string, unknown>;
  checkNames(where, o, KNOWN, FOREIGN);
  const out = { ...o } as StaticOptions;
  if (o.maxAge !== undefined && (typeof o.maxAge !== 'number' || !Number.isFinite(o.maxAge) || o.maxAge < 0)) {
    fail(
      where,
      `maxAge is a number of milliseconds (as Express), e.g. 86_400_000 for a day; got ${JSON.stringify(o.maxAge)}`,
    );
  }
  if (o.immutable !== undefined && !(o.immutable instanceof RegExp)) {
    fail(
      where,
      'immutable is a RegExp of the file paths that get `max-age=31536000, immutable` (e.g. /\\.[0-9a-f]{8}\\./ for ' +
        `hashed names; /(?:)/ for every file); got ${JSON.stringify(o.immutable)}`,
    );
  }
  if (o.dotfiles !== undefined && o.dotfiles !== 'ignore' && o.dotfiles !== 'deny' && o.dotfiles !== 'allow') {
    fail(where, `dotfiles is 'ignore', 'deny' or 'allow'; got ${JSON.stringify(o.dotfiles)}`);
  }
  if (o.extensions !== undefined) {
    const list = typeof o.extensions === 'string' ? [o.extensions] : o.extensions;
    if (!Array.isArray(list) || !list.every((e) => typeof e === 'string' && e.replace(/^\./, '') !== '')) {
      fail(where, `extensions is a list of extensions, e.g. ['html', 'htm']; got ${JSON.stringify(o.extensions)}`);
    }
    out.extensions = list.map((e: string) => e.replace(/^\./, ''));
  }
  if (o.index !== undefined && o.index !== false && typeof o.index !== 'string') {
    if (!Array.isArray(o.index) || !o.index.every((e) => typeof e === 'string')) {
      fail(where, `index is a file name, a list of them, or false; got ${JSON.stringify(o.index)}`);
    }
  }
  if (o.fallback !== undefined && (typeof o.fallback !== 'string' || o.fallback === '')) {
    fail(
      where,
      `fallback is a file name relative to the directory, e.g. 'index.html'; got ${JSON.stringify(o.fallback)}`,
    );
  }
  if (typeof o.fallback === 'string') out.fallback = o.fallback.replace(/^[/\\]+/, '');
  for (const key of ['precompressed', 'compress', 'redirect', 'etag', 'lastModified', 'acceptRanges'] as const) {
    if (!isBool(o[key])) fail(where, `${key} is true or false; got ${JSON.stringify(o[key])}`);
  }
  const cache = o.cache;
  if (cache !== undefined && typeof cache !== 'boolean') {
    if (typeof cache !== 'object' || cache === null || Array.isArray(cache)) {
      fail(where, `cache is true, false or { maxFileSize, maxSize } (bytes); got ${JSON.stringify(cache)}`);
    }
    checkNames(where, cache, ['maxFileSize', 'maxSize'], {}, 'cache.');
    for (const [k, v] of Object.entries(cache)) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(where, `cache.${k} is a number of bytes`);
    }
  }
  if (o.headers !== undefined && (typeof o.headers !== 'object' || o.headers === null || Array.isArray(o.headers))) {
    fail(where, 'headers is an object of header names and values');
  }
  if (o.compress === true && (cache === undefined || cache === false)) {
    process.emitWarning(
      `${where}: compress has no effect without cache: the engine compresses a file when it keeps it in memory, so ` +
        'files are served uncompressed (precompressed .br/.gz siblings still are). Add `cache: true`, or drop compress.',
      { type: 'GaleWarning', code: STATIC_WARNING_CODE },
    );
  }
  return out;
}

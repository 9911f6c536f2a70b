// Static options that would do nothing are refused or warned about when the mount is made (static-options.ts):
// wrong types and serve-static's names throw a TypeError that says what to write; `compress` without `cache` warns
// (GALE_STATIC_OPTION_UNUSED) and still serves; normalised forms (extensions with a dot, a fallback with a slash)
// work over a real socket; `requestLogging: true` without a logger warns; an unknown `etag` value throws.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gale, serveStatic } from 'gale';
import { T, withApp } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'gale-static-options-'));
writeFileSync(join(dir, 'index.html'), '<h1>home</h1>');
writeFileSync(join(dir, 'about.html'), '<h1>about</h1>');
writeFileSync(join(dir, 'style.css'), `body { color: red; }\n${'/* padding */\n'.repeat(200)}`);
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Warnings emitted while fn runs (process.emitWarning is delivered on the next tick). */
async function warningsDuring(fn: () => void): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (w: Error) => seen.push(w);
  process.on('warning', listener);
  try {
    fn();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

test('wrong types and foreign option names throw a TypeError naming the call and the fix', T, () => {
  const app = gale();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ maxAge: '1d' }, /app\.static\("\/x"\): maxAge is a number of milliseconds.*86_400_000.*got "1d"/],
    [{ maxAge: -1 }, /maxAge is a number of milliseconds/],
    [{ immutable: true }, /immutable is a RegExp of the file paths.*got true/],
    [{ dotfiles: 'Allow' }, /dotfiles is 'ignore', 'deny' or 'allow'; got "Allow"/],
    [{ setHeaders: () => {} }, /unknown option 'setHeaders': .*headers: \{ … \}/],
    [{ fallthrough: false }, /unknown option 'fallthrough': a path with no file falls through to the routes/],
    [{ etag: 'strong' }, /etag is true or false; got "strong"/],
    [{ acceptRanges: 1 }, /acceptRanges is true or false; got 1/],
    [{ maxage: 1000 }, /unknown option 'maxage': the option is `maxAge`/],
    [{ cahce: true }, /unknown option 'cahce' — did you mean 'cache'\? \(known: index, extensions/],
    [
      { cache: { maxsize: 1 } },
      /unknown option 'cache\.maxsize' — did you mean 'cache\.maxSize'\? \(known: maxFileSize, maxSize\)/,
    ],
    [{ cache: { maxSize: '1mb' } }, /cache\.maxSize is a number of bytes/],
    [{ cache: 'yes' }, /cache is true, false or \{ maxFileSize, maxSize \}/],
    [{ compress: 'gzip' }, /compress is true or false; got "gzip"/],
    [{ extensions: [''] }, /extensions is a list of extensions/],
    [{ index: 3 }, /index is a file name, a list of them, or false/],
    [{ fallback: '' }, /fallback is a file name relative to the directory/],
    [{ headers: 'x-a: 1' }, /headers is an object/],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => app.static('/x', dir, options as never),
      { name: 'TypeError', code: 'GALE_ERR_INVALID_OPTION', message },
      JSON.stringify(options),
    );
  }
  assert.throws(() => serveStatic(dir, { maxAge: '1h' } as never), { message: /^serveStatic\(".*"\): maxAge/ });
  assert.throws(() => app.static('/x', '' as never), { message: /the directory must be a non-empty string/ });
});

test('compress without cache warns once for the mount, and files are still served (uncompressed)', T, async (t) => {
  let mountedApp: ReturnType<typeof gale> | undefined;
  const warnings = await warningsDuring(() => {
    mountedApp = gale();
    mountedApp.static('/nocache', dir, { compress: true });
    mountedApp.static('/cached', dir, { compress: true, cache: true });
  });
  assert.equal(warnings.length, 1, warnings.map((w) => w.message).join('\n'));
  const [w] = warnings as [Error & { code?: string }];
  assert.equal(w.name, 'GaleWarning');
  assert.equal(w.code, 'GALE_STATIC_OPTION_UNUSED');
  assert.match(w.message, /app\.static\("\/nocache"\): compress has no effect without cache.*Add `cache: true`/);
  await mountedApp?.close();
  const { port } = await withApp(t, (app) => {
    app.static('/nocache', dir, { compress: true });
  });
  const res = await fetch(`http://127.0.0.1:${port}/nocache/style.css`, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-encoding'), null);
});

test(
  'normalised forms work: extensions with a leading dot or as a string, a fallback with a leading slash',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.static('/dot', dir, { extensions: ['.html'] });
      app.static('/str', dir, { extensions: 'html' as never });
      app.static('/spa', dir, { fallback: '/index.html' });
    });
    const text = async (path: string) => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`);
      return `${r.status} ${await r.text()}`;
    };
    assert.equal(await text('/dot/about'), '200 <h1>about</h1>');
    assert.equal(await text('/str/about'), '200 <h1>about</h1>');
    assert.equal(await text('/spa/some/client/route'), '200 <h1>home</h1>');
  },
);

test('requestLogging: true without a logger warns; with a logger it does not', T, async () => {
  const apps: ReturnType<typeof gale>[] = [];
  const without = await warningsDuring(() => apps.push(gale({ requestLogging: true })));
  assert.deepEqual(
    without.map((w) => (w as Error & { code?: string }).code),
    ['GALE_REQUEST_LOGGING_NO_LOGGER'],
  );
  const logger = { info() {}, warn() {}, error() {}, child: () => logger };
  const withLogger = await warningsDuring(() => apps.push(gale({ requestLogging: true, logger })));
  assert.deepEqual(withLogger, []);
  for (const a of apps) await a.close();
});

test('an etag value gale() does not know is refused instead of turning ETags off', T, async () => {
  for (const etag of ['Weak', 'on', 1]) {
    assert.throws(() => gale({ etag: etag as never }), {
      name: 'TypeError',
      code: 'GALE_ERR_INVALID_OPTION',
      message: `gale(): option etag must be true, false, "weak" or "strong"; got ${JSON.stringify(etag)}`,
    });
  }
  const ok = gale({ etag: 'strong' });
  await ok.close();
});

// Option objects are checked when they are given: an unknown name (a typo) or a value of the wrong kind in gale(),
// serve(), listen(), app.static()/serveStatic() and app.ws() throws a TypeError with code GALE_ERR_INVALID_OPTION
// naming the option and, for an unknown one, the nearest valid name; every documented option is accepted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, type GaleOptions, gale, serve, serveStatic } from 'gale';
import { HOST, T } from '../helpers.js';

const CODE = 'GALE_ERR_INVALID_OPTION';

test('the code is exported', () => {
  assert.equal(ErrorCodes.INVALID_OPTION, CODE);
});

test('gale(): an unknown option names the nearest valid one', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ bodylimit: 1 }, "gale(): unknown option 'bodylimit' — did you mean 'bodyLimit'?"],
    [{ bodyLimt: 1 }, "gale(): unknown option 'bodyLimt' — did you mean 'bodyLimit'?"],
    [{ maxHeaderSise: 1 }, "gale(): unknown option 'maxHeaderSise' — did you mean 'maxHeaderSize'?"],
    [{ keepaliveTimeout: 1 }, "gale(): unknown option 'keepaliveTimeout' — did you mean 'keepAliveTimeout'?"],
    [{ trustproxy: true }, "gale(): unknown option 'trustproxy' — did you mean 'trustProxy'?"],
    [{ json: { limt: '1mb' } }, "gale(): unknown option 'json.limt' — did you mean 'json.limit'?"],
    [
      { compression: { treshold: 10 } },
      "gale(): unknown option 'compression.treshold' — did you mean 'compression.threshold'?",
    ],
  ];
  for (const [options, start] of cases) {
    assert.throws(
      () => gale(options as GaleOptions),
      (err: Error & { code?: string }) => {
        assert.equal(err.name, 'TypeError');
        assert.equal(err.code, CODE);
        assert.ok(err.message.startsWith(start), err.message);
        assert.match(err.message, /\(known: .*bodyLimit|\(known: /);
        return true;
      },
      JSON.stringify(options),
    );
  }
  // Nothing close: no guess, the list of names.
  assert.throws(() => gale({ zzzzzzzz: 1 } as GaleOptions), {
    code: CODE,
    message: /^gale\(\): unknown option 'zzzzzzzz' \(known: bodyLimit, maxHeaderSize, /,
  });
});

test('gale(): values of the wrong kind name the option and what it takes', () => {
  const cases: [GaleOptions, RegExp][] = [
    [{ bodyLimit: '1mb' as never }, /^gale\(\): option bodyLimit must be a number of bytes, 0 or more; got "1mb"$/],
    [{ maxConnections: 0 }, /option maxConnections must be a positive number of connections; got 0/],
    [{ headersTimeout: -1 }, /option headersTimeout must be a number of milliseconds, 0 or more; got -1/],
    [{ strictHost: 'no' as never }, /option strictHost must be true or false; got "no"/],
    [{ compression: { brotliQuality: 12 } }, /^gale\(\): option compression\.brotliQuality must be 0 to 11; got 12$/],
    [{ json: { strict: 'yes' as never } }, /option json\.strict must be true or false; got "yes"/],
    [{ query: 'fancy' as never }, /option query must be "simple" or "extended", or a function, or an object/],
    [{ etag: 'Weak' as never }, /option etag must be true, false, "weak" or "strong"; got "Weak"/],
    [{ views: 3 as never }, /option views must be a string, or a list of strings; got 3/],
    [{ logger: 'pino' as never }, /option logger must be an object; got "pino"/],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => gale(options), { name: 'TypeError', code: CODE, message }, JSON.stringify(options));
  }
  assert.throws(() => gale('fast' as never), { code: CODE, message: /^gale\(\): options must be an object/ });
});

test('gale(): every documented option is accepted (undefined values too)', async () => {
  const logger = { info() {}, warn() {}, error() {}, child: () => logger };
  // Required<>: a new option in GaleOptions fails to compile here until it is added, then fails at run time until
  // option-rules.ts has its rule.
  const all: Required<GaleOptions> = {
    bodyLimit: Infinity,
    maxHeaderSize: 16384,
    maxHeaders: 100,
    maxUriLength: 8192,
    strictHost: true,
    headersTimeout: 60_000,
    requestTimeout: 300_000,
    handlerTimeout: 30_000,
    keepAliveTimeout: 65_000,
    keepAliveHeader: true,
    decodeParams: true,
    maxConnections: 1000,
    sendTimeout: 0,
    maxWriteBuffer: 16 << 20,
    proxyProtocol: false,
    compression: { threshold: 2048, brotli: true, gzip: false, brotliQuality: 5, gzipLevel: 6 },
    reusePort: false,
    caseSensitive: false,
    strict: false,
    query: { parser: 'extended', depth: 3, parameterLimit: 100, arrayLimit: 20 },
    json: { strict: false, reviver: (_k, v) => v, limit: '1mb', strictType: true },
    urlencoded: { extended: true, depth: 5, parameterLimit: 200, limit: 4096 },
    text: { limit: '256kb', defaultCharset: 'utf-8' },
    cookieSecret: ['new', 'old'],
    trustProxy: 'loopback',
    requireLength: false,
    subdomainOffset: 2,
    development: false,
    logger,
    requestLogging: false,
    etag: 'strong',
    errorFormat: 'problem',
    views: ['./views'],
    viewEngine: 'eta',
    security: { contentSecurityPolicy: false },
  };
  const app = gale(all);
  await app.close();
  const empty = gale(Object.fromEntries(Object.keys(all).map((k) => [k, undefined])) as GaleOptions);
  await empty.close();
});

test('serve(): its own options and gale()’s, with the nearest name for a typo', async () => {
  const fetch = () => new Response('ok');
  await assert.rejects(serve({ fetch, port: 0, hostname: HOST, bodyLimt: 1 } as never), {
    code: CODE,
    message: /^serve\(\): unknown option 'bodyLimt' — did you mean 'bodyLimit'\?/,
  });
  await assert.rejects(serve({ fetch, prot: 0 } as never), {
    code: CODE,
    message: /^serve\(\): unknown option 'prot' — did you mean 'port'\?/,
  });
  await assert.rejects(serve({ fetch, port: '80' as never }), { code: CODE, message: /option port must be/ });
  const s = await serve({ fetch, port: 0, hostname: HOST, bodyLimit: 1024, overrideGlobalObjects: true });
  await s.close();
});

test('listen(): unknown names and bad values reject (or reach the callback), naming the option', T, async () => {
  const app = gale();
  await assert.rejects(app.listen({ prot: 0 } as never), {
    code: CODE,
    message: /^listen\(\): unknown option 'prot' — did you mean 'port'\?/,
  });
  await assert.rejects(app.listen({ port: 70_000 }), {
    code: CODE,
    message: /^listen\(\): option port must be a port number from 0 to 65535; got 70000/,
  });
  await assert.rejects(app.listen({ port: 0, tls: { crt: 'x' } as never }), {
    code: CODE,
    message: /unknown option 'tls\.crt' — did you mean 'tls\.cert'\?/,
  });
  await assert.rejects(app.listen({ port: 0, http2: { cleartxt: true } as never }), {
    message: /unknown option 'http2\.cleartxt' — did you mean 'http2\.cleartext'\?/,
  });
  await assert.rejects(app.listen('3000' as never), { code: CODE, message: /^listen\(\): the port must be/ });
  const err = await new Promise<Error | undefined>((resolve) => app.listen({ hots: HOST } as never, resolve));
  assert.match(String(err?.message), /unknown option 'hots' — did you mean 'host'\?/);
  const { port } = await app.listen({ port: 0, host: HOST });
  assert.ok(port > 0);
  await app.close();
});

test('app.ws(): behaviour names and values are checked', () => {
  const app = gale();
  assert.throws(() => app.ws('/chat', { mesage: () => {} } as never), {
    code: CODE,
    message: /^app\.ws\("\/chat"\): unknown option 'mesage' — did you mean 'message'\?/,
  });
  assert.throws(() => app.ws('/chat', { idleTimeout: '2m' as never }), {
    code: CODE,
    message: /option idleTimeout must be a number of seconds, 0 or more; got "2m"/,
  });
  assert.throws(() => app.ws('/chat', { compression: 'yes' as never }), {
    message: /option compression must be true, false, "shared" or "dedicated"; got "yes"/,
  });
  assert.throws(() => app.ws('/chat', { open: 'hi' as never }), { message: /option open must be a function/ });
  assert.throws(() => app.ws('/chat', { nativeAccept: 'no' as never }), { message: /option nativeAccept must be/ });
  app.ws('/ok', {
    upgrade: () => ({ user: 1 }),
    open() {},
    message() {},
    drain() {},
    close() {},
    protocols: () => undefined,
    maxPayloadLength: 1024,
    idleTimeout: 30,
    sendPings: true,
    compression: 'dedicated',
    compressionThreshold: 64,
    compressionLevel: 3,
    maxBackpressure: 1 << 20,
    closeOnBackpressureLimit: false,
    nativeAccept: false,
  });
});

test('static options: a typo gets the nearest name, foreign names keep their hint', () => {
  assert.throws(() => serveStatic('.', { cahce: true } as never), {
    code: CODE,
    message: /unknown option 'cahce' — did you mean 'cache'\?/,
  });
  assert.throws(() => serveStatic('.', { maxage: 1 } as never), {
    code: CODE,
    message: /unknown option 'maxage': the option is `maxAge`/,
  });
});

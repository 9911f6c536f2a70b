// The browser bundle of socket.io-client at `<path>/socket.io.js` (and .min, .msgpack.min, .esm.min, each with its
// source map), as socket.io serves it: from the socket.io-client package's dist, ETag "<client version>" with 304 for
// it (weak or strong), compressed br/gzip/deflate as the client accepts, CORS by the server's `cors` option.
import { readFileSync } from 'node:fs';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import accepts from 'accepts';
import cors from 'cors';
import type { App, Request, Response } from 'gale';
import type { BaseServerOptions } from './types.js';

const FILES = [
  'socket.io.js',
  'socket.io.js.map',
  'socket.io.min.js',
  'socket.io.min.js.map',
  'socket.io.msgpack.min.js',
  'socket.io.msgpack.min.js.map',
  'socket.io.esm.min.js',
  'socket.io.esm.min.js.map',
] as const;
const NAMES: ReadonlySet<string> = new Set(FILES);
const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
type Encoding = (typeof ENCODINGS)[number];

const require = createRequire(import.meta.url);
const clientDir = join(dirname(require.resolve('socket.io-client/package.json')), 'dist');
/** The ETag of every file: the client's version, quoted (socket.io uses its own version, released with the client's). */
const ETAG = `"${(require('socket.io-client/package.json') as { version: string }).version}"`;
const WEAK = `W/${ETAG}`;

/** File bytes, and their compressed forms, read and compressed once on first request. */
const cache = new Map<string, Buffer>();
function bytes(name: string, encoding: Encoding | undefined): Buffer {
  const key = `${name}\0${encoding ?? ''}`;
  let b = cache.get(key);
  if (b === undefined) {
    const plain = encoding === undefined ? readFileSync(join(clientDir, name)) : bytes(name, undefined);
    b =
      encoding === 'br'
        ? brotliCompressSync(plain)
        : encoding === 'gzip'
          ? gzipSync(plain)
          : encoding === 'deflate'
            ? deflateSync(plain)
            : plain;
    cache.set(key, b);
  }
  return b;
}

/** The bundle file a URL under `path` names, if it is one. */
function fileOf(url: string, path: string): string | undefined {
  if (!url.startsWith(`${path}/`)) return undefined;
  const name = url.slice(path.length + 1).split('?')[0] as string;
  return NAMES.has(name) ? name : undefined;
}

/** What an answer carries: status, headers and body (none for a 304). */
function answer(name: string, ifNoneMatch: string | undefined, encoding: string | false) {
  if (ifNoneMatch === ETAG || ifNoneMatch === WEAK) return { status: 304, headers: {}, body: undefined };
  const headers: Record<string, string> = {
    'Cache-Control': 'public, max-age=0',
    'Content-Type': `application/${name.endsWith('.map') ? 'json' : 'javascript'}; charset=utf-8`,
    ETag: ETAG,
    Vary: 'Accept-Encoding',
  };
  const enc = ENCODINGS.find((e) => e === encoding);
  if (enc !== undefined) headers['Content-Encoding'] = enc;
  return { status: 200, headers, body: bytes(name, enc) };
}

type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The cors middleware of `opts.cors`, as socket.io applies it to the bundle. */
function corsOf(opts: BaseServerOptions): NodeMiddleware | undefined {
  if (!opts.cors) return undefined;
  // biome-ignore lint/suspicious/noExplicitAny: the cors package's options, as socket.io passes them
  return cors(opts.cors as any) as NodeMiddleware;
}

/**
 * Serves the bundle on a node:http server: its request listeners (Engine.IO's among them) are wrapped, as socket.io's
 * attachServe does, so the bundle's URLs are answered first and everything else goes on as before.
 */
export function serveClientOnNodeServer(server: HttpServer, path: string, opts: BaseServerOptions): void {
  const others = server.listeners('request').slice(0) as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  const withCors = corsOf(opts);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const name = fileOf(req.url ?? '/', path);
    if (name === undefined) {
      for (const listener of others) listener.call(server, req, res);
      return;
    }
    const send = (): void => {
      const a = answer(name, req.headers['if-none-match'], accepts(req).encodings([...ENCODINGS]));
      res.writeHead(a.status, a.headers);
      res.end(a.body);
    };
    if (withCors === undefined) send();
    else withCors(req, res, send);
  });
}

/** Serves the bundle on a Gale app, one route per file (registered before the Engine.IO routes). */
export function serveClientOnApp(app: App, path: string, opts: BaseServerOptions): void {
  const withCors = corsOf(opts) as unknown as ((req: Request, res: Response, next: () => void) => void) | undefined;
  for (const name of FILES) {
    app.get(`${path}/${name}`, (req: Request, res: Response) => {
      const send = (): void => {
        const a = answer(name, req.get('if-none-match'), req.acceptsEncodings([...ENCODINGS]));
        res.status(a.status);
        for (const [k, v] of Object.entries(a.headers)) res.header(k, v);
        res.end(a.body);
      };
      if (withCors === undefined) send();
      else withCors(req, res, send);
    });
  }
}

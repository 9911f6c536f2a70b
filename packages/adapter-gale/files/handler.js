// @ts-check
// The built app as a Gale router (`handler`): client assets and prerendered pages as native static mounts (never
// entering JavaScript), everything else through SvelteKit's `server.respond()` as a fetch handler. The adapter
// bundles this file; SERVER (SvelteKit's server instance) and the ADAPTER_GALE_* placeholders are replaced then
// (see ../index.js).
import { server } from 'SERVER';
import path from 'node:path';
import process from 'node:process';
import { createReadableStream } from '@sveltejs/kit/node';
import { HttpError, router, serveStatic, toHandler } from 'gale';
import { dir, env, env_prefix, parse_as_bytes, parse_origin } from './env.js';

/**
 * What the adapter found at build time (paths relative to the output directory).
 * @type {{
 *   immutable: { prefix: string; dir: string } | null;
 *   mounts: [url: string, dir: string, name: string][];
 *   files: [pathname: string, file: string][];
 *   prerendered: string[];
 * }}
 */
const layout = ADAPTER_GALE_STATIC;

/** @type {boolean} */
const precompressed = ADAPTER_GALE_PRECOMPRESS;

/**
 * Built with SvelteKit 3: files answer GET and HEAD only (405 otherwise) and the trailing-slash redirect of a
 * prerendered page is relative, as adapter-node 6 does; under SvelteKit 2, adapter-node 5's sirv served files to any
 * method and redirected to the absolute path.
 */
const kit3 = ADAPTER_GALE_KIT === 3;

// ORIGIN, else SvelteKit 3's `paths.origin` (adapter-node 6 reads only the latter; the variable still wins here).
const origin = parse_origin(env('ORIGIN', undefined)) ?? ADAPTER_GALE_ORIGIN ?? undefined;
const xff_depth = Number.parseInt(env('XFF_DEPTH', '1'), 10);
const address_header = env('ADDRESS_HEADER', '').toLowerCase();
const protocol_header = env('PROTOCOL_HEADER', '').toLowerCase();
const host_header = env('HOST_HEADER', '').toLowerCase();
const port_header = env('PORT_HEADER', '').toLowerCase();

/** BODY_SIZE_LIMIT in bytes (512K by default, `Infinity` for none), as adapter-node reads it. */
export const body_size_limit = parse_as_bytes(env('BODY_SIZE_LIMIT', '512K'));
if (Number.isNaN(body_size_limit)) {
  throw new Error(`Invalid BODY_SIZE_LIMIT: '${env('BODY_SIZE_LIMIT', '')}'. Please provide a numeric value.`);
}

await server.init({
  env: /** @type {Record<string, string>} */ (process.env),
  read: (file) => createReadableStream(path.join(dir, 'client', file)),
});

/**
 * One header's value; a header sent more than once where one is expected is an error (as adapter-node).
 * @param {string} name
 * @param {string | string[] | undefined} value
 * @returns {string | undefined}
 */
function single(name, value) {
  if (!Array.isArray(value)) return value;
  if (value.length <= 1) return value[0];
  throw new Error(`Multiple values provided for ${name} header where only one expected: ${value}`);
}

/**
 * The request's origin from ORIGIN, or from PROTOCOL_HEADER / HOST_HEADER / PORT_HEADER and Host. Protocol
 * defaults to https, as in adapter-node: set ORIGIN (or PROTOCOL_HEADER behind a proxy) when serving plain http,
 * or SvelteKit refuses form posts as cross-site.
 * @param {import('gale').Request} req
 * @returns {string}
 */
function request_origin(req) {
  const headers = req.headers;
  try {
    const protocol = decodeURIComponent(single(protocol_header, headers[protocol_header]) || 'https');
    if (protocol.includes(':')) {
      throw new Error(`The ${protocol_header} header specified ${protocol}, which includes ':'`);
    }
    const host = single(host_header, headers[host_header]) || single('host', headers.host);
    if (!host) {
      throw new Error(`Could not determine host: the request has no ${host_header || 'host'} header`);
    }
    const port = single(port_header, headers[port_header]);
    if (port && Number.isNaN(+port)) throw new Error(`The ${port_header} header specified ${port}, not a port`);
    return port ? `${protocol}://${host}:${port}` : `${protocol}://${host}`;
  } catch (err) {
    // adapter-node answers these with a bare "Bad Request"; the reason is worth telling the client.
    throw new HttpError(400, `Bad Request: ${err instanceof Error ? err.message : err}`);
  }
}

/**
 * event.getClientAddress(): ADDRESS_HEADER (with XFF_DEPTH for X-Forwarded-For), else Gale's `req.ip` (the
 * socket's peer, or what the app's `trustProxy` option makes of the proxy headers).
 * @param {import('gale').Request} req
 * @returns {string}
 */
function client_address(req) {
  if (!address_header) return req.ip;
  const raw = req.headers[address_header];
  if (raw === undefined) {
    throw new Error(
      `Address header was specified with ${env_prefix}ADDRESS_HEADER=${address_header} but is absent from request`,
    );
  }
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (address_header !== 'x-forwarded-for') return value;
  const addresses = value.split(',');
  if (!(xff_depth >= 1)) throw new Error(`${env_prefix}XFF_DEPTH must be a positive integer`);
  if (xff_depth > addresses.length) {
    throw new Error(`${env_prefix}XFF_DEPTH is ${xff_depth}, but only found ${addresses.length} addresses`);
  }
  return /** @type {string} */ (addresses[addresses.length - xff_depth]).trim();
}

/**
 * SvelteKit's answer to one request.
 * @param {Request} request
 * @param {import('gale').FetchInfo} info
 * @returns {Promise<Response>}
 */
async function respond(request, info) {
  const req = info.req;
  const length = Number(req.headers['content-length']);
  if (length > body_size_limit) {
    throw new HttpError(413, `Content-length of ${length} exceeds limit of ${body_size_limit} bytes.`);
  }
  const response = await server.respond(request, {
    platform: { req, res: info.res },
    getClientAddress: () => client_address(req),
  });
  // Proxies such as nginx buffer responses unless told not to, which would hold back server-sent events.
  if (response.headers.get('content-type') === 'text/event-stream') response.headers.set('x-accel-buffering', 'no');
  return response;
}

const ssr = toHandler(respond, { origin: origin ?? request_origin });

/**
 * Every file served at a path, by decoded pathname: those without a native mount (see layout.js: a route below
 * them, an unusual name, `/`) for every method, the mounted ones for methods other than GET and HEAD, which the
 * mounts leave to this route (adapter-node 5's sirv serves files whatever the method; 6 answers them 405).
 */
const files = new Map(layout.files.map(([pathname, file]) => [pathname, path.join(dir, file)]));
for (const [url, fileDir, name] of layout.mounts) files.set(url, path.join(dir, fileDir, name));
/** Prerendered paths (decoded, without trailing slash): `path/` is redirected to them with 308, as adapter-node. */
const prerendered = new Set(layout.prerendered);

/**
 * The catch-all route: the file served at this path if there is one, the 308 of a prerendered page asked for with a
 * trailing slash, else SvelteKit.
 * @param {import('gale').Request} req
 * @param {import('gale').Response} res
 */
function fallback(req, res) {
  let pathname = req.path;
  try {
    pathname = decodeURIComponent(pathname);
  } catch {
    // not a valid escape: SvelteKit answers it
  }
  const file = files.get(pathname);
  if (file !== undefined) {
    if (kit3 && req.method !== 'GET' && req.method !== 'HEAD') {
      res.status(405).header('allow', 'GET, HEAD');
      return res.end();
    }
    return res.sendFile(file, { dotfiles: 'allow' });
  }
  if (pathname.length > 1 && pathname.endsWith('/') && prerendered.has(pathname.slice(0, -1))) {
    const raw = req.path.slice(0, -1);
    const query = req.originalUrl.indexOf('?');
    // Relative under SvelteKit 3, so a path prefix a proxy stripped survives (`../blog` from `/blog/`).
    const target = kit3 ? `../${raw.slice(raw.lastIndexOf('/') + 1)}` : raw;
    res.status(308).header('location', query === -1 ? target : target + req.originalUrl.slice(query));
    return res.end();
  }
  return ssr(req, res);
}

/**
 * The SvelteKit app as a Gale router: `app.use(handler)`. Routes, WebSocket routes and static mounts of the app
 * win over SvelteKit's pages wherever they match, whatever the order they were added in.
 *
 * @example
 * import { gale } from 'gale';
 * import { handler } from './build/handler.js';
 * const app = gale();
 * app.get('/healthz', () => 'ok');
 * app.ws('/live', { message: (ws, data) => ws.send(data) });
 * app.use(handler);
 * await app.listen(3000);
 */
export const handler = router();

if (layout.immutable) {
  handler.use(
    layout.immutable.prefix,
    serveStatic(path.join(dir, layout.immutable.dir), { immutable: /^/, cache: true, precompressed }),
  );
}
for (const [url, fileDir, name] of layout.mounts) {
  // One mount per file: its own directory holds only it (and its .br/.gz), served as the directory's index.
  handler.use(
    url,
    serveStatic(path.join(dir, fileDir), { index: [name], redirect: false, cache: true, precompressed }),
  );
}
handler.all('/', fallback);
handler.all('/*path', fallback);

export { server };

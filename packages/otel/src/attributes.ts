// The HTTP server semantic conventions (stable, v1.23 and later) for one Gale request: span name and attributes
// at the start, the status attributes at the end. Pure functions of gale's RequestTrace; no OpenTelemetry SDK.
import type { Attributes } from '@opentelemetry/api';
import type { RequestTrace } from 'gale';

/** The methods the conventions know by name; any other is reported as `_OTHER` (with the original beside it). */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]);

/**
 * `GET`, or `_OTHER` for a method the conventions do not list.
 *
 * @example
 * normalMethod('GET'); // 'GET'
 * normalMethod('PURGE'); // '_OTHER'
 */
export function normalMethod(method: string): string {
  return KNOWN_METHODS.has(method) ? method : '_OTHER';
}

/**
 * `{method} {http.route}`, or the method alone without a route (`HTTP` for an unknown method), as the conventions say.
 *
 * @example
 * import { tracingChannel } from 'node:diagnostics_channel';
 * import type { RequestTrace } from 'gale';
 * tracingChannel<unknown, RequestTrace>('gale.request').subscribe({
 *   start() {}, end() {}, asyncStart() {}, error() {},
 *   asyncEnd: (trace) => console.log(spanName(trace)), // 'GET /users/:id'
 * });
 */
export function spanName(trace: RequestTrace): string {
  const method = normalMethod(trace.method);
  const shown = method === '_OTHER' ? 'HTTP' : method;
  return trace.route === undefined ? shown : `${shown} ${trace.route}`;
}

/** `server.port` from the Host header's port, else the scheme's default. */
function portOf(host: string | undefined, scheme: string): number | undefined {
  const m = host === undefined ? null : /:(\d{1,5})$/.exec(host);
  if (m) return Number(m[1]);
  return scheme === 'https' ? 443 : scheme === 'http' ? 80 : undefined;
}

/**
 * The attributes known when the request starts. Reads the request's headers and connection, so call it while the
 * request is live (in `start`).
 *
 * @example
 * import { tracingChannel } from 'node:diagnostics_channel';
 * import type { RequestTrace } from 'gale';
 * tracingChannel<unknown, RequestTrace>('gale.request').subscribe({
 *   start: (trace) => console.log(startAttributes(trace)['url.path']),
 *   end() {}, asyncStart() {}, asyncEnd() {}, error() {},
 * });
 */
export function startAttributes(trace: RequestTrace): Attributes {
  const req = trace.request;
  const method = normalMethod(trace.method);
  const scheme = req.protocol;
  const q = trace.url.indexOf('?');
  const attrs: Attributes = {
    'http.request.method': method,
    'url.path': trace.path,
    'url.scheme': scheme,
  };
  if (method !== trace.method) attrs['http.request.method_original'] = trace.method;
  if (q !== -1) attrs['url.query'] = trace.url.slice(q + 1);
  if (trace.route !== undefined) attrs['http.route'] = trace.route;
  const hostname = req.hostname;
  if (hostname !== undefined && hostname !== '') {
    attrs['server.address'] = hostname;
    const port = portOf(req.host, scheme);
    if (port !== undefined) attrs['server.port'] = port;
  }
  const version = req.httpVersion;
  // Semantic conventions write HTTP/2 and HTTP/3 as "2" and "3".
  attrs['network.protocol.version'] = version === '2.0' ? '2' : version === '3.0' ? '3' : version;
  const ua = req.get('user-agent');
  if (ua !== undefined) attrs['user_agent.original'] = ua;
  const client = req.ip;
  if (client !== '') attrs['client.address'] = client;
  const peer = req.remoteAddress;
  if (peer !== '') attrs['network.peer.address'] = peer;
  const peerPort = req.remotePort;
  if (peerPort !== undefined) attrs['network.peer.port'] = peerPort;
  return attrs;
}

/** The error's type name for `error.type` (the conventions' `_OTHER` when there is none to give). */
export function errorType(error: unknown): string {
  if (error instanceof Error) return error.constructor.name === 'Error' ? error.name : error.constructor.name;
  return '_OTHER';
}

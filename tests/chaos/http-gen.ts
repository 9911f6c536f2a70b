// HTTP/1.x requests for the live fuzzer, built from the grammar of RFC 9112 with the demo's routes, then
// bent: odd methods, targets and versions, conflicting or malformed framing headers, chunked bodies with
// extensions and trailers, long and odd header values. No I/O here.
import type { Rng } from './rng.js';

const ROUTES = [
  '/',
  '/json',
  '/text',
  '/hello/test',
  '/hello/%E4%B8%96%E7%95%8C',
  '/hello/%zz',
  '/body',
  '/mw',
  '/stream',
  '/static/index.html',
  '/static/large.bin',
  '/static/',
  '/static/../../etc/passwd',
  '/static/%2e%2e/%2e%2e/etc/passwd',
  '/prerendered.html',
  '/prerendered',
  '/health',
  '/echo',
  '/fws',
  '/broadcast',
  '/nope',
  '//',
  '*',
  'http://127.0.0.1/json',
];

const METHODS: readonly (readonly [number, string])[] = [
  [50, 'GET'],
  [20, 'POST'],
  [6, 'HEAD'],
  [4, 'PUT'],
  [3, 'DELETE'],
  [3, 'OPTIONS'],
  [2, 'PATCH'],
  [1, 'CONNECT'],
  [1, 'TRACE'],
  [1, 'get'],
  [1, 'G\x00T'],
  [1, 'X'.repeat(300)],
];

const VERSIONS: readonly (readonly [number, string])[] = [
  [92, 'HTTP/1.1'],
  [8, 'HTTP/1.0'],
  [2, 'HTTP/2.0'],
  [1, 'HTTP/1.2'],
  [1, 'HTTP/1'],
  [1, 'http/1.1'],
  [1, ''],
  [1, 'HTTP/1.1 extra'],
];

const GOOD_HEADERS = [
  'Connection: close',
  'Connection: keep-alive',
  'Range: bytes=0-1023',
  'Range: bytes=0-1,5-7,-3',
  'Range: bytes=99999999-',
  'If-None-Match: W/"x"',
  'If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT',
  'Accept-Encoding: br, gzip;q=0.5',
  'Accept: application/json',
  'Cookie: a=1; b=%zz; c',
  'X-Empty:',
  'X-Forwarded-For: 1.2.3.4, 5.6.7.8',
  'Expect: 100-continue',
  'User-Agent: gale-chaos',
];

const BAD_HEADERS = [
  'Connection: Upgrade',
  'Upgrade: websocket',
  'Expect: nonsense',
  'X-Odd: \x01\x02',
  'X-Fold: a\r\n b',
  'Bad Name: x',
  ': nameless',
  'Sec-WebSocket-Version: 13',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
];

function target(rng: Rng): string {
  let t = rng.pick(ROUTES);
  if (rng.chance(0.2)) t += `?${['', 'a=1', 'a=1&a=2&b', 'x[y]=z', '%%', '&&=&', 'q=%00'][rng.int(7)]}`;
  if (rng.chance(0.03)) t += '/x'.repeat(rng.range(100, 6000));
  if (rng.chance(0.02)) t = t.replace('/', '/\x7f');
  return t;
}

function chunkedBody(rng: Rng, body: Buffer): string {
  let out = '';
  let pos = 0;
  while (pos < body.length) {
    const n = Math.min(body.length - pos, rng.range(1, 300));
    const ext = rng.chance(0.2) ? rng.pick([';a', ';a=b', ' ;a="q"', ';', ' ', ';a b']) : '';
    const hex = n.toString(16);
    out += `${rng.chance(0.5) ? hex.toUpperCase() : hex}${ext}\r\n${body.subarray(pos, pos + n).toString('latin1')}\r\n`;
    pos += n;
  }
  out += rng.chance(0.2) ? '0\r\nX-Trailer: t\r\n\r\n' : '0\r\n\r\n';
  return out;
}

function body(rng: Rng): Buffer {
  switch (rng.int(5)) {
    case 0:
      return Buffer.from(JSON.stringify({ a: 1, b: [rng.int(100)], s: 'x'.repeat(rng.size(2000)) }));
    case 1:
      return Buffer.from(`{"bad": ${'['.repeat(rng.range(1, 200))}`);
    case 2:
      return Buffer.from('a=1&b=2&c=%zz');
    case 3:
      return Buffer.alloc(0);
    default:
      return rng.bytes(rng.size(70_000));
  }
}

/** One request, mostly well-formed, sometimes with framing that must be refused. */
export function httpRequest(rng: Rng): Buffer {
  const method = rng.weighted(METHODS);
  const version = rng.weighted(VERSIONS);
  const lines: string[] = [];
  if (!rng.chance(0.02)) lines.push(`Host: ${rng.chance(0.97) ? '127.0.0.1' : rng.pick(['', 'a b', 'x'.repeat(300)])}`);
  const b = method === 'GET' || method === 'HEAD' ? (rng.chance(0.1) ? body(rng) : null) : body(rng);
  let payload = '';
  if (b !== null) {
    const framing = rng.weighted([
      [70, 'length'],
      [25, 'chunked'],
      [3, 'both'],
      [2, 'two-lengths'],
      [2, 'bad-length'],
      [2, 'gzip'],
      [2, 'short'],
      [2, 'none'],
    ] as const);
    const bytes = b.toString('latin1');
    if (framing === 'length' || framing === 'short') {
      lines.push(`Content-Length: ${b.length + (framing === 'short' ? rng.range(1, 100) : 0)}`);
      payload = bytes;
    } else if (framing === 'chunked') {
      lines.push('Transfer-Encoding: chunked');
      payload = chunkedBody(rng, b);
    } else if (framing === 'both') {
      lines.push(`Content-Length: ${b.length}`, 'Transfer-Encoding: chunked');
      payload = chunkedBody(rng, b);
    } else if (framing === 'two-lengths') {
      lines.push(`Content-Length: ${b.length}`, `Content-Length: ${b.length + 1}`);
      payload = bytes;
    } else if (framing === 'bad-length') {
      lines.push(`Content-Length: ${rng.pick(['-1', '1e3', '0x10', ' 5', '99999999999999999999', '', '+3'])}`);
      payload = bytes;
    } else if (framing === 'gzip') {
      lines.push(`Transfer-Encoding: ${rng.pick(['gzip', 'gzip, chunked', 'chunked, gzip', 'chunked, chunked'])}`);
      payload = chunkedBody(rng, b);
    } else payload = bytes;
    if (rng.chance(0.5))
      lines.push(
        `Content-Type: ${rng.pick(['application/json', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream'])}`,
      );
  }
  const extra = rng.range(0, 5);
  for (let i = 0; i < extra; i++) lines.push(rng.pick(GOOD_HEADERS));
  // Now and then one header a strict server must refuse, or one at the size limits.
  if (rng.chance(0.1)) lines.splice(rng.int(lines.length + 1), 0, rng.pick(BAD_HEADERS));
  if (rng.chance(0.05)) lines.push(`X-Long: ${'v'.repeat(rng.size(20_000))}`);
  if (rng.chance(0.02)) for (let i = 0; i < rng.range(90, 130); i++) lines.push(`X-H${i}: ${i}`);
  const head = `${method} ${target(rng)} ${version}\r\n${lines.join('\r\n')}${lines.length ? '\r\n' : ''}\r\n`;
  return Buffer.from(head + payload, 'latin1');
}

// HttpArena's validation (its scripts/validate.sh at commit 28606baf) for the arena's HTTP/1.1 profiles, ported check
// by check: a server that fails one is FAILED for that profile with the check's label and what it answered. Runs
// before any load; the load runs check every answer again (arena.lua).
import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import {
  type Answer,
  type Check,
  fail,
  headerMatches,
  jsonProblem,
  pass,
  request,
  type Step,
  show,
} from './check-http.ts';
import { STATIC_FILES, UPLOAD_SIZES } from './profiles.ts';
import { crudChecks } from './validate-crud.ts';
import { tlsH2Checks } from './validate-h2.ts';

export { type Check, headerMatches, jsonProblem, request };

/** The body decoded as curl --compressed does (gzip, br, deflate), or as is. */
export function decoded(a: Answer): Buffer {
  const enc = String(a.headers['content-encoding'] ?? '')
    .toLowerCase()
    .trim();
  if (enc === 'gzip') return gunzipSync(a.body);
  if (enc === 'br') return brotliDecompressSync(a.body);
  if (enc === 'deflate') return inflateSync(a.body);
  return a.body;
}

/**
 * Sends a request in several writes 30 ms apart (validate.sh's check_fragmented) and reads until the server closes;
 * returns the body (de-chunked) trimmed, or '' when the answer did not come.
 */
export function fragmented(port: number, frags: string[]): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, noDelay: true });
    const got: Buffer[] = [];
    const timer = setTimeout(() => s.destroy(), 5000);
    s.on('connect', async () => {
      for (let i = 0; i < frags.length; i++) {
        s.write(Buffer.from(frags[i] as string, 'latin1'));
        if (i < frags.length - 1) await new Promise((r) => setTimeout(r, 30));
      }
    });
    s.on('data', (d) => got.push(d));
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve(bodyOf(Buffer.concat(got).toString('latin1')).trim());
    });
  });
}

/** The body of one raw HTTP/1.1 answer, de-chunked (validate.sh's parser). */
export function bodyOf(resp: string): string {
  const at = resp.indexOf('\r\n\r\n');
  if (at < 0) return '';
  const headers = new Map<string, string>();
  for (const line of resp.slice(0, at).split('\r\n').slice(1)) {
    const c = line.indexOf(':');
    if (c > 0) headers.set(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
  }
  let raw = resp.slice(at + 4);
  if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') {
    const parts: string[] = [];
    for (;;) {
      const nl = raw.indexOf('\r\n');
      if (nl < 0) break;
      const size = Number.parseInt((raw.slice(0, nl).split(';')[0] as string).trim(), 16);
      if (!Number.isFinite(size) || size === 0) break;
      parts.push(raw.slice(nl + 2, nl + 2 + size));
      raw = raw.slice(nl + 2 + size + 2);
    }
    return parts.join('');
  }
  const cl = headers.get('content-length');
  return cl === undefined ? raw : raw.slice(0, Number(cl));
}

function bodyIs(port: number, label: string, expected: string, o: Parameters<typeof request>[1]): Step {
  return async () => {
    const a = await request(port, o);
    const body = a.body.toString('utf8').trim();
    return body === expected
      ? pass(label)
      : fail(label, `expected body ${show(expected)}, got ${a.status} ${show(body)}`);
  };
}

function headerIs(port: number, label: string, name: string, expected: string, o: Parameters<typeof request>[1]): Step {
  return async () => {
    const v = (await request(port, o)).headers[name.toLowerCase()];
    const value = Array.isArray(v) ? v.join(', ') : v;
    return headerMatches(value, expected)
      ? pass(label)
      : fail(label, `expected ${name} ${expected}, got ${show(value ?? '')}`);
  };
}

function fragmentedIs(port: number, label: string, expected: string, frags: string[]): Step {
  return async () => {
    const body = await fragmented(port, frags);
    return body === expected ? pass(label) : fail(label, `expected body ${show(expected)}, got ${show(body)}`);
  };
}

const q = '/baseline11?a=13&b=42';
const text = { 'Content-Type': 'text/plain' };

function baselineChecks(port: number): Step[] {
  const a = randomInt(100, 1000);
  const b = randomInt(100, 1000);
  const b1 = randomInt(100, 1000);
  let b2 = randomInt(100, 1000);
  while (b2 === b1) b2 = randomInt(100, 1000);
  const post = 'POST /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n';
  return [
    bodyIs(port, 'GET /baseline11?a=13&b=42', '55', { path: q }),
    bodyIs(port, 'POST /baseline11?a=13&b=42 body=20', '75', { method: 'POST', path: q, headers: text, body: '20' }),
    bodyIs(port, 'POST /baseline11?a=13&b=42 chunked body=20', '75', {
      method: 'POST',
      path: q,
      headers: { ...text, 'Transfer-Encoding': 'chunked' },
      body: '20',
    }),
    headerIs(port, 'GET /baseline11 Content-Type', 'Content-Type', 'text/plain', { path: q }),
    headerIs(port, 'POST /baseline11 Content-Type', 'Content-Type', 'text/plain', {
      method: 'POST',
      path: q,
      headers: text,
      body: '20',
    }),
    bodyIs(port, `GET /baseline11?a=${a}&b=${b} (random)`, String(a + b), { path: `/baseline11?a=${a}&b=${b}` }),
    bodyIs(port, `POST body=${b1} (cache check 1)`, String(55 + b1), {
      method: 'POST',
      path: q,
      headers: text,
      body: String(b1),
    }),
    bodyIs(port, `POST body=${b2} (cache check 2)`, String(55 + b2), {
      method: 'POST',
      path: q,
      headers: text,
      body: String(b2),
    }),
    fragmentedIs(port, 'GET /baseline11 — split request line', '55', [
      'GET /baseli',
      'ne11?a=13&b=42 HTTP/1.1\r\n',
      'Host: localhost\r\nConnection: close\r\n\r\n',
    ]),
    fragmentedIs(port, 'GET /baseline11 — split before headers', '55', [
      'GET /baseline11?a=13&b=42 HTTP/1.1\r\n',
      'Host: localhost\r\n',
      'User-Agent: arena-frag/1.0\r\n',
      'Connection: close\r\n\r\n',
    ]),
    fragmentedIs(port, 'POST /baseline11 — split headers/body', '75', [
      `${post}Content-Length: 2\r\nConnection: close\r\n\r\n`,
      '20',
    ]),
    fragmentedIs(port, 'POST /baseline11 — split body bytes', '75', [
      `${post}Content-Length: 2\r\nConnection: close\r\n\r\n`,
      '2',
      '0',
    ]),
  ];
}

function jsonChecks(port: number): Step[] {
  return [
    async () => {
      const bad: string[] = [];
      for (const [n, m] of [
        [12, 3],
        [22, 7],
        [31, 2],
        [50, 5],
      ] as const) {
        const p = jsonProblem((await request(port, { path: `/json/${n}?m=${m}` })).body, n, m);
        if (p) bad.push(`/json/${n}?m=${m}: ${p}`);
      }
      const label = 'GET /json/{count}?m=X (4 counts with multipliers)';
      return bad.length ? fail(label, bad.join('; ')) : pass(label);
    },
    headerIs(port, 'GET /json Content-Type', 'Content-Type', 'application/json', { path: '/json/50?m=1' }),
  ];
}

function jsonCompChecks(port: number): Step[] {
  const ae = { 'Accept-Encoding': 'gzip, br' };
  return [
    async () => {
      const a = await request(port, { path: '/json/50?m=1', headers: ae });
      const enc = String(a.headers['content-encoding'] ?? '')
        .toLowerCase()
        .split(/\s/)[0];
      const label = 'json-comp Content-Encoding';
      return enc === 'gzip' || enc === 'br' ? pass(label) : fail(label, `expected gzip or br, got ${show(enc ?? '')}`);
    },
    async () => {
      const bad: string[] = [];
      for (const [n, m] of [
        [25, 3],
        [40, 7],
        [50, 2],
      ] as const) {
        const a = await request(port, { path: `/json/${n}?m=${m}`, headers: ae });
        let p: string | null;
        try {
          p = jsonProblem(decoded(a), n, m);
        } catch (e) {
          p = `could not decode the ${String(a.headers['content-encoding'])} body: ${(e as Error).message}`;
        }
        if (p) bad.push(`/json/${n}?m=${m}: ${p}`);
      }
      const label = 'json-comp response (3 counts with multipliers, compressed)';
      return bad.length ? fail(label, bad.join('; ')) : pass(label);
    },
    async () => {
      const enc = (await request(port, { path: '/json/50?m=1' })).headers['content-encoding'];
      const label = 'json-comp per-request (no Content-Encoding without Accept-Encoding)';
      return enc === undefined ? pass(label) : fail(label, `got Content-Encoding: ${enc}`);
    },
  ];
}

function uploadChecks(port: number, uploads: Record<keyof typeof UPLOAD_SIZES, string>): Step[] {
  const octets = { 'Content-Type': 'application/octet-stream' };
  const small = 'Hello, HttpArena!';
  const random = randomBytes(64).toString('base64').slice(0, 48);
  return [
    bodyIs(port, 'POST /upload small body', String(small.length), {
      method: 'POST',
      path: '/upload',
      headers: octets,
      body: small,
    }),
    bodyIs(port, 'POST /upload random body', String(random.length), {
      method: 'POST',
      path: '/upload',
      headers: octets,
      body: random,
    }),
    async () => {
      const bad: string[] = [];
      for (const [k, size] of Object.entries(UPLOAD_SIZES) as [keyof typeof UPLOAD_SIZES, number][]) {
        const a = await request(port, {
          method: 'POST',
          path: '/upload',
          headers: octets,
          body: readFileSync(uploads[k]),
        });
        const got = a.body.toString('utf8').trim();
        if (got !== String(size)) bad.push(`${k}: expected ${size}, got ${a.status} ${show(got)}`);
      }
      const label = 'POST /upload (4 sizes: 500K, 2M, 10M, 20M)';
      return bad.length ? fail(label, bad.join('; ')) : pass(label);
    },
  ];
}

function staticChecks(port: number, dataDir: string): Step[] {
  const size = (f: string) => readFileSync(join(dataDir, 'static', f)).length;
  return [
    headerIs(port, 'GET /static/reset.css Content-Type', 'Content-Type', 'text/css', { path: '/static/reset.css' }),
    headerIs(port, 'GET /static/app.js Content-Type', 'Content-Type', 'application/javascript', {
      path: '/static/app.js',
    }),
    headerIs(port, 'GET /static/manifest.json Content-Type', 'Content-Type', 'application/json', {
      path: '/static/manifest.json',
    }),
    async () => {
      const bad: string[] = [];
      for (const f of STATIC_FILES) {
        const got = (await request(port, { path: `/static/${f}` })).body.length;
        if (got !== size(f)) bad.push(`${f}: expected ${size(f)} bytes, got ${got}`);
      }
      const label = 'static file sizes (20 files)';
      return bad.length ? fail(label, bad.join('; ')) : pass(label);
    },
    async () => {
      // curl --compressed's Accept-Encoding (Debian 12's curl): a compressed answer must decode to the file.
      const bad: string[] = [];
      for (const f of STATIC_FILES) {
        const a = await request(port, {
          path: `/static/${f}`,
          headers: { 'Accept-Encoding': 'deflate, gzip, br, zstd' },
        });
        if (a.headers['content-encoding'] === undefined) continue;
        let n: number;
        try {
          n = decoded(a).length;
        } catch (e) {
          bad.push(`${f}: ${a.headers['content-encoding']} does not decode: ${(e as Error).message}`);
          continue;
        }
        if (n !== size(f))
          bad.push(`${f}: Content-Encoding ${a.headers['content-encoding']} decodes to ${n}, not ${size(f)}`);
      }
      const label = 'static compression (a compressed answer decodes to the file)';
      return bad.length ? fail(label, bad.join('; ')) : pass(label);
    },
    async () => {
      const a = await request(port, { path: '/static/nonexistent.txt' });
      const label = 'GET /static/nonexistent.txt → 404';
      return a.status === 404 ? pass(label) : fail(label, `expected HTTP 404, got ${a.status}`);
    },
  ];
}

/** validate.sh's python check of an /async-db answer. */
export function asyncDbProblem(body: Buffer, limit: number): string | null {
  let d: { count?: unknown; items?: { rating?: { score?: unknown }; tags?: unknown; active?: unknown }[] };
  try {
    d = JSON.parse(body.toString('utf8'));
  } catch {
    return `not JSON: ${show(body)}`;
  }
  const items = Array.isArray(d.items) ? d.items : [];
  const some = items.length > 0;
  const rating = some && items.every((i) => typeof i.rating === 'object' && i.rating !== null && 'score' in i.rating);
  const tags = some && items.every((i) => Array.isArray(i.tags));
  const active = some && items.every((i) => typeof i.active === 'boolean');
  if (d.count === limit && rating && tags && active) return null;
  return `count=${String(d.count)}, rating=${rating}, tags=${tags}, active=${active}`;
}

function asyncDbChecks(port: number): Step[] {
  return [
    async () => {
      const bad: string[] = [];
      for (const [qs, limit] of [
        ['min=5&max=80&limit=7', 7],
        ['min=20&max=150&limit=18', 18],
        ['min=100&max=400&limit=33', 33],
        ['min=10&max=50&limit=50', 50],
      ] as const) {
        const p = asyncDbProblem((await request(port, { path: `/async-db?${qs}` })).body, limit);
        if (p) bad.push(`limit=${limit}: ${p}`);
      }
      const label = 'GET /async-db?limit=N (4 limits, structure)';
      return bad.length ? fail(label, bad.join('; ')) : pass(label);
    },
    headerIs(port, 'GET /async-db Content-Type', 'Content-Type', 'application/json', {
      path: '/async-db?min=10&max=50&limit=50',
    }),
    async () => {
      const a = await request(port, { path: '/async-db?min=9999&max=9999&limit=50' });
      let count: unknown = -1;
      try {
        count = JSON.parse(a.body.toString('utf8')).count;
      } catch {}
      const label = 'GET /async-db empty range (count=0)';
      return count === 0 ? pass(label) : fail(label, `expected count=0, got ${String(count)} (${a.status})`);
    },
  ];
}

/** The checks validate.sh runs for a server subscribed to `profile` (limited-conn shares baseline's). */
export function checksFor(
  profile: string,
  port: number,
  data: { dir: string; uploads: Record<keyof typeof UPLOAD_SIZES, string> },
): Step[] {
  switch (profile) {
    case 'baseline':
    case 'limited-conn':
      return baselineChecks(port);
    case 'pipelined':
      return [
        bodyIs(port, 'GET /pipeline', 'ok', { path: '/pipeline' }),
        headerIs(port, 'GET /pipeline Content-Type', 'Content-Type', 'text/plain', { path: '/pipeline' }),
      ];
    case 'json':
      return jsonChecks(port);
    case 'json-comp':
      return jsonCompChecks(port);
    case 'upload':
      return uploadChecks(port, data.uploads);
    case 'static':
      return staticChecks(port, data.dir);
    case 'async-db':
      return asyncDbChecks(port);
    case 'api-4':
      return [...baselineChecks(port), ...jsonChecks(port), ...asyncDbChecks(port)];
    case 'crud':
      return [...asyncDbChecks(port), ...crudChecks(port)];
    case 'json-tls':
    case 'baseline-h2':
    case 'static-h2':
    case 'baseline-h2c':
    case 'json-h2c':
      return tlsH2Checks(profile, port);
    default:
      throw new Error(`no validation for profile ${profile}`);
  }
}

/** Runs every check of `profile` against 127.0.0.1:port; a check that throws (refused, timed out) fails. */
export async function validate(
  profile: string,
  port: number,
  data: { dir: string; uploads: Record<keyof typeof UPLOAD_SIZES, string> },
): Promise<Check[]> {
  const out: Check[] = [];
  for (const step of checksFor(profile, port, data)) {
    try {
      const r = await step();
      out.push(...(Array.isArray(r) ? r : [r]));
    } catch (e) {
      out.push(fail(`${profile}: a check`, `the request failed: ${(e as Error).message}`));
    }
  }
  return out;
}

// HttpArena's validation (scripts/validate.sh at commit 28606baf) of its TLS and HTTP/2 profiles, ported check by
// check: json-tls (HTTP/1.1 negotiated over TLS, three (count, m) pairs, Content-Type), baseline-h2 and static-h2
// (HTTP/2 over TLS), baseline-h2c and json-h2c (prior knowledge, and the port refusing HTTP/1.1). Certificates are not
// verified, as curl -k does not.
import { randomInt } from 'node:crypto';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { type Check, fail, headerMatches, jsonProblem, pass, type Step, show } from './check-http.ts';

interface Got {
  /** '1.1' or '2'. */
  version: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET over HTTP/1.1 and TLS (ALPN http/1.1, as curl --http1.1 offers). */
function getTls(port: number, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    // curl --http1.1 offers ALPN http/1.1, as this does (node:https' own typing leaves ALPNProtocols out).
    const options: https.RequestOptions & { ALPNProtocols: string[] } = {
      host: '127.0.0.1',
      port,
      path,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      agent: false,
    };
    const req = https.get(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          version: res.httpVersion,
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
  });
}

/** GET over HTTP/2: TLS with ALPN h2, or cleartext with prior knowledge. */
function getH2(port: number, secure: boolean, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`${secure ? 'https' : 'http'}://127.0.0.1:${port}`, { rejectUnauthorized: false });
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error('no HTTP/2 answer within 30 s'));
    }, 30_000);
    session.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    const req = session.request({ ':path': path });
    let headers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => {
      headers = h;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      clearTimeout(timer);
      session.close();
      resolve({ version: '2', status: Number(headers[':status']), headers, body: Buffer.concat(chunks) });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      session.destroy();
      reject(e);
    });
  });
}

/** The status an HTTP/1.1 request gets on `port` ('000' when no HTTP/1.1 answer came, as curl's %{http_code}). */
function h1Status(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    let got = '';
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      resolve(/^HTTP\/1\.[01] (\d{3})/.exec(got)?.[1] ?? '000');
    };
    const timer = setTimeout(done, 5000);
    s.on('connect', () => s.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
    });
    s.on('close', done);
    s.on('error', () => {});
  });
}

const one = (h: Got['headers'], name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

function bodyIs(label: string, expected: string, get: () => Promise<Got>): Step {
  return async () => {
    const a = await get();
    const body = a.body.toString('utf8').trim();
    return body === expected
      ? pass(label)
      : fail(label, `expected body ${show(expected)}, got ${a.status} ${show(body)}`);
  };
}

function headerIs(label: string, name: string, expected: string, get: () => Promise<Got>): Step {
  return async () => {
    const v = one((await get()).headers, name.toLowerCase());
    return headerMatches(v, expected) ? pass(label) : fail(label, `expected ${name} ${expected}, got ${show(v ?? '')}`);
  };
}

function versionIs(label: string, expected: string, get: () => Promise<Got>): Step {
  return async () => {
    const a = await get();
    return a.version === expected ? pass(label) : fail(label, `the answer came over HTTP/${a.version}`);
  };
}

function sums(port: number, secure: boolean, what: string): Step[] {
  const a = randomInt(100, 1000);
  const b = randomInt(100, 1000);
  return [
    bodyIs(`GET /baseline2?a=13&b=42 over ${what}`, '55', () => getH2(port, secure, '/baseline2?a=13&b=42')),
    bodyIs(`GET /baseline2?a=${a}&b=${b} over ${what} (random)`, String(a + b), () =>
      getH2(port, secure, `/baseline2?a=${a}&b=${b}`),
    ),
    headerIs(`GET /baseline2 Content-Type (${what})`, 'Content-Type', 'text/plain', () =>
      getH2(port, secure, '/baseline2?a=1&b=1'),
    ),
  ];
}

function jsonPairs(label: string, pairs: [number, number][], get: (path: string) => Promise<Got>): Step {
  return async (): Promise<Check> => {
    const bad: string[] = [];
    for (const [n, m] of pairs) {
      const p = jsonProblem((await get(`/json/${n}?m=${m}`)).body, n, m);
      if (p) bad.push(`/json/${n}?m=${m}: ${p}`);
    }
    return bad.length ? fail(label, bad.join('; ')) : pass(label);
  };
}

/** The checks validate.sh runs for `profile` (one of the TLS and HTTP/2 ones) against its listener's port. */
export function tlsH2Checks(profile: string, port: number): Step[] {
  switch (profile) {
    case 'json-tls':
      return [
        versionIs('json-tls protocol negotiation (HTTP/1.1 over TLS)', '1.1', () => getTls(port, '/json/1?m=1')),
        jsonPairs(
          'json-tls response (3 (count, m) pairs over TLS)',
          [
            [7, 2],
            [23, 11],
            [50, 1],
          ],
          (p) => getTls(port, p),
        ),
        headerIs('json-tls Content-Type', 'Content-Type', 'application/json', () => getTls(port, '/json/1?m=1')),
      ];
    case 'baseline-h2':
      return [
        versionIs('HTTP/2 protocol negotiation', '2', () => getH2(port, true, '/baseline2?a=1&b=1')),
        ...sums(port, true, 'HTTP/2'),
      ];
    case 'static-h2': {
      const get = (p: string) => () => getH2(port, true, p);
      return [
        headerIs('GET /static/reset.css Content-Type', 'Content-Type', 'text/css', get('/static/reset.css')),
        headerIs('GET /static/app.js Content-Type', 'Content-Type', 'application/javascript', get('/static/app.js')),
        headerIs(
          'GET /static/manifest.json Content-Type',
          'Content-Type',
          'application/json',
          get('/static/manifest.json'),
        ),
        async () => {
          const a = await getH2(port, true, '/static/reset.css');
          const label = 'static-h2 response size';
          return a.body.length > 0 ? pass(label) : fail(label, 'empty response');
        },
        async () => {
          const a = await getH2(port, true, '/static/nonexistent.txt');
          const label = 'GET /static/nonexistent.txt → 404';
          return a.status === 404 ? pass(label) : fail(label, `expected 404, got ${a.status}`);
        },
      ];
    }
    case 'baseline-h2c':
      return [
        versionIs('HTTP/2 cleartext (prior knowledge)', '2', () => getH2(port, false, '/baseline2?a=1&b=1')),
        async () => {
          const code = await h1Status(port, '/baseline2?a=1&b=1');
          const label = 'h2c only: the port refuses plain HTTP/1.1';
          return code !== '200'
            ? pass(label)
            : fail(label, 'it answered HTTP/1.1 with 200: the h2c listener must refuse HTTP/1.1 requests');
        },
        ...sums(port, false, 'h2c'),
      ];
    case 'json-h2c':
      return [
        versionIs('/json over HTTP/2 cleartext', '2', () => getH2(port, false, '/json/1?m=1')),
        headerIs('GET /json Content-Type (h2c)', 'Content-Type', 'application/json', () =>
          getH2(port, false, '/json/1?m=1'),
        ),
        async (): Promise<Check> => {
          const bad: string[] = [];
          for (const [n, m] of [
            [12, 3],
            [22, 7],
            [31, 2],
            [50, 5],
          ] as const) {
            const d = JSON.parse((await getH2(port, false, `/json/${n}?m=${m}`)).body.toString('utf8') || '{}');
            const items = Array.isArray(d.items) ? d.items.length : -1;
            if (d.count !== n || items !== n) bad.push(`/json/${n}?m=${m}: count=${d.count}, items=${items}`);
          }
          const label = 'GET /json/{count}?m=X over h2c (4 counts)';
          return bad.length ? fail(label, bad.join('; ')) : pass(label);
        },
      ];
    default:
      throw new Error(`no TLS or HTTP/2 validation for profile ${profile}`);
  }
}

// Differential tests: the same raw Engine.IO HTTP requests (handshake, polling GET/POST payloads with text and
// binary packets, compressed polls, bad sid, bad transport, bad method, EIO=3, overlapping polls, bad content,
// oversized bodies, CORS preflights, allowRequest, cookies) sent to socket.io 4 on node:http and to @gale-http/socket.io,
// on a Gale app and on a node:http server.
// Status, content type, the headers that matter and the body's shape must be the same; session and socket ids
// differ, so they are masked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { T } from '../helpers.js';
import { type AnyServer, type Kind, startServer } from './helpers.js';

interface Answer {
  status: number;
  type: string | null;
  headers: Record<string, string | null>;
  body: unknown;
}

const COMPARED = [
  'cache-control',
  'content-encoding',
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'vary',
  'set-cookie',
  'x-custom',
];

/** The body in comparable form: JSON parsed, polling payloads split into packets, ids masked. */
function shape(text: string, type: string | null, ids: string[]): unknown {
  let masked = text;
  for (const id of ids) masked = masked.split(id).join('<id>');
  masked = masked.replace(/"sid":"[\w-]{20}"/g, '"sid":"<id>"');
  if (type?.startsWith('application/json')) return JSON.parse(masked);
  if (type?.startsWith('text/plain')) {
    return masked.split('\x1e').map((p) => {
      const brace = p.search(/[[{]/);
      return brace === -1 ? p : [p.slice(0, brace), JSON.parse(p.slice(brace))];
    });
  }
  return masked;
}

async function send(
  url: string,
  ids: string[],
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer & { raw: string }> {
  const r = await fetch(url, { method: init.method ?? 'GET', body: init.body, headers: init.headers });
  const raw = await r.text();
  const type = r.headers.get('content-type');
  const headers: Record<string, string | null> = {};
  for (const h of COMPARED) {
    let v = r.headers.get(h);
    if (v !== null) for (const id of ids) v = v.split(id).join('<id>');
    if (h === 'set-cookie' && v !== null) v = v.replace(/^(\w+)=[\w-]{20};/, '$1=<id>;');
    headers[h] = v;
  }
  return { status: r.status, type, headers, body: shape(raw, type, ids), raw };
}

/** Runs `steps` against a server of `kind`; returns each step's answer by label. */
async function run(
  t: import('node:test').TestContext,
  kind: Kind,
  opts: Record<string, unknown>,
  steps: (ctx: { base: string; ids: string[]; io: AnyServer }) => Promise<[string, Answer][]>,
): Promise<Map<string, Answer>> {
  const s = await startServer(t, kind, opts, (io) => {
    io.on('connection', (socket: AnyServer) => {
      socket.onAny((ev: string, ...args: unknown[]) => socket.emit('echo', ev, ...args));
    });
  });
  const ids: string[] = [];
  const out = await steps({ base: `${s.url}/socket.io/`, ids, io: s.io });
  await s.close();
  return new Map(
    out.map(([label, a]) => [label, { status: a.status, type: a.type, headers: a.headers, body: a.body }]),
  );
}

async function compare(
  t: import('node:test').TestContext,
  opts: Record<string, unknown>,
  steps: Parameters<typeof run>[3],
): Promise<void> {
  const ref = await run(t, 'socket.io', opts, steps);
  for (const kind of ['gale', 'gale-node'] as const) {
    const ours = await run(t, kind, opts, steps);
    assert.deepEqual([...ours.keys()], [...ref.keys()]);
    for (const [label, want] of ref) {
      assert.deepEqual(
        ours.get(label) as Answer,
        want,
        `${label}: @gale-http/socket.io (${kind}) differs from socket.io`,
      );
    }
  }
}

test('a polling session: handshake, CONNECT, payloads of several packets, binary, compression', T, async (t) => {
  await compare(t, {}, async ({ base, ids }) => {
    const q = `${base}?EIO=4&transport=polling`;
    const out: [string, Answer][] = [];
    const hs = await send(q, ids);
    const sid = JSON.parse(hs.raw.slice(1)).sid as string;
    ids.push(sid);
    out.push(['handshake', hs]);
    const s = `${q}&sid=${sid}`;
    out.push(['POST 40 (connect /)', await send(s, ids, { method: 'POST', body: '40' })]);
    const connect = await send(s, ids);
    ids.push(JSON.parse(connect.raw.slice(2)).sid);
    out.push(['GET: CONNECT answer', connect]);
    out.push([
      'POST two events',
      await send(s, ids, { method: 'POST', body: '42["a",1]\x1e42["b",{"c":true,"d":[null,"é"]}]' }),
    ]);
    out.push(['GET: two echoes in one payload', await send(s, ids)]);
    out.push([
      'POST a binary event (base64 attachment)',
      await send(s, ids, { method: 'POST', body: '451-["bin",{"_placeholder":true,"num":0}]\x1ebAQID/w==' }),
    ]);
    out.push(['GET: binary echo', await send(s, ids)]);
    out.push(['POST an event with ack id', await send(s, ids, { method: 'POST', body: '4212["ack-me"]' })]);
    out.push(['GET: echo of it', await send(s, ids)]);
    out.push(['POST a big event', await send(s, ids, { method: 'POST', body: `42["big","${'x'.repeat(3000)}"]` })]);
    out.push(['GET: gzip-compressed answer', await send(s, ids, { headers: { 'accept-encoding': 'gzip' } })]);
    out.push(['DELETE on the session: 500', await send(s, ids, { method: 'DELETE' })]);
    out.push(['POST 41 (leave /)', await send(s, ids, { method: 'POST', body: '41' })]);
    out.push(['POST 1 (close)', await send(s, ids, { method: 'POST', body: '1' })]);
    out.push(['GET after close: unknown sid', await send(s, ids)]);
    return out;
  });
});

test('bad requests: unknown sid, transport, method, protocol version, content, overlap', T, async (t) => {
  await compare(t, { maxHttpBufferSize: 1000 }, async ({ base, ids }) => {
    const out: [string, Answer][] = [];
    out.push(['unknown sid', await send(`${base}?EIO=4&transport=polling&sid=nope`, ids)]);
    out.push(['unknown transport', await send(`${base}?EIO=4&transport=carrier-pigeon`, ids)]);
    out.push(['no transport', await send(`${base}?EIO=4`, ids)]);
    out.push(['POST handshake: bad method', await send(`${base}?EIO=4&transport=polling`, ids, { method: 'POST' })]);
    out.push(['PUT handshake: bad method', await send(`${base}?EIO=4&transport=polling`, ids, { method: 'PUT' })]);
    out.push(['OPTIONS without cors', await send(`${base}?EIO=4&transport=polling`, ids, { method: 'OPTIONS' })]);
    out.push(['EIO=3 refused', await send(`${base}?EIO=3&transport=polling`, ids)]);
    out.push(['no EIO: v3, refused', await send(`${base}?transport=polling`, ids)]);
    out.push(['EIO=5', await send(`${base}?EIO=5&transport=polling`, ids)]);
    out.push(['websocket without upgrade', await send(`${base}?EIO=4&transport=websocket`, ids)]);
    const q = `${base}?EIO=4&transport=polling`;
    const hs = await send(q, ids);
    const sid = JSON.parse(hs.raw.slice(1)).sid as string;
    ids.push(sid);
    const s = `${q}&sid=${sid}`;
    out.push(['EIO mismatch on a session', await send(`${base}?EIO=3&transport=polling&sid=${sid}`, ids)]);
    out.push(['transport mismatch', await send(`${base}?EIO=4&transport=websocket&sid=${sid}`, ids)]);
    out.push(['POST over maxHttpBufferSize', await send(s, ids, { method: 'POST', body: `4${'x'.repeat(1500)}` })]);
    const first = send(s, ids);
    await new Promise((r) => setTimeout(r, 50));
    out.push(['second GET while one is pending', await send(s, ids)]);
    out.push(['the pending GET, after the overlap', await first]);
    out.push(['session gone after the overlap', await send(s, ids)]);
    const hs2 = await send(q, ids);
    const sid2 = JSON.parse(hs2.raw.slice(1)).sid as string;
    ids.push(sid2);
    out.push([
      'binary POST body (v3 style)',
      await send(`${q}&sid=${sid2}`, ids, {
        method: 'POST',
        body: '4x',
        headers: { 'content-type': 'application/octet-stream' },
      }),
    ]);
    out.push(['session gone after bad content', await send(`${q}&sid=${sid2}`, ids)]);
    return out;
  });
});

test('CORS (the cors option), allowRequest, cookie and headers events', T, async (t) => {
  const opts = {
    cors: { origin: ['https://a.example', /\.b\.example$/], credentials: true, exposedHeaders: ['x-custom'] },
    cookie: { name: 'sess', httpOnly: true, sameSite: 'strict', path: '/x' },
    allowRequest: (req: { headers: Record<string, string> }, cb: (e: string | null, ok: boolean) => void) =>
      cb(req.headers['x-deny'] ? 'go away' : null, !req.headers['x-deny']),
  };
  const headersOpt = (io: AnyServer) =>
    io.engine.on('headers', (h: Record<string, string>) => {
      h['X-Custom'] = 'yes';
    });
  const steps: Parameters<typeof run>[3] = async ({ base, ids, io }) => {
    headersOpt(io);
    const q = `${base}?EIO=4&transport=polling`;
    const out: [string, Answer][] = [];
    out.push([
      'preflight from an allowed origin',
      await send(q, ids, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://a.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-requested-with,content-type',
        },
      }),
    ]);
    out.push([
      'preflight from a regex origin',
      await send(q, ids, {
        method: 'OPTIONS',
        headers: { origin: 'https://sub.b.example', 'access-control-request-method': 'GET' },
      }),
    ]);
    out.push([
      'preflight from another origin',
      await send(q, ids, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      }),
    ]);
    const hs = await send(q, ids, { headers: { origin: 'https://a.example' } });
    ids.push(JSON.parse(hs.raw.slice(1)).sid);
    out.push(['handshake with an Origin: CORS headers, cookie, headers event', hs]);
    out.push(['allowRequest refuses', await send(q, ids, { headers: { 'x-deny': '1' } })]);
    out.push([
      'POST on the session with an Origin',
      await send(`${q}&sid=${ids[0]}`, ids, { method: 'POST', body: '40', headers: { origin: 'https://a.example' } }),
    ]);
    return out;
  };
  await compare(t, opts, steps);
});

// HttpArena's HTTP/1.1 test profiles as data (its scripts/lib/profiles.sh, scripts/lib/tools/*.sh and requests/*.raw
// at commit 28606baf): the requests each profile rotates through, how many a connection carries, its connection
// counts scaled to this machine, and what every answer under load must be.

/** One request of a profile's rotation, as HttpArena's requests/*.raw file has it. */
export interface Template {
  /** HttpArena's file it reproduces (for the report). */
  raw: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Readonly<Record<string, string>>;
  /** A body: text, or the name of an upload file (data.ts makes them). */
  body?: { text: string } | { upload: keyof typeof UPLOAD_SIZES };
}

/** What every answer of a profile must be while under load (the full checks run before: validate.ts). */
export interface LoadCheck {
  /** The status every answer has, or the statuses an answer may have (a mix of operations: crud). */
  status: number | readonly number[];
  /** Exactly one of these bodies (the rotation's answers), if given. */
  bodies?: readonly string[];
  /** A header every answer carries (lower case), if given. */
  header?: string;
}

export interface Profile {
  id: string;
  /** What HttpArena's docs call it, and what it stresses. */
  description: string;
  templates: readonly Template[];
  /** Requests per write (HttpArena's -p). */
  pipeline: number;
  /** Requests per connection before it is closed and opened again (HttpArena's -r; 0 = keep-alive throughout). */
  perConnection: number;
  /** HttpArena's connection counts (for 64 hardware threads). */
  arenaConnections: readonly number[];
  /** The counts here: HttpArena's ÷ 8 (one server core against its 64 threads), at least 4. */
  connections: readonly number[];
  /** Needs the Postgres the bench starts (postgres.ts). */
  postgres?: boolean;
  /** Writes to Postgres: the bench loads its rows again before each entry's run, so each starts from the same table. */
  writes?: boolean;
  /** The entry's port it is served on (HttpArena's 8080, 8081, 8443, 8082); default h1. */
  listener?: Listener;
  /**
   * What loads it (default wrk with arena.lua over `templates`): h2load as HttpArena's h2load.sh (load-h2.ts),
   * gale-loadgen-h3 (load-h3.ts) or gale-loadgen-ws (load-ws.ts); the first two take `streams`, not `templates`.
   */
  tool?: 'h2load' | 'loadgen-h3' | 'loadgen-ws';
  /** The multiplexed profiles' requests: the paths rotated, headers, streams per connection. */
  streams?: StreamLoad;
  check: LoadCheck;
}

/** HttpArena's listeners: PORT (8080), H1TLS_PORT (8081, json-tls), H2PORT (8443, TLS + h2), H2C_PORT (8082, h2c). */
export type Listener = 'h1' | 'h1tls' | 'h2' | 'h2c';

/** The environment variable naming each listener's port for the entries, and HttpArena's port. */
export const LISTENERS: Record<Listener, { env: string; arenaPort: number; secure: boolean }> = {
  h1: { env: 'PORT', arenaPort: 8080, secure: false },
  h1tls: { env: 'H1TLS_PORT', arenaPort: 8081, secure: true },
  h2: { env: 'H2PORT', arenaPort: 8443, secure: true },
  h2c: { env: 'H2C_PORT', arenaPort: 8082, secure: false },
};

/** How an HTTP/2 or HTTP/3 profile is loaded: the paths rotated (h2load's `-i`, or the one URL), headers, streams. */
export interface StreamLoad {
  paths: readonly string[];
  headers: Readonly<Record<string, string>>;
  /** h2load's -m. */
  streams: number;
}

/** Upload bodies (HttpArena's upload-500k … upload-20m.raw): random bytes, the same file for every server. */
export const UPLOAD_SIZES = { '500k': 512_000, '2m': 2_097_152, '10m': 10_485_760, '20m': 20_971_520 } as const;

/** HttpArena's 20 static files (its static-rotate.lua order). */
export const STATIC_FILES = [
  'reset.css',
  'layout.css',
  'theme.css',
  'components.css',
  'utilities.css',
  'analytics.js',
  'helpers.js',
  'app.js',
  'vendor.js',
  'router.js',
  'header.html',
  'footer.html',
  'regular.woff2',
  'bold.woff2',
  'logo.svg',
  'icon-sprite.svg',
  'hero.webp',
  'thumb1.webp',
  'thumb2.webp',
  'manifest.json',
] as const;

const host = { Host: 'localhost:8080' };
const get = (raw: string, path: string, headers: Record<string, string> = {}): Template => ({
  raw,
  method: 'GET',
  path,
  headers: { ...host, ...headers },
});
const scaled = (counts: number[]): number[] => counts.map((c) => Math.max(4, Math.round(c / 8)));

// baseline's rotation: GET, POST with Content-Length, POST chunked (get.raw, post_cl.raw, post_chunked.raw).
const baseline: Template[] = [
  get('get.raw', '/baseline11?a=13&b=42'),
  {
    raw: 'post_cl.raw',
    method: 'POST',
    path: '/baseline11?a=13&b=42',
    headers: { ...host, 'Content-Length': '2' },
    body: { text: '20' },
  },
  {
    raw: 'post_chunked.raw',
    method: 'POST',
    path: '/baseline11?a=13&b=42',
    headers: { ...host, 'Transfer-Encoding': 'chunked' },
    body: { text: '2\r\n20\r\n0\r\n\r\n' },
  },
];

const jsonCounts: [number, number][] = [
  [1, 3],
  [5, 7],
  [10, 2],
  [15, 5],
  [25, 4],
  [40, 8],
  [50, 6],
];

function profile(p: Omit<Profile, 'connections'>): Profile {
  return { ...p, connections: scaled([...p.arenaConnections]) };
}

// api-4's rotation (gcannon.sh: get.raw ×3, json-get.raw ×3, async-db-get.raw ×2).
const api4: Template[] = [
  ...[1, 2, 3].map(() => get('get.raw', '/baseline11?a=13&b=42')),
  ...[1, 2, 3].map(() => get('json-get.raw', '/json/50?m=1')),
  ...[1, 2].map(() => get('async-db-get.raw', '/async-db?min=10&max=50&limit=50')),
];

// crud's 20 templates in the order gcannon.sh lists them (`ls crud-list-* crud-get-* crud-create-* crud-update-* |
// sort`): the list, 15 reads, the create, 3 updates. `{RAND:a:b}` and `{SEQ:n}` are gcannon's placeholders, which
// arena.lua fills per request (a random integer in [a, b]; a counter from n).
const crudJson = { 'Content-Type': 'application/json' };
const crudCreateBody = '{"id":{SEQ:100001},"name":"New Product","category":"test","price":150,"quantity":30}';
const crudUpdateBody = '{"name":"Updated Product","category":"test","price":200,"quantity":25}';
const crudSorted: Template[] = [
  get('crud-list-rand-1.raw', '/crud/items?category=office&page={RAND:1:10}&limit=10'),
  ...Array.from({ length: 15 }, (_, i) => get(`crud-get-${i + 1}.raw`, '/crud/items/{RAND:1:50000}')),
  {
    raw: 'crud-create-1.raw',
    method: 'POST',
    path: '/crud/items',
    // HttpArena's file says 78: the length once {SEQ:100001} is a six-digit id.
    headers: { ...host, ...crudJson, 'Content-Length': '78' },
    body: { text: crudCreateBody },
  },
  ...[1, 2, 3].map(
    (i): Template => ({
      raw: `crud-update-${i}.raw`,
      method: 'PUT',
      path: '/crud/items/{RAND:1:50000}',
      headers: { ...host, ...crudJson, 'Content-Length': String(crudUpdateBody.length) },
      body: { text: crudUpdateBody },
    }),
  ),
];

const h1Profiles: readonly Profile[] = [
  profile({
    id: 'baseline',
    description: 'GET and POST /baseline11 (query sum, plus the body: Content-Length and chunked), keep-alive',
    templates: baseline,
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [512, 4096],
    check: { status: 200, bodies: ['55', '75'] },
  }),
  profile({
    id: 'pipelined',
    description: 'GET /pipeline → "ok", 16 requests per write',
    templates: [get('pipeline.raw', '/pipeline')],
    pipeline: 16,
    perConnection: 0,
    arenaConnections: [512, 4096],
    check: { status: 200, bodies: ['ok'] },
  }),
  profile({
    id: 'limited-conn',
    description: "baseline's rotation with a new connection every 10 requests",
    templates: baseline,
    pipeline: 1,
    perConnection: 10,
    arenaConnections: [512, 4096],
    check: { status: 200, bodies: ['55', '75'] },
  }),
  profile({
    id: 'json',
    description: 'GET /json/{count}?m= over the 50-item data set (counts 1 … 50), a new connection every 25',
    templates: jsonCounts.map(([n, m]) => get(`json-${n}.raw`, `/json/${n}?m=${m}`)),
    pipeline: 1,
    perConnection: 25,
    arenaConnections: [4096],
    check: { status: 200 },
  }),
  profile({
    id: 'json-comp',
    description: 'GET /json/{25,40,50} with Accept-Encoding: gzip, br — compressed answers, a new connection every 25',
    templates: jsonCounts
      .filter(([n]) => n >= 25)
      .map(([n, m]) => get(`json-gzip-${n}.raw`, `/json/${n}?m=${m}`, { 'Accept-Encoding': 'gzip, br' })),
    pipeline: 1,
    perConnection: 25,
    arenaConnections: [512, 4096, 16384],
    check: { status: 200, header: 'content-encoding' },
  }),
  profile({
    id: 'upload',
    description: 'POST /upload of 500 KB, 2 MB, 10 MB and 20 MB bodies, read whole, answered with the byte count',
    templates: (Object.keys(UPLOAD_SIZES) as (keyof typeof UPLOAD_SIZES)[]).map((k) => ({
      raw: `upload-${k}.raw`,
      method: 'POST',
      path: '/upload',
      headers: { ...host, 'Content-Length': String(UPLOAD_SIZES[k]) },
      body: { upload: k },
    })),
    pipeline: 1,
    perConnection: 5,
    arenaConnections: [32, 256],
    check: { status: 200, bodies: Object.values(UPLOAD_SIZES).map(String) },
  }),
  profile({
    id: 'api-4',
    description:
      'the API mix: GET /baseline11 ×3, /json/50?m=1 ×3, /async-db?limit=50 ×2 per 8, a new connection every 5 ' +
      '(HttpArena gives the server 4 CPUs; here it has its one core)',
    templates: api4,
    pipeline: 1,
    perConnection: 5,
    arenaConnections: [256],
    postgres: true,
    check: { status: 200 },
  }),
  profile({
    id: 'static',
    description: 'GET /static/<20 files> with Accept-Encoding: br;q=1, gzip;q=0.8, a new connection every 200',
    templates: STATIC_FILES.map((f) =>
      get('static-rotate.lua', `/static/${f}`, { 'Accept-Encoding': 'br;q=1, gzip;q=0.8' }),
    ),
    pipeline: 1,
    perConnection: 200,
    arenaConnections: [1024, 4096, 6800],
    check: { status: 200, header: 'content-type' },
  }),
  profile({
    id: 'async-db',
    description:
      'GET /async-db?min=10&max=50&limit={5,10,20,35,50}: a Postgres query per request, new connection every 25',
    templates: [5, 10, 20, 35, 50].map((n) => get(`async-db-${n}.raw`, `/async-db?min=10&max=50&limit=${n}`)),
    pipeline: 1,
    perConnection: 25,
    arenaConnections: [1024],
    postgres: true,
    check: { status: 200 },
  }),
  profile({
    id: 'crud',
    description:
      'REST over Postgres: 75 % GET /crud/items/{id} (200 ms cache), 15 % PUT, 5 % list, 5 % POST (upsert), a new ' +
      'connection every 200',
    templates: crudSorted,
    pipeline: 1,
    perConnection: 200,
    arenaConnections: [4096],
    postgres: true,
    writes: true,
    check: { status: [200, 201] },
  }),
];

// The TLS and HTTP/2 profiles (wrk.sh's json-tls, h2load.sh's h2 and h2c; requests/json-tls-rotate.lua,
// static-h2-uris.txt, json-h2c-uris.txt).
const jsonRotation = jsonCounts.map(([n, m]) => get(`json-tls-rotate.lua`, `/json/${n}?m=${m}`));
const staticAccept = { 'Accept-Encoding': 'br;q=1, gzip;q=0.8' };
const tlsH2Profiles: readonly Profile[] = [
  profile({
    id: 'json-tls',
    description: "json's seven (count, m) pairs over HTTP/1.1 and TLS (port 8081), keep-alive, no compression",
    templates: jsonRotation,
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [4096],
    listener: 'h1tls',
    check: { status: 200 },
  }),
  profile({
    id: 'baseline-h2',
    description: 'GET /baseline2?a=1&b=1 over HTTP/2 and TLS (port 8443), 100 streams per connection',
    templates: [],
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [256, 1024],
    listener: 'h2',
    tool: 'h2load',
    streams: { paths: ['/baseline2?a=1&b=1'], headers: {}, streams: 100 },
    check: { status: 200, bodies: ['2'] },
  }),
  profile({
    id: 'static-h2',
    description: 'the 20 static files over HTTP/2 and TLS, `Accept-Encoding: br;q=1, gzip;q=0.8`, 32 streams',
    templates: [],
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [256, 1024],
    listener: 'h2',
    tool: 'h2load',
    streams: { paths: STATIC_FILES.map((f) => `/static/${f}`), headers: staticAccept, streams: 32 },
    check: { status: 200 },
  }),
  profile({
    id: 'baseline-h2c',
    description: 'GET /baseline2?a=1&b=1 over cleartext HTTP/2 with prior knowledge (port 8082, h2c only), 100 streams',
    templates: [],
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [256, 1024, 4096],
    listener: 'h2c',
    tool: 'h2load',
    streams: { paths: ['/baseline2?a=1&b=1'], headers: {}, streams: 100 },
    check: { status: 200, bodies: ['2'] },
  }),
  profile({
    id: 'json-h2c',
    description: "json's seven (count, m) pairs over h2c (port 8082), 32 streams",
    templates: [],
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [1024, 4096],
    listener: 'h2c',
    tool: 'h2load',
    streams: { paths: jsonCounts.map(([n, m]) => `/json/${n}?m=${m}`), headers: {}, streams: 32 },
    check: { status: 200 },
  }),
  profile({
    id: 'baseline-h3',
    description: 'GET /baseline2?a=1&b=1 over HTTP/3 (QUIC on UDP 8443), 64 streams per connection',
    templates: [],
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [64],
    listener: 'h2',
    tool: 'loadgen-h3',
    streams: { paths: ['/baseline2?a=1&b=1'], headers: {}, streams: 64 },
    check: { status: 200, bodies: ['2'] },
  }),
  profile({
    id: 'static-h3',
    description: 'the 20 static files over HTTP/3, `Accept-Encoding: br;q=1, gzip;q=0.8`, 64 streams',
    templates: [],
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [64],
    listener: 'h2',
    tool: 'loadgen-h3',
    streams: { paths: STATIC_FILES.map((f) => `/static/${f}`), headers: staticAccept, streams: 64 },
    check: { status: 200 },
  }),
  profile({
    id: 'echo-ws',
    description: 'WebSocket echo on /ws: a 5-byte text message per round trip, one in flight per connection',
    templates: [],
    pipeline: 1,
    perConnection: 0,
    arenaConnections: [512, 4096, 16384],
    tool: 'loadgen-ws',
    check: { status: 101 },
  }),
];

/** Every profile here, in HttpArena's PROFILE_ORDER (profiles.sh). */
export const profiles: readonly Profile[] = [
  'baseline',
  'pipelined',
  'limited-conn',
  'json',
  'json-comp',
  'json-tls',
  'upload',
  'api-4',
  'static',
  'async-db',
  'crud',
  'baseline-h2',
  'static-h2',
  'baseline-h2c',
  'json-h2c',
  'baseline-h3',
  'static-h3',
  'echo-ws',
].map((id) => {
  const p = [...h1Profiles, ...tlsH2Profiles].find((x) => x.id === id);
  if (!p) throw new Error(`profiles.ts: PROFILE_ORDER names ${id}, which is not defined`);
  return p;
});

/** The profile named `id`, or an error listing the names. */
export function profileById(id: string): Profile {
  const p = profiles.find((x) => x.id === id);
  if (!p) throw new Error(`unknown arena profile ${JSON.stringify(id)}; the profiles: ${profiles.map((x) => x.id)}`);
  return p;
}

/** A template as the bytes HttpArena's .raw file holds (an upload's body is `uploadBody`, read by the caller). */
export function rawRequest(t: Template, uploadBody?: Buffer, close = false): Buffer {
  let head = `${t.method} ${t.path} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(t.headers)) head += `${k}: ${v}\r\n`;
  if (close) head += 'Connection: close\r\n';
  head += '\r\n';
  const body = t.body === undefined ? Buffer.alloc(0) : 'text' in t.body ? Buffer.from(t.body.text) : uploadBody;
  if (body === undefined) throw new Error(`${t.raw}: the upload body was not given`);
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

// The demo page (`npm start`, then http://localhost:3000/demo/): a plain HTML/JS page served by Gale, no build step.
// Its routes: the page's files (page/), the fast-ws browser client straight from @gale-http/fast-ws (with replicator,
// its one dependency, wrapped as an ES module), a WebSocket chat with rooms, an SSE clock, and the newest
// benchmark charts of docs/bench/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const pageDir = join(here, 'page');
const benchDocs = join(here, '..', '..', 'docs', 'bench');
const ROOM = /^[\w-]{1,40}$/;
const MAX_TEXT = 1000;
/** The peers a benchmark report may name in its Versions line (bench/run.ts). */
const PEERS = ['uWebSockets.js', 'fulmine.js', 'ultimate-express'];

/**
 * The newest dated folder of docs/bench/ that has charts, as { date, node, peers, dir, charts }, or null: `node` is the
 * Node the servers ran on (the run's `--node`, else the harness's), `peers` the peers' versions its report names.
 */
export function latestCharts(root = benchDocs) {
  if (!existsSync(root)) return null;
  const dates = readdirSync(root)
    .filter((d) => /^\d{4}-\d{2}-\d{2}/.test(d) && existsSync(join(root, d, 'charts')))
    .sort();
  const date = dates.at(-1);
  if (date === undefined) return null;
  const dir = join(root, date, 'charts');
  // Which Node the servers ran on, as the run's report says (the page names it: figures differ a lot by Node): the
  // Node of `--node` when the servers ran on another one than the harness's, else the harness's.
  const report = join(root, date, 'report.md');
  const text = existsSync(report) ? readFileSync(report, 'utf8') : '';
  const node =
    /servers also ran on Node (v\d+\.\d+\.\d+)/.exec(text)?.[1] ?? /Node (v\d+\.\d+\.\d+)/.exec(text)?.[1] ?? null;
  const versions = /^Versions: (.*)\.$/m.exec(text)?.[1] ?? '';
  const peers = PEERS.map(
    (name) => new RegExp(`(?:^|, )(${name.replace('.', '\\.')} [^,]+)`).exec(versions)?.[1],
  ).filter((p) => p !== undefined);
  return {
    date,
    node,
    peers,
    dir,
    charts: readdirSync(dir)
      .filter((f) => f.endsWith('.svg'))
      .sort(),
  };
}

/**
 * The fast-ws client's compiled ES modules (@gale-http/fast-ws/client resolves into that package's dist/) and an
 * ES-module build of replicator (CommonJS on npm), so a browser can import the client with an import map.
 */
export function fastWsClientFiles() {
  const clientFile = fileURLToPath(import.meta.resolve('@gale-http/fast-ws/client'));
  const replicatorFile = createRequire(clientFile).resolve('replicator');
  const source = readFileSync(replicatorFile, 'utf8');
  const replicator = `// replicator ${JSON.parse(readFileSync(join(dirname(replicatorFile), 'package.json'), 'utf8')).version} (MIT), wrapped as an ES module by examples/demo/page.mjs
const module = { exports: {} };
const exports = module.exports;
${source}
export default module.exports;
`;
  return { dir: dirname(clientFile), replicator };
}

/**
 * Registers the demo page on `app` under /demo: GET /demo/ (the page), /demo/fast-ws/* (the client), the chat
 * WebSocket /demo/chat, the SSE clock /demo/clock, /demo/charts.json and /demo/charts/*. The fast-ws round trip uses
 * the demo's /fws route (registerWsScenarios).
 */
export function registerDemoPage(app) {
  app.static('/demo', pageDir, { cache: true });

  const client = fastWsClientFiles();
  app.static('/demo/fast-ws', client.dir, { cache: true });
  app.fixed('GET', '/demo/vendor/replicator.js', {
    body: client.replicator,
    headers: { 'content-type': 'text/javascript; charset=utf-8' },
  });

  // Chat with rooms: {"type":"join","room","name"} then {"type":"say","text"}; the server answers with
  // {"type":"joined","room","members"}, and every member of the room (the sender too) gets {"type":"message",…}
  // and {"type":"system","text"} lines. A room is an engine pub/sub topic: one frame built for all its members.
  const topic = (room) => `demo-chat:${room}`;
  const system = (room, text) => app.publish(topic(room), JSON.stringify({ type: 'system', room, text }));
  app.ws('/demo/chat', {
    maxPayloadLength: 4096,
    upgrade: () => ({ room: undefined, name: undefined }),
    message: (ws, data) => {
      let msg;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        ws.send(JSON.stringify({ type: 'error', text: 'send JSON: {"type":"join",…} or {"type":"say",…}' }));
        return;
      }
      if (msg?.type === 'join') {
        const name = typeof msg.name === 'string' ? msg.name.trim().slice(0, 40) : '';
        if (!ROOM.test(msg.room ?? '') || name === '') {
          ws.send(
            JSON.stringify({ type: 'error', text: 'a room is 1 to 40 letters, digits, _ or -; a name is needed' }),
          );
          return;
        }
        const before = ws.data.room;
        if (before !== undefined && before !== msg.room) {
          ws.unsubscribe(topic(before));
          system(before, `${ws.data.name} left`);
        }
        ws.data.room = msg.room;
        ws.data.name = name;
        ws.subscribe(topic(msg.room));
        system(msg.room, `${name} joined`);
        ws.send(JSON.stringify({ type: 'joined', room: msg.room, members: app.subscribers(topic(msg.room)) }));
      } else if (msg?.type === 'say') {
        const { room, name } = ws.data;
        if (room === undefined) return void ws.send(JSON.stringify({ type: 'error', text: 'join a room first' }));
        if (typeof msg.text !== 'string' || msg.text === '' || msg.text.length > MAX_TEXT) {
          return void ws.send(JSON.stringify({ type: 'error', text: `messages are 1 to ${MAX_TEXT} characters` }));
        }
        app.publish(topic(room), JSON.stringify({ type: 'message', room, from: name, text: msg.text, at: Date.now() }));
      }
    },
    close: (ws) => {
      if (ws.data.room !== undefined) system(ws.data.room, `${ws.data.name} left`);
    },
  });

  // The SSE clock: the server's time every second (and at once), until the page goes away.
  app.get('/demo/clock', (_req, res) => {
    const sse = res.sse({ heartbeat: 15_000 });
    const tick = () => sse.send({ event: 'tick', data: { now: new Date().toISOString() } });
    tick();
    const timer = setInterval(tick, 1000);
    sse.onClose(() => clearInterval(timer));
  });

  // The newest benchmark charts.
  const charts = latestCharts();
  if (charts) app.static('/demo/charts', charts.dir, { cache: true });
  app.get('/demo/charts.json', () => ({
    date: charts?.date ?? null,
    node: charts?.node ?? null,
    peers: charts?.peers ?? [],
    charts: charts?.charts ?? [],
  }));
}

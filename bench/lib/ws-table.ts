// The Markdown table of one WebSocket scenario (printed by the harness and put in report.md): servers as rows, the
// headline figure with its ratios to Express 5 + express-ws and to ws on node:http (sio-echo and sio-broadcast: the
// server's CPU per acknowledged echo or per delivery, and its ratio to Socket.IO 4 on node:http), then the details
// and notes.
import { median, TOOL_BOUND_PCT } from './report.ts';
import { baselineName } from './servers.ts';
import type { LatencySummary, WsIteration, WsMeasurement, WsScenarioId } from './ws-types.ts';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (us: number): string => (us / 1000).toFixed(us < 10_000 ? 2 : 1);
const lat = (l: LatencySummary | null | undefined): string =>
  l ? `${ms(l.min)} / ${ms(l.mean)} / ${ms(l.median)} / ${ms(l.max)} / ${ms(l.stddev)}` : '—';
const pct = (p: number | null): string => (p === null ? '—' : `${Math.round(p)}%`);
const mib = (kib: number | null | undefined): string => (kib == null ? '—' : (kib / 1024).toFixed(1));
const kib2 = (kib: number | null): string => (kib === null ? '—' : kib.toFixed(2));

/** Server CPU seconds of an iteration and the events they served: acked echoes, or broadcast deliveries. */
function sioCpu(scenario: WsScenarioId, it: WsIteration): { cpuS: number | null; events: number } {
  const j = it.json;
  if (!j) return { cpuS: null, events: 0 };
  // sio-broadcast's client reads the server's CPU over the broadcast phase alone (its connects left out).
  if (scenario === 'sio-broadcast') {
    return { cpuS: j.detail.server_cpu_s ?? it.serverCpuS, events: j.detail.deliveries ?? j.valid };
  }
  return { cpuS: it.serverCpuS, events: j.echoes };
}

/** Server CPU µs per acked echo (sio-echo, connects included) or per delivery (sio-broadcast), or null. */
export function sioCpuUs(scenario: WsScenarioId, it: WsIteration | null | undefined): number | null {
  if (!it) return null;
  const { cpuS, events } = sioCpu(scenario, it);
  return cpuS !== null && events > 0 ? (cpuS * 1e6) / events : null;
}

/** Whether the scenario's headline is lower-is-better (memory per connection, server CPU per event). */
export const wsLowerIsBetter = (scenario: WsScenarioId): boolean =>
  scenario === 'ws-idle' || scenario === 'sio-echo' || scenario === 'sio-broadcast';

/** The scenario's headline figure of one iteration (higher is better except where wsLowerIsBetter). */
export function wsFigure(scenario: WsScenarioId, it: WsIteration | null | undefined): number | null {
  if (!it?.json) return null;
  if (scenario === 'ws-broadcast') return it.json.detail.clients_held ?? null;
  if (scenario === 'ws-idle') return it.idle?.perConnectionKiB ?? null;
  if (scenario === 'sio-echo' || scenario === 'sio-broadcast') return sioCpuUs(scenario, it);
  return it.json.echoes_per_s;
}

/** ws-idle: median, min and max of the steady-state KiB per connection (second wave), or null. */
export function wsSteadySummary(m: WsMeasurement): { median: number; min: number; max: number } | null {
  if (!m.ok) return null;
  const xs = m.iterations.map((i) => i.steady?.perConnectionKiB).filter((x): x is number => typeof x === 'number');
  return xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) } : null;
}

/**
 * ws-idle: the median private (anonymous RSS) KiB per connection of the fresh (`steady` false) or the second wave, or
 * null (files saved before it was measured).
 */
export function wsPrivateMedian(m: WsMeasurement, steady: boolean): number | null {
  if (!m.ok) return null;
  const xs = m.iterations
    .map((i) => (steady ? i.steady : i.idle)?.perConnectionAnonKiB)
    .filter((x): x is number => typeof x === 'number');
  return xs.length ? median(xs) : null;
}

/** Median, min and max of the headline figure over a passed measurement's iterations, or null. */
export function wsSummary(m: WsMeasurement): { median: number; min: number; max: number } | null {
  if (!m.ok) return null;
  const xs = m.iterations.map((i) => wsFigure(m.scenario, i)).filter((x): x is number => x !== null);
  return xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) } : null;
}

const HEAD: Record<WsScenarioId, [string, string, string]> = {
  'ws-echo': [
    '| server | echoes/s (median) | vs Express | vs node:http | min–max | connects/s | connect ms min / mean / median / max / stddev | echo ms min / mean / median / max / stddev | CPU µs/echo | peak RSS MiB | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'echo',
  ],
  'ws-echo-h2': [
    '| server | echoes/s (median) | vs Express | vs node:http | min–max | connects/s | connect ms min / mean / median / max / stddev | echo ms min / mean / median / max / stddev | CPU µs/echo | peak RSS MiB | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'echo',
  ],
  'fastws-echo': [
    '| server | echoes/s (median) | vs Express | vs node:http | min–max | connects/s | connect ms min / mean / median / max / stddev | reply ms min / mean / median / max / stddev | CPU µs/echo | peak RSS MiB | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'echo',
  ],
  'sio-echo': [
    '| server | server CPU µs per acked echo (median) | vs socket.io | min–max | acks/s | server CPU | client CPU | connects/s | connect ms min / mean / median / max / stddev | ack ms min / mean / median / max / stddev | peak RSS MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'sio-echo',
  ],
  'sio-broadcast': [
    '| server | server CPU µs per delivery (median) | vs socket.io | min–max | deliveries/s | server CPU | client CPU | broadcasts/s | broadcast RTT ms p50 / p95 / p99 | connects | peak RSS MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'sio-broadcast',
  ],
  'ws-broadcast': [
    '| server | clients held (p95 ≤ 500 ms) | vs Express | vs node:http | broadcast RTT ms at that step min / median / p95 / max | deliveries/s at that step | stopped by | steps | peak RSS MiB | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|---:|',
    'broadcast',
  ],
  'ws-idle': [
    '| server | fresh: RSS per connection KiB (median) | vs Express | vs node:http | min–max | steady: RSS per connection KiB (median) | min–max | fresh / steady: private KiB per connection (median) | RSS before MiB | RSS with all open MiB | connections held | connects/s while opening | connect ms min / mean / median / max / stddev | pong ms median / max | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'idle',
  ],
};

const NOTE: Record<WsScenarioId, string> = {
  'ws-echo':
    '- gale-loadgen-ws (Rust, one thread, its own core) checks every echo against the exact text sent. echoes/s and ' +
    'connects/s are over the whole run; connect = TCP connect + WebSocket handshake; CPU µs/echo = server ' +
    'utime+stime ÷ echoes (connects included). loadgen CPU = the generator’s use of its core.',
  'ws-echo-h2':
    '- As ws-echo, with gale-loadgen-ws `--over h2c`: each WebSocket is an extended CONNECT (RFC 8441) on a ' +
    'cleartext HTTP/2 connection of its own (connect = TCP connect + HTTP/2 handshake + the server’s SETTINGS + ' +
    'CONNECT and its 200). Compare its CPU µs/echo with the same server’s ws-echo row of the same run.',
  'fastws-echo':
    '- gale-loadgen-ws checks that each connection gets the subprotocol `fast-ws` and the greeting `\\x00\\x02` ' +
    '(connect = TCP + handshake + greeting) and that every reply is exactly `\\x06` ID `\\x01["000…"]\\x02` for its ' +
    'event `\\x05 41f \\x16` ID `\\x01["000…"]\\x02`. The Node servers run Gale’s fast-ws protocol class ' +
    '(`FastWsConnection`) over their WebSocket library.',
  'sio-echo':
    '- gale-loadgen-ws `--mode sio-echo` (Rust, one thread, its own core) speaks Engine.IO 4 and Socket.IO 5 itself ' +
    'over the websocket transport, with no Socket.IO library: it checks every socket’s open packet and its connect ' +
    'answer `40{"sid":…}`, sends `42ID["echo","000…"]`, 4 in flight per socket (`--sio-echo-in-flight`: one ' +
    'at a time left Gale’s server idle between round trips), and requires exactly `43ID["000…"]` back (an ack for another id, a changed payload or an ack missing after `--timeout` fails the ' +
    'run), answers the server’s pings, and disconnects (`41`) and reconnects every 100 echoes. server CPU µs per ' +
    'acked echo = the server’s utime+stime over the run ÷ acks (connects included); lower is better, and ' +
    '`vs socket.io` is that figure ÷ Socket.IO 4’s. server CPU and client CPU = each process’s use of its core: with ' +
    'the server near 100 % the figure is its cost at full load; ‡ marks a client at ≥ 90 % of its core.',
  'sio-broadcast':
    '- gale-loadgen-ws `--mode sio-broadcast` connects every socket (64 at a time) to the namespace `/broadcast`, ' +
    'where the server joins each to the room `all`; then the sockets take turns emitting ' +
    '`42/broadcast,ID["broadcast",{id, ts, pad}]` (100 \'0\'s) with an ack id, 16 broadcasts in flight (`--sio-broadcast-in-flight`), and the server ' +
    "sends each with `nsp.to('all').emit('broadcastResult', payload)`. Every socket must get every broadcast " +
    'exactly once, byte for byte, and the sender the ack `43/broadcast,ID[]` (a duplicate or a different payload is ' +
    'an invalid message, a delivery or ack missing after `--timeout` a timeout error). server CPU µs per delivery = ' +
    'the server’s utime+stime over the broadcast phase (connects left out) ÷ deliveries (lower is better; ' +
    '`vs socket.io` = that figure ÷ Socket.IO 4’s); deliveries/s = valid deliveries ÷ the phase; broadcast RTT = ' +
    'from the emit until every socket got it and the ack came back; server CPU and client CPU = each one’s use of ' +
    'its core over the phase (‡: the client at ≥ 90 %).',
  'ws-broadcast':
    '- A broadcast’s round trip lasts from its send until the last client received its broadcastResult; every ' +
    'delivery and each joining client’s echo is checked against the exact text. Broadcasts go out several at a ' +
    'time (`--concurrent`, as websocket-shootout does); "clients held" is the largest step whose p95 stayed within ' +
    '500 ms, deliveries/s = clients × broadcasts ÷ that step’s time. Stepping also stops, said under "stopped by", ' +
    'when the generator was on its core for 95 % of a step (then the server may hold more) or at the open-file limit.',
  'ws-idle':
    '- Connections opened at 1 000/s to /echo and held open without traffic; RSS with all open = the most ' +
    '`VmRSS` of the server sampled every 200 ms while every connection was open and idle; RSS before = `VmRSS` ' +
    'of the server just before the wave. **fresh**: the first wave on a new server process (each iteration starts ' +
    'one; no connection before it), per connection = (with all open − before) ÷ connections held; the RSS columns ' +
    "are this wave's. **steady**: once the server has closed the first wave (its descriptors back where they were, " +
    'then 1.5 s), a second wave of as many connections on the same process, measured the same way: what a ' +
    'connection costs once the allocators hold what the first wave left them. After each hold every connection ' +
    'must answer a ping with its pong. **private**: the same waves measured with `RssAnon`, the anonymous part of ' +
    'the RSS, leaving out file-backed pages: the code of the node binary and of native addons that a fresh process ' +
    'reads in for the first time during the wave (V8’s optimizing compilers, which start once the upgrade path is ' +
    'hot, are most of it), which is paid once and held by no connection. Lower is better (so a ratio below 1 means ' +
    'less memory than the other server; ratios compare the fresh RSS figures).',
};

/** Whether `m` was measured by socket.io-client (`--sio-client socket.io-client`) rather than gale-loadgen-ws. */
const byNodeClient = (m: WsMeasurement): boolean => /\.mjs$/.test(m.args[0] ?? '');

/** The Markdown table of one WebSocket scenario, with notes (FAILED reasons, not-implemented rows, what it shows). */
export function wsTable(scenario: WsScenarioId, ms_: readonly WsMeasurement[]): string {
  const [head, sep, kind] = HEAD[scenario];
  const lines = [head, sep];
  const notes: string[] = [];
  const cols = sep.split('|').length - 3;
  const base = (name: string) => {
    const m = ms_.find((x) => x.server === name);
    return m ? wsSummary(m) : null;
  };
  const has = (name: string) => ms_.some((x) => x.server === name);
  let anyBound = false;
  const sio = kind === 'sio-echo' || kind === 'sio-broadcast';
  const baseNames = sio ? ['socketio'] : ['express', 'node-http'];
  let anyNodeClient = false;
  for (const m of ms_) {
    const bases = baseNames.map((b) => base(baselineName(m.server, b, has)));
    const nodeClient = sio && byNodeClient(m);
    if (nodeClient) anyNodeClient = true;
    const name = nodeClient ? `${m.label} (socket.io-client)` : m.label;
    const label = m.server.startsWith('gale') ? `**${name}**` : name;
    if (m.notImplemented) {
      lines.push(`| ${label} | — not implemented yet |${' |'.repeat(cols - 1)}`);
      notes.push(`- ${m.label}: — not implemented yet (${m.notImplemented}).`);
      continue;
    }
    const s = wsSummary(m);
    const j = m.median?.json;
    if (!s || !m.median || !j) {
      lines.push(`| ${label} | **FAILED** |${' |'.repeat(cols - 1)}`);
      notes.push(`- **${m.label}: FAILED**: ${m.failure ?? 'no valid iteration'}`);
      continue;
    }
    const ratios = bases.map((b) => (b ? `${(s.median / b.median).toFixed(2)}×` : '—'));
    const rss = m.peakRssMiB === null ? '—' : m.peakRssMiB.toFixed(1);
    // sio-broadcast's client measures its own CPU over the broadcast phase alone (its connects left out).
    const toolPct = j.detail.client_cpu_pct ?? m.median.toolCpuPct;
    const tool = pct(toolPct);
    // ‡: the load client used (nearly) all of its core, so the figure may measure the client.
    const bound = (toolPct ?? 0) >= TOOL_BOUND_PCT && scenario !== 'ws-idle' ? ' ‡' : '';
    if (bound) anyBound = true;
    let cells: string[];
    if (kind === 'echo') {
      const cpu = m.median.serverCpuS !== null && j.echoes ? ((m.median.serverCpuS * 1e6) / j.echoes).toFixed(2) : '—';
      cells = [
        `${int(s.median)}${bound}`,
        ...ratios,
        `${int(s.min)}–${int(s.max)}`,
        int(j.connects_per_s),
        lat(j.connect_us),
        lat(j.echo_us),
        cpu,
        rss,
        tool,
      ];
    } else if (kind === 'sio-echo' || kind === 'sio-broadcast') {
      const cpuS = kind === 'sio-broadcast' ? (j.detail.server_cpu_s ?? m.median.serverCpuS) : m.median.serverCpuS;
      const serverPct = cpuS !== null && j.duration_s > 0 ? (100 * cpuS) / j.duration_s : null;
      const head = [s.median.toFixed(2), ...ratios, `${s.min.toFixed(2)}–${s.max.toFixed(2)}`];
      if (kind === 'sio-echo') {
        cells = [
          ...head,
          `${int(j.echoes_per_s)}${bound}`,
          pct(serverPct),
          tool,
          int(j.connects_per_s),
          lat(j.connect_us),
          lat(j.echo_us),
          rss,
        ];
      } else {
        const r = j.detail.rtt_us;
        cells = [
          ...head,
          `${int(j.detail.deliveries_per_s ?? 0)}${bound}`,
          pct(serverPct),
          tool,
          j.detail.broadcasts_per_s == null ? '—' : int(j.detail.broadcasts_per_s),
          r ? `${ms(r.median)} / ${ms(r.p95)} / ${ms(r.p99)}` : '—',
          int(j.connects),
          rss,
        ];
      }
    } else if (kind === 'broadcast') {
      const h = j.detail.held_rtt_us;
      cells = [
        `${int(s.median)}${bound}`,
        ...ratios,
        h ? `${ms(h.min)} / ${ms(h.median)} / ${ms(h.p95)} / ${ms(h.max)}` : '—',
        j.detail.held_deliveries_per_s == null ? '—' : int(j.detail.held_deliveries_per_s),
        j.detail.stopped ?? '—',
        String(j.detail.steps?.length ?? 0),
        rss,
        tool,
      ];
    } else {
      const idle = m.median.idle;
      const opened = j.detail.opened ?? 0;
      const p = j.detail.pong_us;
      const st = wsSteadySummary(m);
      cells = [
        s.median.toFixed(2),
        ...ratios,
        `${s.min.toFixed(2)}–${s.max.toFixed(2)}`,
        st ? st.median.toFixed(2) : '—',
        st ? `${st.min.toFixed(2)}–${st.max.toFixed(2)}` : '—',
        `${kib2(wsPrivateMedian(m, false))} / ${kib2(wsPrivateMedian(m, true))}`,
        mib(idle?.baselineRssKiB),
        mib(idle?.openRssKiB),
        int(opened),
        j.detail.open_s ? int(opened / j.detail.open_s) : '—',
        lat(j.connect_us),
        p ? `${ms(p.median)} / ${ms(p.max)}` : '—',
        tool,
      ];
    }
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  if (anyBound) {
    notes.push(
      `- ‡ = the load client used ≥ ${TOOL_BOUND_PCT} % of its core: that figure may be the client's limit rather ` +
        "than the server's (see the client's measured ceiling in bench/README.md).",
    );
  }
  notes.push(NOTE[scenario]);
  if (anyNodeClient) {
    notes.push(
      '- Rows marked (socket.io-client) were driven by the real socket.io-client in Node (`--sio-client ' +
        'socket.io-client`: lib/sio-client.mjs, lib/sio-broadcast-client.mjs), which saturates its core at a fraction ' +
        'of a Socket.IO server’s capacity: their CPU per event was measured at that lower load.',
    );
  }
  return `${lines.join('\n')}\n\n${notes.join('\n')}\n`;
}

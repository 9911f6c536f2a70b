// The Markdown table of one WebSocket scenario (printed by the harness and put in report.md): servers as rows, the
// headline figure with its ratios to Express 5 + express-ws and to ws on node:http (sio-broadcast: to Socket.IO 4 on
// node:http), then the details and notes.
import { median, TOOL_BOUND_PCT } from './report.ts';
import { baselineName } from './servers.ts';
import type { LatencySummary, WsIteration, WsMeasurement, WsScenarioId } from './ws.ts';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (us: number): string => (us / 1000).toFixed(us < 10_000 ? 2 : 1);
const lat = (l: LatencySummary | null | undefined): string =>
  l ? `${ms(l.min)} / ${ms(l.mean)} / ${ms(l.median)} / ${ms(l.max)} / ${ms(l.stddev)}` : '—';
const pct = (p: number | null): string => (p === null ? '—' : `${Math.round(p)}%`);
const mib = (kib: number | null | undefined): string => (kib == null ? '—' : (kib / 1024).toFixed(1));

/** The scenario's headline figure of one iteration (higher is better except for ws-idle). */
export function wsFigure(scenario: WsScenarioId, it: WsIteration | null | undefined): number | null {
  if (!it?.json) return null;
  if (scenario === 'ws-broadcast') return it.json.detail.clients_held ?? null;
  if (scenario === 'ws-idle') return it.idle?.perConnectionKiB ?? null;
  if (scenario === 'sio-broadcast') return it.json.detail.deliveries_per_s ?? null;
  return it.json.echoes_per_s;
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
  'fastws-echo': [
    '| server | echoes/s (median) | vs Express | vs node:http | min–max | connects/s | connect ms min / mean / median / max / stddev | reply ms min / mean / median / max / stddev | CPU µs/echo | peak RSS MiB | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'echo',
  ],
  'sio-echo': [
    '| server | echoes/s (median) | vs Express | vs node:http | min–max | connects/s | connect ms min / mean / median / max / stddev | ack ms min / mean / median / max / stddev | CPU µs/echo | peak RSS MiB | client CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'echo',
  ],
  'sio-broadcast': [
    '| server | deliveries/s (median) | vs socket.io | min–max | broadcasts/s | broadcast RTT ms p50 / p95 / p99 | connects | server CPU µs/delivery | peak RSS MiB | client CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'sio-broadcast',
  ],
  'ws-broadcast': [
    '| server | clients held (p95 ≤ 500 ms) | vs Express | vs node:http | broadcast RTT ms at that step min / median / p95 / max | deliveries/s at that step | stopped by | steps | peak RSS MiB | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|---:|',
    'broadcast',
  ],
  'ws-idle': [
    '| server | RSS per connection KiB (median) | vs Express | vs node:http | min–max | RSS before MiB | RSS with all open MiB | connections held | connects/s while opening | connect ms min / mean / median / max / stddev | pong ms median / max | loadgen CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    'idle',
  ],
};

const NOTE: Record<WsScenarioId, string> = {
  'ws-echo':
    '- gale-loadgen-ws (Rust, one thread, its own core) checks every echo against the exact text sent. echoes/s and ' +
    'connects/s are over the whole run; connect = TCP connect + WebSocket handshake; CPU µs/echo = server ' +
    'utime+stime ÷ echoes (connects included). loadgen CPU = the generator’s use of its core.',
  'fastws-echo':
    '- gale-loadgen-ws checks that each connection gets the subprotocol `fast-ws` and the greeting `\\x00\\x02` ' +
    '(connect = TCP + handshake + greeting) and that every reply is exactly `\\x06` ID `\\x01["000…"]\\x02` for its ' +
    'event `\\x05 41f \\x16` ID `\\x01["000…"]\\x02`. The Node servers run Gale’s fast-ws protocol class ' +
    '(`FastWsConnection`) over their WebSocket library.',
  'sio-echo':
    '- The real `socket.io-client` (websocket transport only), in a Node worker thread per load core (one here), sends ' +
    "`emit('echo', payload, ack)` one after another per connection and checks that every ack equals the payload. " +
    'client CPU = the client process’s use of its core (all worker threads); see bench/README.md for its ceiling.',
  'sio-broadcast':
    '- The real `socket.io-client` (websocket transport only), every client in one Node thread on the load core, ' +
    'connects all clients (64 at a time) to the namespace `/broadcast`, where the server joins each socket to the ' +
    "room `all`; then the clients take turns emitting `broadcast` with `{id, ts, pad}` (100 '0's), 4 broadcasts in " +
    "flight, and the server sends each with `nsp.to('all').emit('broadcastResult', payload)`. Every client must get " +
    'every broadcast exactly once with the exact payload (a duplicate or a different payload is an invalid message, ' +
    'a delivery missing after `--timeout` a timeout error). deliveries/s = valid deliveries ÷ the broadcast phase ' +
    '(connects left out); broadcast RTT = from the emit until the last client got it; server CPU µs/delivery = the ' +
    'server’s utime+stime over the broadcast phase ÷ deliveries; client CPU = the client’s use of its core in that ' +
    'phase. The client receives every delivery in JavaScript, so it is the likely limit here (‡): compare the ' +
    'servers by their CPU per delivery.',
  'ws-broadcast':
    '- A broadcast’s round trip lasts from its send until the last client received its broadcastResult; every ' +
    'delivery and each joining client’s echo is checked against the exact text. Broadcasts go out several at a ' +
    'time (`--concurrent`, as websocket-shootout does); "clients held" is the largest step whose p95 stayed within ' +
    '500 ms, deliveries/s = clients × broadcasts ÷ that step’s time. Stepping also stops, said under "stopped by", ' +
    'when the generator was on its core for 95 % of a step (then the server may hold more) or at the open-file limit.',
  'ws-idle':
    '- Connections opened at 1 000/s to /echo and held open without traffic; RSS with all open = the most ' +
    '`VmRSS` of the server sampled every 200 ms while every connection was open and idle; RSS before = `VmRSS` ' +
    'of the fresh server just before the run (each iteration starts a new server). Per connection = (with all open ' +
    '− before) ÷ connections held. After the hold every connection must answer a ping with its pong. Lower is better ' +
    '(so a ratio below 1 means less memory than the other server).',
};

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
  const baseNames = kind === 'sio-broadcast' ? ['socketio'] : ['express', 'node-http'];
  for (const m of ms_) {
    const bases = baseNames.map((b) => base(baselineName(m.server, b, has)));
    const label = m.server.startsWith('gale') ? `**${m.label}**` : m.label;
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
    } else if (kind === 'sio-broadcast') {
      const serverS = j.detail.server_cpu_s ?? m.median.serverCpuS;
      const r = j.detail.rtt_us;
      cells = [
        `${int(s.median)}${bound}`,
        ...ratios,
        `${int(s.min)}–${int(s.max)}`,
        j.detail.broadcasts_per_s == null ? '—' : int(j.detail.broadcasts_per_s),
        r ? `${ms(r.median)} / ${ms(r.p95)} / ${ms(r.p99)}` : '—',
        int(j.connects),
        serverS != null && j.valid ? ((serverS * 1e6) / j.valid).toFixed(2) : '—',
        rss,
        tool,
      ];
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
      cells = [
        s.median.toFixed(1),
        ...ratios,
        `${s.min.toFixed(1)}–${s.max.toFixed(1)}`,
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
  return `${lines.join('\n')}\n\n${notes.join('\n')}\n`;
}

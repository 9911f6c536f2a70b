// Micro-benchmark of the fast-ws hot path (the ws-echo scenario: emit('echo', 1024 × '0', true) → reply):
// server parse + reply build, client build + reply parse, against the same steps done the plain way
// (replicator.encode/decode, indexOf/slice as fastWS does). Run: node --import tsx tests/fastws/codec-bench.ts
import Replicator from 'replicator';
import {
  clientEventFrame,
  eventId,
  parseClientFrame,
  parseServerFrame,
  replyFrame,
} from '../../packages/fast-ws/src/codec.js';
import { FastWsConnection } from '../../packages/fast-ws/src/server.js';

const payload = '0'.repeat(1024);
const inbound = clientEventFrame('echo', '123', payload);
const rep = new Replicator();

function codecOnly(): number {
  const f = parseClientFrame(inbound);
  if (f.kind !== 'event') throw new Error('bad');
  const back = parseServerFrame(replyFrame(f.replyId, f.data));
  return back.kind === 'reply' ? (back.data as string).length : 0;
}

// The server as deployed: FastWsConnection answering with e.reply(e.data) (reuses the received encoding).
let lastSent = '';
const conn = new FastWsConnection({ send: (t) => (lastSent = t), close: () => {} });
conn.on('echo', (e) => e.reply(e.data));
function connection(): number {
  conn.receive(inbound);
  const back = parseServerFrame(lastSent);
  return back.kind === 'reply' ? (back.data as string).length : 0;
}

function plain(): number {
  const idle = inbound.indexOf('\x16');
  const start = inbound.indexOf('\x01');
  const replyId = inbound.slice(idle + 1, start);
  const data = rep.decode(inbound.slice(start + 1, -1));
  const out = `\x06${replyId}\x01${rep.encode(data)}\x02`;
  const s = out.indexOf('\x01');
  return (rep.decode(out.slice(s + 1, -1)) as string).length + Number(out.slice(1, s)) * 0;
}

function clientBuild(): number {
  return clientEventFrame('echo', '123', payload).length;
}

function clientBuildPlain(): number {
  return `\x05${eventId('echo')}\x16123\x01${rep.encode(payload)}\x02`.length;
}

function measure(name: string, fn: () => number, n = 200_000): void {
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += fn(); // warm up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink += fn();
  const ns = Number(process.hrtime.bigint() - t0) / n;
  console.log(
    `${name.padEnd(34)} ${ns.toFixed(0).padStart(6)} ns/op  ${(1e9 / ns / 1000).toFixed(0)} k ops/s  (${sink})`,
  );
}

measure('FastWsConnection echo + client parse', connection);
measure('parse + replyFrame + client parse', codecOnly);
measure('  same with plain replicator', plain);
measure('client frame build', clientBuild);
measure('  same with plain replicator', clientBuildPlain);

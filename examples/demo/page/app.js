// The demo page's script (an ES module, no build step): the chat, the fast-ws round trip, the SSE clock and the
// benchmark charts. Served by examples/demo/page.mjs.
import { FastWsClient } from '/demo/fast-ws/client.js';

const $ = (id) => document.getElementById(id);
const wsUrl = (path) => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;

// Chat: one WebSocket; joining another room leaves the previous one.
let chat;
function addLine(cls, text) {
  const li = document.createElement('li');
  li.className = cls;
  li.textContent = text;
  $('messages').append(li);
  li.scrollIntoView({ block: 'nearest' });
}
$('join').addEventListener('submit', (e) => {
  e.preventDefault();
  const join = () => chat.send(JSON.stringify({ type: 'join', room: $('room').value, name: $('name').value }));
  if (chat && chat.readyState === WebSocket.OPEN) return join();
  chat = new WebSocket(wsUrl('/demo/chat'));
  $('chat-status').textContent = 'connecting…';
  chat.onopen = join;
  chat.onclose = () => {
    $('chat-status').textContent = 'disconnected';
    for (const el of $('say').elements) el.disabled = true;
  };
  chat.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === 'joined') {
      $('chat-status').textContent = `in #${msg.room} (${msg.members} here)`;
      for (const el of $('say').elements) el.disabled = false;
      $('text').focus();
    } else if (msg.type === 'message') addLine('message', `${msg.from}: ${msg.text}`);
    else if (msg.type === 'system') addLine('system', msg.text);
    else if (msg.type === 'error') addLine('error', msg.text);
  };
});
$('say').addEventListener('submit', (e) => {
  e.preventDefault();
  if ($('text').value === '') return;
  chat.send(JSON.stringify({ type: 'say', text: $('text').value }));
  $('text').value = '';
});

// fast-ws: the event/reply round trip, timed in the page.
const fws = new FastWsClient(wsUrl('/fws'));
fws.on('connect', () => {
  $('fws-status').textContent = 'connected';
  $('fws-send').disabled = false;
  $('fws-burst').disabled = false;
});
fws.on('disconnect', () => {
  $('fws-status').textContent = 'reconnecting…';
});
let sent = 0;
async function roundTrip() {
  const payload = { n: ++sent, text: `hello #${sent}` };
  const t0 = performance.now();
  const reply = await fws.emit('echo', payload, true);
  return { reply, ms: performance.now() - t0 };
}
$('fws-send').addEventListener('click', async () => {
  const { reply, ms } = await roundTrip();
  $('fws-reply').textContent = JSON.stringify(reply);
  $('fws-latency').textContent = `${ms.toFixed(2)} ms`;
});
$('fws-burst').addEventListener('click', async () => {
  const times = [];
  let last;
  for (let i = 0; i < 20; i++) {
    const r = await roundTrip();
    times.push(r.ms);
    last = r.reply;
  }
  times.sort((a, b) => a - b);
  $('fws-reply').textContent = JSON.stringify(last);
  $('fws-latency').textContent = `median ${times[10].toFixed(2)} ms, min ${times[0].toFixed(2)} ms (20 round trips)`;
});

// SSE clock.
let ticks = 0;
const clock = new EventSource('/demo/clock');
clock.addEventListener('tick', (ev) => {
  $('clock').textContent = new Date(JSON.parse(ev.data).now).toLocaleTimeString();
  $('clock-ticks').textContent = String(++ticks);
});

// Benchmark charts (docs/bench/<newest date>/charts/*.svg).
const { date, node, peers, charts } = await (await fetch('/demo/charts.json')).json();
$('bench-date').textContent = date
  ? `Run of ${date}, the servers on Node ${node ?? '(version not recorded)'}` +
    (peers.length ? `, beside ${peers.join(', ')}` : '') +
    ` (docs/bench/${date}/report.md; more runs: bench/README.md)`
  : 'No benchmark charts in docs/bench/.';
for (const name of charts) {
  const fig = document.createElement('figure');
  const img = document.createElement('img');
  img.src = `/demo/charts/${name}`;
  img.alt = `${name.replace(/\.svg$/, '')} benchmark chart`;
  img.loading = 'lazy';
  // Scaled to the column, but never below 85 % of the chart's own size (its 11 px labels stay readable): a wider
  // chart scrolls inside its figure instead.
  img.addEventListener('load', () => {
    img.style.maxWidth = `${img.naturalWidth}px`;
    img.style.minWidth = `${Math.round(img.naturalWidth * 0.85)}px`;
  });
  const cap = document.createElement('figcaption');
  cap.textContent = name.replace(/\.svg$/, '');
  fig.append(img, cap);
  $('charts').append(fig);
}

// The WebSocket scenarios' protocol, shared by the ws-*.mjs benchmark apps so every server answers with the same bytes
// (../shared/bench/scenarios.md, "WebSocket scenarios"):
// - ws-echo (/echo): every message goes back to its sender as it came (text stays text).
// - ws-broadcast (/broadcast): JSON {"type":"echo","payload":P} goes back to the sender as it came;
//   {"type":"broadcast","payload":P} goes to every connected /broadcast client, the sender included, as
//   {"type":"broadcastResult","payload":P}.

/** Echoes every message of `ws` (a `ws` WebSocket) to it. */
export function echo(ws) {
  ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
}

/** Returns a handler for /broadcast connections; `clients` is the set of open ones. */
export function broadcaster() {
  const clients = new Set();
  return (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
    ws.on('message', (data, isBinary) => {
      let msg;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (msg?.type === 'echo') ws.send(data, { binary: isBinary });
      else if (msg?.type === 'broadcast') {
        const out = JSON.stringify({ type: 'broadcastResult', payload: msg.payload });
        for (const c of clients) if (c.readyState === 1) c.send(out);
      }
    });
  };
}

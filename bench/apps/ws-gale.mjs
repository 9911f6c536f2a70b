// Benchmark app: Gale's own WebSockets (the engine's frames, native pub/sub). Serves the WebSocket scenarios
// (apps/ws-protocol.mjs): ws-echo and ws-idle at /echo, fastws-echo at /fws (app.ws's fast-ws protocol), ws-broadcast
// at /broadcast (fan-out through app.publish, one frame built for all subscribers), on 127.0.0.1:$PORT. Prints
// nothing but errors.
import { gale } from '../../packages/gale/dist/index.js';

const app = gale();
app.ws('/echo', {
  idleTimeout: 0,
  message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
});
app.ws('/fws', {
  protocol: 'fast-ws',
  idleTimeout: 0,
  open: (client) => client.on('echo', (evt) => evt.reply(evt.data)),
});
app.ws('/broadcast', {
  idleTimeout: 0,
  maxBackpressure: 64 * 1024 * 1024,
  open: (ws) => ws.subscribe('all'),
  message: (ws, data, isBinary) => {
    let msg;
    try {
      msg = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (msg?.type === 'echo') ws.send(data, { binary: isBinary });
    else if (msg?.type === 'broadcast') {
      app.publish('all', JSON.stringify({ type: 'broadcastResult', payload: msg.payload }));
    }
  },
});
app.get('/', (_req, res) => res.status(426).type('text/plain').send('WebSocket only\n'));
await app.listen(Number(process.env.PORT), '127.0.0.1');

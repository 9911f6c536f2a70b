// The WebSocket scenarios of ../shared/bench/scenarios.md as Gale routes, shared by the demo (`npm start`) and the
// benchmark app (bench/apps/ws-gale.mjs), so both answer with the same bytes.
import { fastWs } from '@gale-http/fast-ws';

/**
 * Registers ws-echo (/echo), fastws-echo (/fws) and ws-broadcast (/broadcast) on `app`.
 * `idleTimeout` in seconds (0: never; the benchmark holds idle connections), `maxBackpressure` in bytes.
 */
export function registerWsScenarios(app, { idleTimeout = 120, maxBackpressure = 16 * 1024 * 1024 } = {}) {
  // ws-echo: every message goes back to its sender as it came (text stays text).
  app.ws('/echo', { idleTimeout, message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }) });

  // fastws-echo: the fast-ws protocol; emit('echo', payload, true) is answered with the payload.
  app.ws(
    '/fws',
    fastWs({
      idleTimeout,
      open: (client) => client.on('echo', (evt) => evt.reply(evt.data)),
    }),
  );

  // ws-broadcast: {"type":"echo","payload":P} goes back to the sender; {"type":"broadcast","payload":P} goes to every
  // /broadcast client as {"type":"broadcastResult","payload":P}, through the engine's pub/sub (one frame for all).
  app.ws('/broadcast', {
    idleTimeout,
    maxBackpressure,
    open: (ws) => ws.subscribe('broadcast'),
    message: (ws, data, isBinary) => {
      let msg;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (msg?.type === 'echo') ws.send(data, { binary: isBinary });
      else if (msg?.type === 'broadcast') {
        app.publish('broadcast', JSON.stringify({ type: 'broadcastResult', payload: msg.payload }));
      }
    },
  });
}

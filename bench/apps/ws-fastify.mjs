// Benchmark app: Fastify 5 + @fastify/websocket, logger off. Serves the WebSocket scenarios (apps/ws-protocol.mjs):
// ws-echo and ws-idle at /echo, ws-broadcast at /broadcast, fastws-echo at /fws (Gale's fast-ws protocol class,
// apps/fastws.mjs), on 127.0.0.1:$PORT. Prints nothing but errors.
import websocket from '@fastify/websocket';
import Fastify from 'fastify';
import { fastWsEcho, loadFastWs } from './fastws.mjs';
import { broadcaster, echo } from './ws-protocol.mjs';

const app = Fastify({ logger: false });
await app.register(websocket);
const onBroadcast = broadcaster();
const FastWs = await loadFastWs();
app.register(async (f) => {
  f.get('/echo', { websocket: true }, (socket) => echo(socket));
  f.get('/broadcast', { websocket: true }, (socket) => onBroadcast(socket));
  f.get('/fws', { websocket: true }, (socket) => fastWsEcho(socket, FastWs));
});
try {
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
} catch (err) {
  console.error(err);
  process.exit(1);
}

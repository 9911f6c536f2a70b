// Benchmark app: Gale's own WebSockets (the engine's frames, native pub/sub). Serves the WebSocket scenarios with the
// demo's routes (examples/demo/ws-scenarios.mjs): ws-echo and ws-idle at /echo, fastws-echo at /fws, ws-broadcast at
// /broadcast (fan-out through app.publish, one frame built for all subscribers), ws-echo-h2 at /echo over HTTP/2, and with @gale-http/socket.io sio-echo at
// /socket.io/ and sio-broadcast on the namespace /broadcast (the handlers of apps/sio-scenarios.mjs, shared with
// apps/sio-node-http.mjs), on 127.0.0.1:$PORT. No idle timeout: ws-idle holds silent connections. Prints nothing but
// errors.

import { Server } from '@gale-http/socket.io';
import { registerWsScenarios } from '../../examples/demo/ws-scenarios.mjs';
import { gale } from '../../packages/gale/dist/index.js';
import { registerSioScenarios } from './sio-scenarios.mjs';

const app = gale();
registerWsScenarios(app, { idleTimeout: 0, maxBackpressure: 64 * 1024 * 1024 });
// The sio-echo client connects with the websocket transport only, so the server offers just that.
const io = new Server(app, { transports: ['websocket'] });
registerSioScenarios(io);
app.get('/', (_req, res) => res.status(426).type('text/plain').send('WebSocket only\n'));
// HTTP/2 beside HTTP/1.1 (h2c by prior knowledge) for ws-echo-h2's WebSockets on HTTP/2 streams (RFC 8441); an
// HTTP/1.1 request never reaches the preface check (it sits on the head parser's error path).
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1', http2: true });

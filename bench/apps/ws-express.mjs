// Benchmark app: Express 5 (or Express 4 with BENCH_EXPRESS=express4) + express-ws. Serves the WebSocket scenarios
// (apps/ws-protocol.mjs): ws-echo and ws-idle at /echo, ws-broadcast at /broadcast, fastws-echo at /fws (Gale's
// fast-ws protocol class fed by express-ws, apps/fastws.mjs), on 127.0.0.1:$PORT. Prints nothing but errors.
import expressWs from 'express-ws';
import { fastWsEcho, loadFastWs } from './fastws.mjs';
import { broadcaster, echo } from './ws-protocol.mjs';

const { default: express } = await import(process.env.BENCH_EXPRESS === 'express4' ? 'express4' : 'express');
const app = express();
expressWs(app);
app.ws('/echo', (ws) => echo(ws));
const onBroadcast = broadcaster();
app.ws('/broadcast', (ws) => onBroadcast(ws));
const FastWs = await loadFastWs();
app.ws('/fws', (ws) => fastWsEcho(ws, FastWs));
app.listen(Number(process.env.PORT), '127.0.0.1');

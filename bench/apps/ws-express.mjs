// Benchmark app: Express 5 (or Express 4 with BENCH_EXPRESS=express4) + express-ws. Serves the WebSocket scenarios
// (apps/ws-protocol.mjs): ws-echo at /echo, ws-broadcast at /broadcast, on 127.0.0.1:$PORT. Prints nothing but errors.
import expressWs from 'express-ws';
import { broadcaster, echo } from './ws-protocol.mjs';

const { default: express } = await import(process.env.BENCH_EXPRESS === 'express4' ? 'express4' : 'express');
const app = express();
expressWs(app);
app.ws('/echo', (ws) => echo(ws));
const onBroadcast = broadcaster();
app.ws('/broadcast', (ws) => onBroadcast(ws));
app.listen(Number(process.env.PORT), '127.0.0.1');

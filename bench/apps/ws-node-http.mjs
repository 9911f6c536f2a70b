// Benchmark app: `ws` on a plain node:http server. Serves the WebSocket scenarios (apps/ws-protocol.mjs): ws-echo and
// ws-idle at /echo, ws-broadcast at /broadcast, fastws-echo at /fws (Gale's fast-ws protocol class over `ws`,
// apps/fastws.mjs; `ws` selects the client's first subprotocol, `fast-ws`), on 127.0.0.1:$PORT. Prints nothing but
// errors.
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { fastWsEcho, loadFastWs } from './fastws.mjs';
import { broadcaster, echo } from './ws-protocol.mjs';

const server = http.createServer((_req, res) => {
  res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only\n');
});
const echoWss = new WebSocketServer({ noServer: true });
const broadcastWss = new WebSocketServer({ noServer: true });
echoWss.on('connection', echo);
broadcastWss.on('connection', broadcaster());
const fwsWss = new WebSocketServer({ noServer: true });
const FastWs = await loadFastWs();
fwsWss.on('connection', (ws) => fastWsEcho(ws, FastWs));
const routes = { '/echo': echoWss, '/broadcast': broadcastWss, '/fws': fwsWss };
server.on('upgrade', (req, socket, head) => {
  const wss = routes[req.url];
  if (!wss) {
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
});
server.listen(Number(process.env.PORT), '127.0.0.1');

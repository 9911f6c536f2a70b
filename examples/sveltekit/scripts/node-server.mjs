// adapter-node's documented custom server for the same app, with a WebSocket beside SvelteKit: the handler of the
// adapter-node build (./build/handler.js under the working directory) on node:http, and the `ws` package answering
// /ws exactly as src/gale.js does on adapter-gale. The browser tests run the node side with it.
import http from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocketServer } from 'ws';

const { handler } = await import(pathToFileURL(join(process.cwd(), 'build', 'handler.js')).href);
const host = process.env.HOST ?? '0.0.0.0';
const port = Number(process.env.PORT ?? 3000);

const server = http.createServer((req, res) =>
  handler(req, res, () => {
    res.statusCode = 404;
    res.end('Not Found');
  }),
);
const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
server.on('upgrade', (req, socket, head) => {
  if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/ws') return socket.destroy();
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on('message', (data) => {
      const text = JSON.stringify({ text: data.toString().slice(0, 500) });
      for (const client of wss.clients) client.send(text);
    });
  });
});
process.on('SIGTERM', () => {
  for (const client of wss.clients) client.close(1001);
  server.close();
  server.closeIdleConnections();
});
server.listen(port, host, () => console.log(`Listening on http://${host}:${server.address().port}`));

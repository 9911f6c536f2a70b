// Preloaded (`node --import`) by tests/docs/examples.test.ts into each docs example it starts: every Gale app and
// node:http server binds port 0 whatever the example asks for (`app.listen(3000)`, Express's and Socket.IO's listen,
// serve(), `http.createServer(app).listen(3000)`), and prints the port it got, so examples read as they would in an app and still run side by side with other tests. In a client
// example (GALE_DOCS_SERVER_PORT set), the global WebSocket is the `ws` package's (Node 20 has none) and connects to
// that port where the example says localhost:3000.
import http from 'node:http';
import { App } from 'gale';
import { WebSocket } from 'ws';

const serverPort = process.env.GALE_DOCS_SERVER_PORT;
if (serverPort) {
  globalThis.WebSocket = class extends WebSocket {
    constructor(url, ...rest) {
      super(String(url).replace('localhost:3000', `127.0.0.1:${serverPort}`), ...rest);
    }
  };
}

const listen = App.prototype.listen;
App.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') args[0] = 0;
  else if (args[0] !== null && typeof args[0] === 'object') args[0] = { ...args[0], port: 0 };
  const out = listen.apply(this, args);
  const address = this.address();
  if (address) process.stdout.write(`\nGALE_DOCS_PORT ${address.port}\n`);
  return out;
};

const nodeListen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') args[0] = 0;
  this.once('listening', () => process.stdout.write(`\nGALE_DOCS_PORT ${this.address().port}\n`));
  return nodeListen.apply(this, args);
};

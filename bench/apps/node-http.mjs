// Benchmark app: plain node:http. Serves the HTTP scenarios of bench/lib/scenarios.ts on 127.0.0.1:$PORT.
// Prints nothing but errors.
import http from 'node:http';

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8' };

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (req.method === 'GET') {
    if (path === '/') {
      res.writeHead(200, JSON_HEADERS);
      res.end(JSON.stringify({ hello: 'world' }));
      return;
    }
    if (path === '/json') {
      res.writeHead(200, JSON_HEADERS);
      res.end(JSON.stringify({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }));
      return;
    }
    if (path === '/text') {
      res.writeHead(200, TEXT_HEADERS);
      res.end('Hello 世界');
      return;
    }
    if (path.startsWith('/hello/') && path.indexOf('/', 7) === -1 && path.length > 7) {
      let name = path.slice(7);
      try {
        name = decodeURIComponent(name);
      } catch {}
      res.writeHead(200, TEXT_HEADERS);
      res.end(`Hello ${name}`);
      return;
    }
  }
  res.writeHead(404, TEXT_HEADERS);
  res.end('Not Found');
});

server.on('error', (err) => {
  console.error(err);
  process.exit(1);
});
server.listen(Number(process.env.PORT), '127.0.0.1');

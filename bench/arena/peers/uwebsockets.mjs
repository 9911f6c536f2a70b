// HttpArena's uwebsockets entry (its frameworks/uwebsockets/server.js, MIT, removed from its tree on 2026-04-10 at
// d5c87281) as the arena bench runs it: uWebSockets.js with its own query summing, as written there, on the build
// GALE_BENCH_UWS names (../shared/peers); its meta.json subscribed to baseline, pipelined and limited-conn only. The
// port from PORT, and no cluster fork when ARENA_WORKERS=1 (one process on one core, as every row here).
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
import cluster from 'node:cluster';
import { createRequire } from 'node:module';
import os from 'node:os';

const uWS = createRequire(import.meta.url)(process.env.GALE_BENCH_UWS);

const SERVER_HEADER = 'uwebsockets';

function sumQuery(qs) {
  if (!qs) return 0;
  let sum = 0;
  let i = 0;
  while (i < qs.length) {
    const eq = qs.indexOf('=', i);
    if (eq === -1) break;
    let amp = qs.indexOf('&', eq);
    if (amp === -1) amp = qs.length;
    const n = parseInt(qs.slice(eq + 1, amp), 10);
    if (n === n) sum += n;
    i = amp + 1;
  }
  return sum;
}

function readBody(res, cb) {
  let buffer;
  res.onData((ab, isLast) => {
    const chunk = Buffer.from(ab);
    if (isLast) {
      if (buffer) {
        cb(Buffer.concat([buffer, chunk]).toString());
      } else {
        cb(chunk.toString());
      }
    } else {
      if (buffer) {
        buffer = Buffer.concat([buffer, chunk]);
      } else {
        buffer = Buffer.concat([chunk]);
      }
    }
  });
}

function startServer() {
  const app = uWS.App();

  // /pipeline — lightweight endpoint for pipelining test
  app.get('/pipeline', (res, req) => {
    res.cork(() => {
      res.writeHeader('content-type', 'text/plain');
      res.writeHeader('server', SERVER_HEADER);
      res.end('ok');
    });
  });

  // /baseline2 — GET: sum query params
  app.get('/baseline2', (res, req) => {
    const qs = req.getQuery();
    const body = String(sumQuery(qs));
    res.cork(() => {
      res.writeHeader('content-type', 'text/plain');
      res.writeHeader('server', SERVER_HEADER);
      res.end(body);
    });
  });

  // Catch-all GET — /baseline11 etc: sum query params
  app.get('/*', (res, req) => {
    const qs = req.getQuery();
    const body = String(sumQuery(qs));
    res.cork(() => {
      res.writeHeader('content-type', 'text/plain');
      res.writeHeader('server', SERVER_HEADER);
      res.end(body);
    });
  });

  // Catch-all POST — /baseline11 etc: sum query params + body
  app.post('/*', (res, req) => {
    const qs = req.getQuery();
    const querySum = sumQuery(qs);

    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });

    readBody(res, (bodyStr) => {
      if (aborted) return;
      let total = querySum;
      const n = parseInt(bodyStr.trim(), 10);
      if (n === n) total += n;
      res.cork(() => {
        res.writeHeader('content-type', 'text/plain');
        res.writeHeader('server', SERVER_HEADER);
        res.end(String(total));
      });
    });
  });

  const port = Number(process.env.PORT ?? 8080);
  app.listen(process.env.HOST ?? '0.0.0.0', port, (listenSocket) => {
    if (listenSocket) {
      console.log(`Worker ${process.pid} listening on port ${port}`);
    } else {
      console.error(`Worker ${process.pid} failed to listen on port ${port}`);
      process.exit(1);
    }
  });
}

const workers = Number(
  process.env.ARENA_WORKERS ?? (os.availableParallelism ? os.availableParallelism() : os.cpus().length),
);
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  startServer();
}

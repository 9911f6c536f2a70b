// Benchmark app: a Web-standard fetch handler served by Gale's serve() (packages/gale, must be built). FETCH_APP=hono
// serves the Hono app of apps/hono-hello.mjs (the `gale-hono` server); otherwise a plain handler answering
// Response.json({ hello: 'world' }) (the `gale-fetch` server). The fetch-hello scenario on 127.0.0.1:$PORT.
import { serve } from 'gale';
import { honoApp } from './hono-hello.mjs';

const plain = () => Response.json({ hello: 'world' });
await serve(process.env.FETCH_APP === 'hono' ? honoApp : { fetch: plain }, {
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
});

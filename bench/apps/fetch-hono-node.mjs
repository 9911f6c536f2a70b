// Benchmark app: the Hono app of apps/hono-hello.mjs on @hono/node-server (its defaults: node:http, the global
// Request/Response replaced by its lightweight ones). The fetch-hello scenario on 127.0.0.1:$PORT.
import { serve } from '@hono/node-server';
import { honoApp } from './hono-hello.mjs';

serve({ fetch: honoApp.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });

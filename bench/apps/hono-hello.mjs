// The Hono app of the fetch-hello scenario (bench/lib/scenarios.ts), shared by every server that runs it, so each
// serves exactly the same application: GET / → {"hello":"world"} through c.json.
import { Hono } from 'hono';

export const honoApp = new Hono();
honoApp.get('/', (c) => c.json({ hello: 'world' }));

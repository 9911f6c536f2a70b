// Type test, compiled with register/ (augmentations are global to a program): decorateRequest / decorateReply /
// decorate typed the Fastify way, by adding the properties to Gale's Request, Response and Router through module
// augmentation; then hooks, handlers and plugins read them typed.
import { gale, type Router } from 'gale';
import { type Equal, ok } from '../expect.js';

declare module 'gale' {
  interface Request {
    user: { id: number; name: string } | null;
  }
  interface Response {
    startedAt: number;
  }
  interface Router {
    db: Map<string, string>;
  }
}

const app = gale();
app.decorate('db', new Map<string, string>());
app.decorateRequest('user', null);
app.decorateReply('startedAt', 0);
app.addHook('onRequest', (req, res) => {
  req.user = req.get('x-user') === undefined ? null : { id: 1, name: String(req.get('x-user')) };
  res.startedAt = Date.now();
});
app.get('/me', (req) => {
  ok<Equal<typeof req.user, { id: number; name: string } | null>>(true);
  return req.user?.name ?? 'anonymous';
});
app.register((instance: Router) => {
  ok<Equal<typeof instance.db, Map<string, string>>>(true);
  instance.get('/keys', () => [...instance.db.keys()]);
});
app.addHook('preHandler', (req) => {
  // @ts-expect-error the augmentation says a user or null
  req.user = 'ada';
});
// @ts-expect-error not a hook
app.addHook('onReqest', () => {});
app.addHook('onSend', (_req, _res, payload) => {
  ok<Equal<typeof payload, string | Uint8Array | undefined>>(true);
  return payload;
});
// @ts-expect-error onSend returns a body (a string or bytes) or nothing
app.addHook('onSend', () => 42);

// The app: its routes, its WebSocket route and its static files. Kept apart from server.ts (which listens) so the
// tests can start it on a free port.
import { fileURLToPath } from 'node:url';
import { gale, HttpError } from 'gale';

const publicDir = fileURLToPath(new URL('../public', import.meta.url));

export function createApp() {
  const app = gale();

  // A returned object is sent as JSON, a string as text.
  app.get('/api/hello/:name', (req) => ({ hello: req.params.name }));

  app.post('/api/echo', async (req) => {
    const body = await req.json(); // malformed JSON, or not an object or array → 400
    if (Array.isArray(body)) throw new HttpError(422, 'send a JSON object, not an array');
    return { received: body };
  });

  // A WebSocket route: every message comes back, and goes to everyone else in the room.
  app.ws('/ws', {
    open: (ws) => ws.subscribe('room'),
    message: (ws, data, isBinary) => {
      ws.send(data, { binary: isBinary });
      ws.publish('room', data, { binary: isBinary });
    },
  });

  // Files under public/ (index.html at /), answered by the native engine.
  app.static('/', publicDir);

  return app;
}

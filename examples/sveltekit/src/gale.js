// adapter-gale's `setup` module (vite.config.js): the Gale app before SvelteKit's handler is added. Here a
// WebSocket chat at /ws beside SvelteKit: every message goes to every connected page through the engine's pub/sub.

/** @param {import('gale').App} app */
export default function setup(app) {
  app.ws('/ws', {
    maxPayloadLength: 4096,
    open: (ws) => ws.subscribe('kit-chat'),
    message: (_ws, data) => {
      const text = data.toString().slice(0, 500);
      app.publish('kit-chat', JSON.stringify({ text }));
    },
  });
}

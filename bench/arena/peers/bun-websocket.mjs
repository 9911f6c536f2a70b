// HttpArena's bun-websocket entry (its frameworks/bun-websocket/server.ts at commit 28606baf, MIT): Bun.serve upgrading
// /ws and echoing every message, as written there (it has no types to strip); the port from PORT, one process (its
// entrypoint.sh starts one per CPU).
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
Bun.serve({
  port: Number(process.env.PORT ?? 8080),
  hostname: process.env.HOST ?? '0.0.0.0',
  reusePort: true,
  fetch(req, server) {
    if (new URL(req.url).pathname === '/ws') {
      if (server.upgrade(req)) return;
      return new Response('Upgrade failed', { status: 400 });
    }
    return new Response('Not found', { status: 404 });
  },
  websocket: {
    message(ws, message) {
      ws.send(message);
    },
  },
});

console.log('Application started.');

// HttpArena's deno-websocket entry (its frameworks/deno-websocket/server.ts at commit 28606baf, MIT): `deno serve` with
// Deno.upgradeWebSocket on /ws echoing every message, as written there (types stripped); one process (its Dockerfile
// adds --parallel for one per CPU).
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
export default {
  fetch(req) {
    if (new URL(req.url).pathname === '/ws') {
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onmessage = (e) => socket.send(e.data);
      return response;
    }
    return new Response('Not found', { status: 404 });
  },
};

console.log('Application started.');

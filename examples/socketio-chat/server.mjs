// A Socket.IO chat written the common way — an Express app in `http.createServer(app)`, `new Server(server)`, the
// page loading /socket.io/socket.io.js — on Gale: only the two imports name Gale's packages. `PORT=0` picks a free
// port; the line `listening on <url>` says where (tests/browser/socketio-chat.test.ts reads it).
import { createServer } from 'node:http';
import express from '@gale-http/express';
import { Server } from '@gale-http/socket.io';

const app = express();
app.use(express.static(new URL('./public', import.meta.url).pathname));
app.get('/health', (_req, res) => res.json({ ok: true }));

const server = createServer(app);
const io = new Server(server);

io.on('connection', (socket) => {
  socket.on('join', (room, name, ack) => {
    socket.data.name = name;
    socket.join(room);
    socket.to(room).emit('system', `${name} joined`);
    ack(io.of('/').adapter.rooms.get(room)?.size ?? 1);
  });
  socket.on('say', (room, text) => io.to(room).emit('message', socket.data.name, text));
});

server.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => io.close(() => process.exit(0)));

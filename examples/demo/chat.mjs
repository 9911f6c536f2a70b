// The demo's Socket.IO chat (@gale-http/socket.io): namespace /chat, where a client joins one room at a time and messages
// go to everyone in that room (its sender included); plus `echo` with an ack on the default namespace.
// Connect with socket.io-client: io('http://localhost:3000/chat', { auth: { name: 'ada' } }).
import { Server } from '@gale-http/socket.io';

const MAX_TEXT = 2000;
const ROOM = /^[\w-]{1,40}$/;

/** Attaches a Socket.IO server with the chat namespace to `app`; returns it (close it with `io.close()`). */
export function registerChat(app, options = {}) {
  const io = new Server(app, options);
  io.on('connection', (socket) => {
    socket.on('echo', (msg, ack) => {
      if (typeof ack === 'function') ack(msg);
    });
  });

  const chat = io.of('/chat');
  chat.use((socket, next) => {
    const name = socket.handshake.auth?.name;
    if (typeof name !== 'string' || name.trim() === '' || name.length > 40) {
      const err = new Error('a name is required');
      err.data = { hint: "connect with { auth: { name: 'your name' } } (1 to 40 characters)" };
      return next(err);
    }
    socket.data.name = name.trim();
    next();
  });
  chat.on('connection', (socket) => {
    const answer = (ack, value) => (typeof ack === 'function' ? ack(value) : undefined);
    // join(room, ack): leaves the previous room, joins this one; ack gets { room, members } or { error }.
    socket.on('join', async (room, ack) => {
      if (typeof room !== 'string' || !ROOM.test(room)) {
        return answer(ack, { error: 'room names are 1 to 40 letters, digits, _ or -' });
      }
      const previous = socket.data.room;
      if (previous !== undefined && previous !== room) {
        socket.leave(previous);
        chat.to(previous).emit('system', `${socket.data.name} left`);
      }
      socket.data.room = room;
      socket.join(room);
      socket.to(room).emit('system', `${socket.data.name} joined`);
      const members = (await chat.in(room).fetchSockets()).map((s) => s.data.name);
      answer(ack, { room, members });
    });
    // message(text, ack): to everyone in the sender's room; ack gets { ok: true } or { error }.
    socket.on('message', (text, ack) => {
      const room = socket.data.room;
      if (room === undefined) return answer(ack, { error: 'join a room first' });
      if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT) {
        return answer(ack, { error: `messages are 1 to ${MAX_TEXT} characters of text` });
      }
      chat.to(room).emit('message', { from: socket.data.name, text, at: Date.now() });
      answer(ack, { ok: true });
    });
    socket.on('disconnect', () => {
      if (socket.data.room !== undefined) chat.to(socket.data.room).emit('system', `${socket.data.name} left`);
    });
  });
  return io;
}

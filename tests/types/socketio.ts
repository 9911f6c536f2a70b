// Type test (compiled by `npm run typecheck`, never run): socket.io's documented TypeScript example, typed event
// maps and all, against @gale-http/socket.io. tests/types/socketio-upstream.ts is this file with the import from the
// real `socket.io` package (tests/types/socketio.test.ts checks the two stay the same), so every line below compiles,
// and every `@ts-expect-error` is an error, with both packages alike.
import { type DefaultEventsMap, type RemoteSocket, Server, type Socket } from '@gale-http/socket.io';

interface ServerToClientEvents {
  noArg: () => void;
  basicEmit: (a: number, b: string, c: Buffer) => void;
  withAck: (d: string, callback: (e: number) => void) => void;
}

interface ClientToServerEvents {
  hello: () => void;
  chat: (text: string, ack: (stored: boolean) => void) => void;
}

interface InterServerEvents {
  ping: () => void;
  count: (ack: (n: number) => void) => void;
}

interface SocketData {
  name: string;
  age: number;
}

export async function example(): Promise<void> {
  const io = new Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>();

  io.on('connection', (socket) => {
    socket.emit('noArg');
    socket.emit('basicEmit', 1, '2', Buffer.from([3]));
    socket.emit('withAck', '4', (e) => {
      const n: number = e;
      void n;
    });
    // works when broadcast to all
    io.emit('noArg');
    // works when broadcasting to a room
    io.to('room1').emit('basicEmit', 1, '2', Buffer.from([3]));

    // @ts-expect-error: noArg takes no argument
    socket.emit('noArg', 1);
    // @ts-expect-error: b is a string
    socket.emit('basicEmit', 1, 2, Buffer.from([3]));
    // @ts-expect-error: not an event of ServerToClientEvents
    socket.emit('unknown');
    // @ts-expect-error: a broadcast cannot collect acknowledgements without a timeout
    io.emit('withAck', '4', () => {});
  });

  io.on('connection', (socket) => {
    socket.on('hello', () => {});
    socket.on('chat', (text, ack) => {
      const t: string = text;
      void t;
      ack(true);
      // @ts-expect-error: the acknowledgement takes a boolean
      ack('yes');
    });
    socket.on('disconnect', (reason) => {
      const r: string = reason;
      void r;
    });
    // @ts-expect-error: hello's listener takes no argument
    socket.on('hello', (x: number) => void x);
  });

  io.serverSideEmit('ping');
  io.on('ping', () => {});
  // @ts-expect-error: not an event of InterServerEvents
  io.serverSideEmit('pong');

  io.on('connection', (socket) => {
    socket.data.name = 'john';
    socket.data.age = 42;
    // @ts-expect-error: age is a number
    socket.data.age = 'old';
  });

  // Acknowledgements with a timeout: the error first; broadcasts give an array of answers.
  io.on('connection', async (socket) => {
    socket.timeout(10_000).emit('withAck', '4', (err, e) => {
      const failed: Error = err;
      const n: number = e;
      void [failed, n];
    });
    const one: number = await socket.timeout(10_000).emitWithAck('withAck', '4');
    io.timeout(10_000).emit('withAck', '4', (err, responses) => {
      const all: number[] = responses;
      void [err, all];
    });
    const many: number[] = await io.timeout(10_000).emitWithAck('withAck', '4');
    const fromRoom: number[] = await io.to('room1').timeout(5_000).emitWithAck('withAck', '4');
    void [one, many, fromRoom];
    // @ts-expect-error: the answer is a number
    const wrong: string = await socket.timeout(10_000).emitWithAck('withAck', '4');
    void wrong;
  });

  const counts: number[] = await io.serverSideEmitWithAck('count');
  void counts;

  // Namespaces and middlewares keep the types.
  io.of('/admin').on('connection', (socket) => {
    socket.emit('basicEmit', 1, '2', Buffer.from([3]));
    const name: string = socket.data.name;
    void name;
  });
  io.use((socket, next) => {
    socket.data.age = 18;
    next();
  });

  const sockets = await io.in('room1').fetchSockets();
  for (const s of sockets) {
    const age: number = s.data.age;
    s.emit('noArg');
    s.join('room2');
    void age;
  }
  const remote: RemoteSocket<ServerToClientEvents, SocketData> | undefined = sockets[0];
  void remote;

  type MySocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
  const greet = (socket: MySocket) => socket.emit('noArg');
  io.on('connection', greet);

  // Without type parameters everything is allowed, as before.
  const loose = new Server();
  loose.on('connection', (socket: Socket<DefaultEventsMap, DefaultEventsMap>) => {
    socket.emit('anything', 1, 'two', { three: 3 });
    socket.on('whatever', (...args) => void args);
  });
  await io.close();
  await loose.close();
}

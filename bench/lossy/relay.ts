// A delay relay for the lossy-network bench: TCP and UDP on 127.0.0.1:<port> forwarded to a target, each byte and
// datagram held `delayMs` in each direction (so the round trip grows by 2 × delayMs). This kernel has no netem.
import dgram from 'node:dgram';
import net from 'node:net';

export interface Relay {
  port: number;
  close(): Promise<void>;
}

/** Starts the TCP and UDP relays on one free port of 127.0.0.1. */
export async function startRelay(targetHost: string, targetPort: number, delayMs: number): Promise<Relay> {
  const later = (f: () => void) => setTimeout(f, delayMs);
  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((down) => {
    const up = net.connect(targetPort, targetHost);
    for (const s of [down, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    // Equal delays keep the order: timers of the same length fire in the order they were set.
    down.on('data', (d) => later(() => up.writable && up.write(d)));
    up.on('data', (d) => later(() => down.writable && down.write(d)));
    down.on('end', () => later(() => up.end()));
    up.on('end', () => later(() => down.end()));
    down.on('close', () => later(() => up.destroy()));
    up.on('close', () => later(() => down.destroy()));
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const port = (tcp.address() as net.AddressInfo).port;
  const front = dgram.createSocket('udp4');
  const ups = new Map<string, dgram.Socket>();
  front.on('message', (msg, from) => {
    const key = `${from.address}:${from.port}`;
    let up = ups.get(key);
    if (!up) {
      const s = dgram.createSocket('udp4');
      s.on('message', (back) => later(() => front.send(back, from.port, from.address)));
      s.on('error', () => {});
      s.connect(targetPort, targetHost);
      ups.set(key, s);
      up = s;
    }
    const u = up;
    later(() => {
      try {
        u.send(msg);
      } catch {
        // not connected yet: the datagram is lost, as on a real network
      }
    });
  });
  await new Promise<void>((resolve) => front.bind(port, '127.0.0.1', resolve));
  return {
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      for (const s of ups.values()) s.close();
      front.close();
      await new Promise((r) => tcp.close(r));
    },
  };
}

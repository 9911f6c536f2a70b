// The pub/sub transport of a gale.cluster() worker without Redis: messages go to the primary over node:cluster's
// IPC channel ('advanced' serialization: payload bytes cross as bytes) and the primary (ipc-relay.ts) hands them to
// the workers that want them. One message listener serves every bus (app) of the process.

import { type BusMessage, type Control, type DataMessage, isGaleMessage, type ToWorker } from './protocol.js';
import type { Transport, TransportHost } from './pubsub.js';

const hosts = new Map<string, TransportHost>();
let listening = false;

function onMessage(msg: unknown): void {
  if (!isGaleMessage(msg) || msg.gale !== 'ps') return;
  const m = (msg as Extract<ToWorker, { gale: 'ps' }>).m;
  for (const [id, h] of hosts) {
    if (id === m.from) continue;
    if (m.k === 'data') h.onData(m);
    else h.onControl(m);
  }
}

function post(m: BusMessage, done?: (err: Error | null) => void): void {
  if (process.send === undefined || !process.connected) {
    done?.(new Error('the IPC channel to the cluster primary is closed'));
    return;
  }
  process.send({ gale: 'ps', m }, undefined, {}, (err: Error | null) => done?.(err));
}

/** Pub/sub through the cluster primary. */
export class IpcTransport implements Transport {
  readonly name = 'ipc';
  private host: TransportHost | undefined;

  get connected(): boolean {
    return process.connected;
  }

  start(host: TransportHost): void {
    this.host = host;
    hosts.set(host.id, host);
    if (!listening) {
      process.on('message', onMessage);
      listening = true;
    }
    queueMicrotask(() => host.onConnected());
  }

  subscribe(): Promise<void> {
    return Promise.resolve(); // the primary learns topics from the control messages
  }
  unsubscribe(): Promise<void> {
    return Promise.resolve();
  }

  control(m: Control): void {
    post(m);
  }

  data(m: DataMessage): Promise<void> {
    return new Promise((resolve, reject) => post(m, (err) => (err ? reject(err) : resolve())));
  }

  close(): Promise<void> {
    if (this.host !== undefined) hosts.delete(this.host.id);
    if (hosts.size === 0 && listening) {
      process.off('message', onMessage);
      listening = false;
    }
    return Promise.resolve();
  }
}

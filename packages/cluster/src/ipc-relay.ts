// The primary's side of pub/sub between workers on one machine without Redis: control messages go to every
// worker (each keeps its own count of who wants which topic); a publish goes only to the workers that have a
// subscriber for one of its topics. A worker that exits is announced gone ('bye') for each of its apps.
import type { Worker } from 'node:cluster';
import type { BusMessage, ToWorker } from './protocol.js';

interface Peer {
  worker: Worker;
  topics: Set<string>;
}

export class IpcRelay {
  private readonly peers = new Map<string, Peer>();

  /** A pub/sub message from `worker`. */
  onMessage(worker: Worker, m: BusMessage): void {
    if (m.k === 'data') {
      const targets = new Set<Worker>();
      for (const [id, p] of this.peers) {
        if (id === m.from || targets.has(p.worker)) continue;
        for (const t of m.topics) {
          if (p.topics.has(t)) {
            targets.add(p.worker);
            break;
          }
        }
      }
      for (const w of targets) deliver(w, { gale: 'ps', m });
      return;
    }
    let p = this.peers.get(m.from);
    if (m.k === 'bye') {
      this.peers.delete(m.from);
    } else {
      if (p === undefined) {
        p = { worker, topics: new Set() };
        this.peers.set(m.from, p);
      }
      if (m.k === 'hello' || m.k === 'state') p.topics = new Set(m.topics);
      else if (m.k === 'sub') p.topics.add(m.topic);
      else if (m.k === 'unsub') p.topics.delete(m.topic);
    }
    // Every worker with a pub/sub app hears control messages, the sender's own too (another app there is another
    // peer). A worker whose first app starts later sends its hello then and gets everyone's state back.
    this.broadcast({ gale: 'ps', m });
  }

  /** `worker` exited: its apps are gone. */
  removeWorker(worker: Worker): void {
    for (const [id, p] of this.peers) {
      if (p.worker !== worker) continue;
      this.peers.delete(id);
      this.broadcast({ gale: 'ps', m: { k: 'bye', from: id } });
    }
  }

  private broadcast(m: ToWorker): void {
    const seen = new Set<Worker>();
    for (const p of this.peers.values()) {
      if (seen.has(p.worker)) continue;
      seen.add(p.worker);
      deliver(p.worker, m);
    }
  }
}

function deliver(worker: Worker, m: ToWorker): void {
  if (!worker.isConnected()) return;
  try {
    worker.send(m, undefined, () => {});
  } catch {}
}

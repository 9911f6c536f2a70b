// Messages of the scale-out layer: between cluster workers and their primary (node:cluster IPC, 'advanced'
// serialization), and the pub/sub control protocol every process speaks (over IPC or a Redis channel).
// Types and tiny helpers only.
import type { AddressInfo } from 'gale';

/**
 * Pub/sub control messages. Every process announces the topics its sockets are subscribed to, so a publisher
 * knows which topics anyone else wants (and sends nothing for the others):
 * - `hello`: "here are my topics; send me yours" (everyone, or only peer `to`) — on start and after reconnecting;
 * - `state`: a peer's whole topic list (the answer to hello);
 * - `sub`/`unsub`: one topic gained its first / lost its last local subscriber; `seq` counts these changes, so a
 *   gap (a lost message) makes the receiver ask that peer for its state again;
 * - `alive`: a heartbeat with the current `seq`; peers not heard from for three heartbeats are forgotten;
 * - `bye`: the peer is going away.
 */
export type Control =
  | { k: 'hello'; from: string; topics: string[]; seq: number; to?: string }
  | { k: 'state'; from: string; topics: string[]; seq: number }
  | { k: 'sub' | 'unsub'; from: string; topic: string; seq: number }
  | { k: 'alive'; from: string; seq: number }
  | { k: 'bye'; from: string };

/** A publish for other processes (over IPC; Redis carries the same fields in a binary frame, see redis.ts). */
export interface DataMessage {
  k: 'data';
  from: string;
  topics: string[];
  data: string | Uint8Array;
  binary: boolean;
  compress: boolean;
  except?: string[];
  volatile?: boolean;
}

export type BusMessage = Control | DataMessage;

/** Worker → primary. */
export type ToPrimary =
  | { gale: 'listening'; address: AddressInfo }
  | { gale: 'mem'; rss: number; heapUsed: number; heapTotal: number; external: number }
  | { gale: 'crash'; error: string }
  | { gale: 'ps'; m: BusMessage }
  | { gale: 'metrics?'; id: number }
  | { gale: 'metrics='; id: number; metrics: unknown[] };

/** Primary → worker. */
export type ToWorker =
  | { gale: 'ps'; m: BusMessage }
  | { gale: 'metrics!'; id: number }
  | { gale: 'metrics.'; id: number; list: unknown[][] };

/** Whether `m` is one of ours (node:cluster also delivers the application's own messages). */
export function isGaleMessage(m: unknown): m is { gale: string } {
  return typeof m === 'object' && m !== null && typeof (m as { gale?: unknown }).gale === 'string';
}

/** Environment variables the primary gives its workers. */
export const ENV = {
  entry: 'GALE_CLUSTER_ENTRY',
  slot: 'GALE_WORKER_SLOT',
  generation: 'GALE_WORKER_GENERATION',
  drainTimeout: 'GALE_DRAIN_TIMEOUT',
  drainDelay: 'GALE_DRAIN_DELAY',
  pubsub: 'GALE_PUBSUB',
  memoryInterval: 'GALE_MEMORY_INTERVAL',
} as const;

// An app's WebSocket pub/sub: publishing to topics (the engine fans out; a relay carries it to other processes),
// subscriber counts, and the topic-change listeners the engine's EV_TOPIC reaches. App (app.ts) owns one and delegates.
import type { NativeServer } from '../native.js';
import type { Relay } from '../scale-hooks.js';
import type { PublishOptions, WsData } from '../ws.js';
import type { WsHub } from '../ws-route.js';

/** One app's pub/sub. */
export class PubSub {
  private readonly topicListeners = new Set<(topic: string, active: boolean) => void>();

  /** `hub`: the app's WebSocket sockets, whose `relay` hands publishes on to other processes. */
  constructor(
    private readonly n: NativeServer,
    private readonly hub: WsHub,
  ) {}

  /** Publishes to the topic's local subscribers, then through the relay (`App.publish`). */
  publish(topic: string | readonly string[], data: WsData, options?: PublishOptions): number {
    const body =
      typeof data === 'string' || data instanceof Uint8Array
        ? data
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const binary = options?.binary ?? typeof body !== 'string';
    const compress = options?.compress ?? true;
    const n = this.n.wsPublish(topic, body, binary, compress, undefined, options?.except, options?.volatile);
    // Cross-process pub/sub (gale.pubsub, cluster workers): local subscribers first, then the other processes.
    const relay = this.hub.relay;
    if (relay !== undefined && options?.local !== true)
      relay(topic, body, binary, compress, options?.except, options?.volatile);
    return n;
  }

  /** Where publishes go after the engine's (`App.setPublishRelay`); undefined stops relaying. */
  setRelay(relay: Relay | undefined): void {
    this.hub.relay = relay;
  }

  /** Sockets subscribed to `topic` right now (`App.subscribers`). */
  subscribers(topic: string): number {
    return this.n.wsSubscribers(topic);
  }

  /** Adds a topic-change listener; the engine reports changes while any is left (`App.onTopicChange`). */
  onTopicChange(listener: (topic: string, active: boolean) => void): () => void {
    this.topicListeners.add(listener);
    if (this.topicListeners.size === 1) this.n.wsWatchTopics(true);
    return () => {
      if (this.topicListeners.delete(listener) && this.topicListeners.size === 0) this.n.wsWatchTopics(false);
    };
  }

  /** The engine's EV_TOPIC: `topic` got its first local subscriber (`active`) or lost its last. */
  topicChanged(topic: string, active: boolean): void {
    for (const l of this.topicListeners) l(topic, active);
  }
}

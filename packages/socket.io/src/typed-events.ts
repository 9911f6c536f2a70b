// The event-map types of socket.io 4 (its `typed-events`), so that `Server<ClientToServer, ServerToClient,
// InterServer, SocketData>` code written for the `socket.io` package types the same here: event names and arguments
// of `emit`/`on`, acknowledgements (with the timeout error first after `timeout()`, and arrays of answers for
// broadcasts), `emitWithAck` results. Types only; the runtime is untyped (string events, any arguments).
import type { DisconnectReason } from './types.js';

/**
 * A map of event names to listener signatures.
 *
 * @example
 * interface ClientToServer {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 * }
 * const io = new Server<ClientToServer>(app);
 * io.on('connection', (socket) => socket.on('hello', (name, ack) => ack(`hi ${name}`)));
 */
export interface EventsMap {
  // biome-ignore lint/suspicious/noExplicitAny: an event's signature is whatever the application declares
  [event: string]: any;
}

/**
 * The map used when none is given: any event, any arguments.
 *
 * @example
 * const io = new Server<DefaultEventsMap>(app); // as new Server(app): any event, any arguments
 * io.emit('anything', 1, 'two', { three: 3 });
 */
export interface DefaultEventsMap {
  // biome-ignore lint/suspicious/noExplicitAny: untyped events take anything
  [event: string]: (...args: any[]) => void;
}

/**
 * The event names of a map.
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type N = EventNames<Events>; // 'hello' | 'ping'
 */
export type EventNames<Map extends EventsMap> = keyof Map & (string | symbol);

/**
 * The arguments of an event.
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type P = EventParams<Events, 'hello'>; // [name: string, ack: (greeting: string) => void]
 */
export type EventParams<Map extends EventsMap, Ev extends EventNames<Map>> = Parameters<Map[Ev]>;

type IsAny<T> = 0 extends 1 & T ? true : false;
// biome-ignore lint/suspicious/noExplicitAny: a function of any shape
type AnyFunction = (...args: any[]) => any;

/**
 * The last element of a tuple (of an array: its element type).
 *
 * @example
 * type L = Last<[string, number, boolean]>; // boolean
 */
export type Last<T extends readonly unknown[]> = T extends readonly [infer Only]
  ? Only
  : T extends readonly [unknown, ...infer Rest]
    ? Last<Rest>
    : T extends ReadonlyArray<infer Item>
      ? Item
      : never;

/**
 * A tuple without its last element.
 *
 * @example
 * type H = AllButLast<[string, number, boolean]>; // [string, number]
 */
// biome-ignore lint/suspicious/noExplicitAny: what socket.io gives for a non-tuple
export type AllButLast<T extends any[]> = T extends [...infer Head, unknown] ? Head : any[];

/** Whether an event's last argument is an acknowledgement (a function). */
type EndsWithAck<Map extends EventsMap, K extends EventNames<Map>> =
  Parameters<Map[K]> extends never[] ? false : Last<Parameters<Map[K]>> extends AnyFunction ? true : false;

/**
 * The events whose last argument is an acknowledgement that answers with a value (every event of an untyped map):
 * what `emitWithAck` can resolve with. An acknowledgement without arguments (or with only the timeout error) has
 * nothing to resolve with, so its event is left out, as in socket.io.
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type A = EventNamesWithAck<Events>; // 'hello': what emitWithAck takes
 */
export type EventNamesWithAck<Map extends EventsMap, K extends EventNames<Map> = EventNames<Map>> =
  IsAny<Last<Parameters<Map[K]>> | Map[K]> extends true
    ? K
    : K extends K
      ? EndsWithAck<Map, K> extends true
        ? FirstNonErrorArg<Last<Parameters<Map[K]>>> extends void
          ? never
          : K
        : never
      : never;

/**
 * The events without an acknowledgement (every event of an untyped map).
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type W = EventNamesWithoutAck<Events>; // 'ping'
 */
export type EventNamesWithoutAck<Map extends EventsMap, K extends EventNames<Map> = EventNames<Map>> =
  IsAny<Last<Parameters<Map[K]>> | Map[K]> extends true
    ? K
    : K extends K
      ? EndsWithAck<Map, K> extends true
        ? never
        : K
      : never;

/**
 * The map without its events that take an acknowledgement (a broadcast without timeout cannot collect answers).
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type B = RemoveAcknowledgements<Events>; // { ping: () => void }: what io.emit can broadcast
 */
export type RemoveAcknowledgements<E extends EventsMap> = { [K in EventNamesWithoutAck<E>]: E[K] };

type LooseParameters<T> = T extends (...args: infer P) => unknown ? P : never;

/**
 * The events whose acknowledgement takes an error first (after `timeout()`).
 *
 * @example
 * interface Events {
 *   save: (doc: object, ack: (err: Error, id: number) => void) => void;
 * }
 * type E = EventNamesWithError<Events>; // 'save'
 */
export type EventNamesWithError<Map extends EventsMap, K extends EventNamesWithAck<Map> = EventNamesWithAck<Map>> =
  IsAny<Last<Parameters<Map[K]>> | Map[K]> extends true
    ? K
    : K extends K
      ? LooseParameters<Last<Parameters<Map[K]>>>[0] extends Error
        ? K
        : never
      : never;

/**
 * The value an acknowledgement gives (the first argument that is not the timeout error); `any` for an untyped one
 * (socket.io's, so an untyped `emitWithAck` resolves with `any`).
 *
 * @example
 * type V = FirstNonErrorArg<(err: Error, id: number) => void>; // number
 */
export type FirstNonErrorArg<T> = T extends (...args: infer P) => unknown
  ? P[0] extends Error
    ? P[1]
    : P[0]
  : // biome-ignore lint/suspicious/noExplicitAny: an untyped acknowledgement answers with anything
    any;

/** Acknowledgements get the timeout error as their first argument (unless they already take one). */
type PrependTimeoutError<T extends unknown[]> = {
  [K in keyof T]: T[K] extends (...args: infer P) => infer R
    ? P[0] extends Error
      ? T[K]
      : (err: Error, ...args: P) => R
    : T[K];
};

/** Each argument becomes an array of them (one answer per client). */
type Arrays<T extends unknown[]> = { [K in keyof T]: T[K][] };
/** The tuple `T` with its labels, less its first element's type (keeps the argument names shown in editors). */
type KeepLabels<T extends unknown[]> = T extends [unknown, ...infer R]
  ? T extends [...infer H, ...R]
    ? H
    : never
  : never;

/** Acknowledgements of a broadcast: each argument becomes an array of the clients' answers. */
type MultipleResponses<T extends unknown[]> = {
  [K in keyof T]: T[K] extends (...args: infer P) => infer R
    ? P extends [Error]
      ? (err: Error) => R
      : P extends [Error, ...infer Rest]
        ? (err: Error, ...args: KeepLabels<Arrays<Rest>>) => R
        : P extends []
          ? () => R
          : (...args: KeepLabels<Arrays<P>>) => R
    : T[K];
};

/**
 * The map after `timeout()`: acknowledgements take the timeout error first.
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type T = DecorateAcknowledgements<Events>['hello']; // (name, ack: (err: Error, greeting: string) => void) => void
 */
export type DecorateAcknowledgements<E> = {
  [K in keyof E]: E[K] extends (...args: infer P) => infer R ? (...args: PrependTimeoutError<P>) => R : E[K];
};

/**
 * The map of a broadcast with a timeout: the error first, then arrays of answers.
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * // io.timeout(1000).emit('hello', …): the error first, then every client's answer
 * type T = DecorateAcknowledgementsWithTimeoutAndMultipleResponses<Events>['hello'];
 */
export type DecorateAcknowledgementsWithTimeoutAndMultipleResponses<E> = {
  [K in keyof E]: E[K] extends (...args: infer P) => infer R
    ? (...args: MultipleResponses<PrependTimeoutError<P>>) => R
    : E[K];
};

/**
 * The map of a broadcast: arrays of answers.
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * // An ack of a broadcast gets an array of the clients' answers:
 * type T = DecorateAcknowledgementsWithMultipleResponses<Events>['hello']; // (name, ack: (greeting: string[]) => void) => void
 */
export type DecorateAcknowledgementsWithMultipleResponses<E> = {
  [K in keyof E]: E[K] extends (...args: infer P) => infer R ? (...args: MultipleResponses<P>) => R : E[K];
};

/**
 * Reserved and user event names together (for `on`).
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type N = ReservedOrUserEventNames<SocketReservedEventsMap, Events>; // 'disconnect' | 'disconnecting' | 'error' | 'hello' | 'ping'
 */
export type ReservedOrUserEventNames<Reserved extends EventsMap, User extends EventsMap> =
  | EventNames<Reserved>
  | EventNames<User>;

/**
 * The listener of a reserved or user event (an untyped listener for a name neither map has).
 *
 * @example
 * interface Events {
 *   hello: (name: string, ack: (greeting: string) => void) => void;
 *   ping: () => void;
 * }
 * type L = ReservedOrUserListener<SocketReservedEventsMap, Events, 'disconnect'>; // (reason, description?) => void
 */
export type ReservedOrUserListener<
  Reserved extends EventsMap,
  User extends EventsMap,
  Ev extends ReservedOrUserEventNames<Reserved, User>,
> = OrUntyped<Ev extends EventNames<Reserved> ? Reserved[Ev] : Ev extends EventNames<User> ? User[Ev] : never>;

// biome-ignore lint/suspicious/noExplicitAny: the untyped listener
type OrUntyped<T> = [T] extends [never] ? (...args: any[]) => void | Promise<void> : T;

/**
 * The events a socket itself emits.
 *
 * @example
 * io.on('connection', (socket) => {
 *   socket.on('disconnect', (reason) => console.log('gone:', reason)); // typed from this map
 * });
 */
export interface SocketReservedEventsMap {
  // biome-ignore lint/suspicious/noExplicitAny: socket.io's description is untyped
  disconnect: (reason: DisconnectReason, description?: any) => void;
  // biome-ignore lint/suspicious/noExplicitAny: socket.io's description is untyped
  disconnecting: (reason: DisconnectReason, description?: any) => void;
  error: (err: Error) => void;
}

/**
 * An error a namespace middleware refuses a connection with; `data` reaches the client's connect_error.
 *
 * @example
 * io.use((socket, next) => {
 *   const err: ExtendedError = new Error('not authorized');
 *   err.data = { content: 'log in first' }; // the client's connect_error gets it
 *   next(err);
 * });
 */
export interface ExtendedError extends Error {
  // biome-ignore lint/suspicious/noExplicitAny: whatever the application sends
  data?: any;
}

/**
 * `[eventName, ...args]`, as socket middlewares (`socket.use`) get an incoming event.
 *
 * @example
 * io.on('connection', (socket) => {
 *   socket.use((packet, next) => {
 *     const [name] = packet as Event; // [eventName, ...args]
 *     if (name === 'admin') next(new Error('no'));
 *     else next();
 *   });
 * });
 */
// biome-ignore lint/suspicious/noExplicitAny: the event's arguments
export type Event = [string, ...any[]];

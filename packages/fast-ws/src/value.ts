// fast-ws value encoding: the `replicator` text that sits between 0x01 and 0x02 in every frame.
// Browser-safe (no node: imports). Decoding is hardened because the text comes from the network.
/// <reference path="./replicator.d.ts" />
import Replicator, { type Transform } from 'replicator';

/** Turns replicator's reference array into text and back (replicator's own default is JSON). */
export interface Serializer {
  serialize(references: unknown[]): string;
  deserialize(text: string): unknown;
}

/**
 * Encodes one value to replicator text and back (without the 0x01/0x02 framing).
 *
 * @example
 * const codec = createValueCodec();
 * const text = codec.encode({ when: new Date() }); // Dates, Maps, Sets, … survive the round trip
 * const back = codec.decode(text);
 */
export interface ValueCodec {
  /** Throws on values the serializer cannot represent (a BigInt with JSON). */
  encode(value: unknown): string;
  /** Throws on anything that is not a valid replicator document; callers map that to close code 1007. */
  decode(text: string): unknown;
}

export interface ValueCodecOptions {
  /** Text form of the reference array; default JSON, as fastWS's `parserOptions` default. */
  serializer?: Serializer;
  /**
   * Send `Error.stack` along with name and message (replicator does). Default false: a server that replies
   * with an Error should not hand its file paths to every client. Decoding accepts both forms.
   */
  errorStacks?: boolean;
}

// Error kinds a peer may ask us to construct. replicator itself calls `new GLOBAL[name](message)`, which lets
// a peer run `new SharedArrayBuffer(2e9)` or `new Function(src)`; only these are allowed here.
const ERROR_CTORS = new Map<string, ErrorConstructor>([
  ['Error', Error],
  ['EvalError', EvalError],
  ['RangeError', RangeError],
  ['ReferenceError', ReferenceError],
  ['SyntaxError', SyntaxError],
  ['TypeError', TypeError],
  ['URIError', URIError],
]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad(type: string): never {
  throw new TypeError(`malformed ${type} value`);
}

function errorTransform(stacks: boolean): Transform {
  return {
    type: '[[Error]]',
    shouldTransform: (_type, val) => val instanceof Error,
    toSerializable: (val) => {
      const err = val as Error;
      return stacks
        ? { name: err.name, message: err.message, stack: err.stack }
        : { name: err.name, message: err.message };
    },
    fromSerializable: (val) => {
      if (!isRecord(val) || typeof val.message !== 'string') bad('[[Error]]');
      const name = typeof val.name === 'string' ? val.name : 'Error';
      const err = new (ERROR_CTORS.get(name) ?? Error)(val.message);
      // Without a sent stack, the local one would point into this decoder; keep only the header line.
      err.stack = typeof val.stack === 'string' ? val.stack : `${name}: ${val.message}`;
      return err;
    },
  };
}

// Checks a transform's data before replicator's own fromSerializable runs. Its originals trust the shape:
// `[[Map]]` with {"length":1e12} loops forever, `[[TypedArray]]` with "arr":1e9 allocates gigabytes.
function guard(t: Transform, check: (val: unknown) => boolean): Transform {
  return { ...t, fromSerializable: (val) => (check(val) ? t.fromSerializable(val) : bad(t.type)) };
}

function hardened(t: Transform): Transform {
  switch (t.type) {
    case '[[Date]]':
      return guard(t, (v) => typeof v === 'number');
    case '[[RegExp]]':
      return guard(t, (v) => isRecord(v) && typeof v.src === 'string' && typeof v.flags === 'string');
    case '[[ArrayBuffer]]':
    case '[[Buffer]]':
    case '[[Map]]':
    case '[[Set]]':
      return guard(t, Array.isArray);
    case '[[TypedArray]]':
      return guard(t, (v) => isRecord(v) && typeof v.ctorName === 'string' && Array.isArray(v.arr));
    default:
      return t; // [[NaN]], [[undefined]]: no data is read
  }
}

/**
 * Creates a replicator-compatible value codec with hardened decoding: the top level must be a non-empty
 * array, `{"@r": i}` can only reach entries of that array, and special values are shape-checked.
 *
 * @example
 * const codec = createValueCodec();
 * codec.encode('abc'); // '["abc"]'
 * codec.decode('[{"@t":"[[Date]]","data":0}]'); // Date(0)
 */
export function createValueCodec(options: ValueCodecOptions = {}): ValueCodec {
  const custom = options.serializer;
  const serialize = custom ? (refs: unknown) => custom.serialize(refs as unknown[]) : JSON.stringify;
  // decode() below parses and checks the text itself and hands replicator the parsed array.
  const rep = new Replicator({ serialize, deserialize: (refs) => refs });
  const stock = rep.transforms.slice();
  rep.removeTransforms(stock);
  rep.addTransforms(
    stock.map((t) => (t.type === '[[Error]]' ? errorTransform(options.errorStacks === true) : hardened(t))),
  );

  return {
    encode(value) {
      // Hot path: a primitive root encodes as `[json]`, byte for byte what replicator's walk produces.
      if (!custom) {
        const type = typeof value;
        if (type === 'string' || type === 'boolean' || value === null || (type === 'number' && !Number.isNaN(value))) {
          return `[${JSON.stringify(value)}]`;
        }
      }
      return rep.encode(value);
    },
    decode(text) {
      const refs = custom ? custom.deserialize(text) : JSON.parse(text);
      if (!Array.isArray(refs) || refs.length === 0) throw new TypeError('not a replicator reference array');
      const root = refs[0];
      if (typeof root !== 'object' || root === null) return root;
      // replicator resolves {"@r": key} as refs[key]; "__proto__" or "constructor" would hand out
      // Array.prototype or Array. Without a prototype, every key that is not an index reads as undefined.
      Object.setPrototypeOf(refs, null);
      return rep.decode(refs);
    },
  };
}

/** The default codec (JSON text, no Error stacks sent). */
export const defaultValueCodec: ValueCodec = createValueCodec();

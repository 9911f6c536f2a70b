// Types for the npm `replicator` package (1.0.x), which ships none. Only what value.ts uses is declared;
// `transforms` is an undocumented but stable field of the 1.0.x constructor, read to rebuild hardened transforms.
// Declared as a default export: Node's ESM loader hands `module.exports` (the constructor) to a default import.
declare module 'replicator' {
  export interface Transform {
    type: string;
    shouldTransform(type: string, val: unknown): boolean;
    toSerializable(val: unknown): unknown;
    fromSerializable(val: unknown): unknown;
  }
  export interface Serializer {
    serialize(references: unknown): string;
    /** Receives whatever was passed to `decode()`. */
    deserialize(val: unknown): unknown;
  }
  export default class Replicator {
    constructor(serializer?: Serializer);
    transforms: Transform[];
    addTransforms(transforms: Transform | Transform[]): this;
    removeTransforms(transforms: Transform | Transform[]): this;
    encode(val: unknown): string;
    decode(val: unknown): unknown;
  }
}

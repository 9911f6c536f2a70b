// Helpers of the type tests (tests/types, compiled by `npm run typecheck`): a type equality that tells `string` from
// `string | undefined` and `any` from everything, and a call that compiles only when it holds.

/** `true` when A and B are the same type, `false` otherwise. */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when given `true`: `ok<Equal<typeof x, string>>(true)`. */
export function ok<Holds extends true>(_holds: Holds): void {}

/** A value of any type, for expressions that are only type-checked. */
export declare function value<T>(): T;

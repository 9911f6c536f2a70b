// Types of platforms.mjs, for the TypeScript tests that read the platform table.
export interface Target {
  triple: string;
  rust: string;
  zig?: string;
  os: string;
  cpu: string;
  libc?: string;
}
export const SCOPE: string;
export const TARGETS: Target[];
export function packageName(triple: string): string;
export function cargoLibName(rust: string): string;
export function hostTriple(): string;
export function targetFor(triple: string): Target | undefined;

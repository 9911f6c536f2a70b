// Types of cache-dir.mjs, for the TypeScript tests and the bench.
export function cacheDir(...parts: string[]): string;

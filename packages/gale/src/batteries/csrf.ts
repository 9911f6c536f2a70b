// The `gale/csrf` entry point (CSRF protection): the public names only, the same objects `gale` exports (middleware/index.ts
// re-exports this file), so the subpath and the root hand out one module, not a copy.
export type { CsrfOptions } from '../middleware/csrf.js';
export { csrf } from '../middleware/csrf.js';

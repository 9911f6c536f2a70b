// The `gale/security` entry point (security headers): the public names only, the same objects `gale` exports (middleware/index.ts
// re-exports this file), so the subpath and the root hand out one module, not a copy.
export type { CspDirectiveValue, CspOptions, SecurityOptions } from '../middleware/security.js';
export { security, securityHeaders } from '../middleware/security.js';

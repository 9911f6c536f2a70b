// The `gale/request-id` entry point (request ids): the public names only, the same objects `gale` exports (middleware/index.ts
// re-exports this file), so the subpath and the root hand out one module, not a copy.
export type { RequestIdOptions } from '../middleware/request-id.js';
export { requestId } from '../middleware/request-id.js';

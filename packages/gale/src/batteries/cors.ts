// The `gale/cors` entry point (CORS): the public names only, the same objects `gale` exports (middleware/index.ts
// re-exports this file), so the subpath and the root hand out one module, not a copy.
export type {
  CorsOptions,
  CorsOptionsDelegate,
  CorsPolicy,
  OriginFunction,
  OriginMatcher,
} from '../middleware/cors.js';
export { cors, corsPolicy } from '../middleware/cors.js';

// The `gale/session` entry point (sessions and their stores): the public names only, the same objects `gale` exports (middleware/index.ts
// re-exports this file), so the subpath and the root hand out one module, not a copy.
export type { SessionCallback, SessionData, SessionOptions, SessionStore } from '../middleware/session.js';
export { Session, session } from '../middleware/session.js';
export type { RedisStoreOptions } from '../middleware/session-stores.js';
export { MemoryStore, RedisStore } from '../middleware/session-stores.js';

// The batteries: middleware Gale ships (security headers, CORS, sessions and their stores, CSRF, request ids),
// exported from the `gale` entry point. None of it runs unless an app adds it.
export type { CorsOptions, CorsOptionsDelegate, CorsPolicy, OriginFunction, OriginMatcher } from './cors.js';
export { cors, corsPolicy } from './cors.js';
export type { CsrfOptions } from './csrf.js';
export { csrf } from './csrf.js';
export type { RequestIdOptions } from './request-id.js';
export { requestId } from './request-id.js';
export type { CspDirectiveValue, CspOptions, SecurityOptions } from './security.js';
export { security, securityHeaders } from './security.js';
export type { SessionCallback, SessionData, SessionOptions, SessionStore } from './session.js';
export { Session, session } from './session.js';
export type { RedisStoreOptions } from './session-stores.js';
export { MemoryStore, RedisStore } from './session-stores.js';

// The batteries: middleware Gale ships (security headers, CORS, sessions and their stores, CSRF, request ids),
// exported from the `gale` entry point and each by its own subpath (`gale/cors` …: batteries/, package.json). None of
// it runs unless an app adds it.
export * from '../batteries/cors.js';
export * from '../batteries/csrf.js';
export * from '../batteries/request-id.js';
export * from '../batteries/security.js';
export * from '../batteries/session.js';

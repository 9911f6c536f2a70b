'use strict';
// Shared by the CommonJS entries (cjs/*.cjs): require() the ES module build with Node's require of ES modules
// (on by default in Node >= 20.19 and >= 22.12) and return it, or explain what to do when this Node cannot.
// One build, not a second CommonJS copy: a single HttpError/Request/Response class and one engine per process.
function requireEsm(path, name) {
  try {
    return require(path);
  } catch (err) {
    if (err && (err.code === 'ERR_REQUIRE_ESM' || err.code === 'ERR_REQUIRE_ASYNC_MODULE')) {
      throw new Error(
        `require('${name}') needs Node.js >= 20.19 or >= 22.12 (require of ES modules); on this Node ` +
          `(${process.version}) upgrade Node, or use import { … } from '${name}' (or await import('${name}')) instead`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** The module's named exports, as `import * as mod` sees them. */
exports.namespace = requireEsm;

/** The default export (a function) with the named exports attached, as Express's own CommonJS export is. */
exports.defaultWithNamed = function defaultWithNamed(path, name) {
  const mod = requireEsm(path, name);
  const fn = mod.default;
  for (const key of Object.keys(mod)) if (key !== 'default' && !(key in fn)) fn[key] = mod[key];
  fn.default = fn;
  return fn;
};

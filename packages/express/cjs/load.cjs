'use strict';
// Shared by this package's CommonJS entries: the ES module build's default export (the express function) with its
// named exports attached, as Express's own CommonJS export is. One build, through Node's require() of ES modules.
exports.defaultWithNamed = function defaultWithNamed(path) {
  const mod = require(path);
  const fn = mod.default;
  for (const key of Object.keys(mod)) if (key !== 'default' && !(key in fn)) fn[key] = mod[key];
  fn.default = fn;
  return fn;
};

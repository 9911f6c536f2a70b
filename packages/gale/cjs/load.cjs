'use strict';
// Shared by the CommonJS entries: require() the ES module and return its default export with the
// named exports attached, or explain what to do when this Node cannot require ES modules.
module.exports = function load(path, name) {
  let mod;
  try {
    mod = require(path);
  } catch (err) {
    if (err && (err.code === 'ERR_REQUIRE_ESM' || err.code === 'ERR_REQUIRE_ASYNC_MODULE')) {
      throw new Error(
        `require('${name}') needs Node.js >= 20.19 (require of ES modules); on this Node (${process.version}) ` +
          `use import express from '${name}' instead`,
        { cause: err },
      );
    }
    throw err;
  }
  const fn = mod.default;
  for (const key of Object.keys(mod)) if (key !== 'default' && !(key in fn)) fn[key] = mod[key];
  fn.default = fn;
  return fn;
};

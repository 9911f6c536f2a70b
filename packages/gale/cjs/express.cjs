'use strict';
// CommonJS entry of `gale/express` (require('gale/express')): loads the ES module build with Node's
// require() of ES modules (Node >= 20.19 / 22.12) and exports the express function itself, as
// Express does, with its helpers (Router, json, static, …) as properties.
module.exports = require('./load.cjs')('../dist/express/index.js', 'gale/express');

'use strict';
// CommonJS entry of `gale/express` (require('gale/express')): the express function itself, as Express exports it,
// with its helpers (Router, json, static, …) as properties. Node >= 20.19 / 22.12 (see load.cjs).
module.exports = require('./load.cjs').defaultWithNamed('../dist/express/index.js', 'gale/express');

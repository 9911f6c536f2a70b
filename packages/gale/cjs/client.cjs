'use strict';
// CommonJS entry of `gale/client` (const { client } = require('gale/client')): the ES module build's named exports,
// through Node's require of ES modules (Node >= 20.19 / 22.12, see load.cjs).
module.exports = require('./load.cjs').namespace('../dist/client.js', 'gale/client');

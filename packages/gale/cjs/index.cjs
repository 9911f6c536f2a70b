'use strict';
// CommonJS entry of `gale` (const { gale } = require('gale')): the ES module build's named exports, through
// Node's require of ES modules (Node >= 20.19 / 22.12, see load.cjs).
module.exports = require('./load.cjs').namespace('../dist/index.js', 'gale');

'use strict';
// CommonJS entry of `gale/session`: the ES module build's named exports (the same objects `gale` exports), through
// Node's require of ES modules (Node >= 20.19 / 22.12, see load.cjs).
module.exports = require('./load.cjs').namespace('../dist/batteries/session.js', 'gale/session');

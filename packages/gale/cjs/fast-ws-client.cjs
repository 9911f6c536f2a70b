'use strict';
// CommonJS entry of `gale/fast-ws-client` (const { FastWsClient } = require('gale/fast-ws-client')); see load.cjs.
module.exports = require('./load.cjs').namespace('../dist/fastws/client.js', 'gale/fast-ws-client');

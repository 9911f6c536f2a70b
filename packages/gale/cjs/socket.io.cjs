'use strict';
// CommonJS entry of `gale/socket.io` (const { Server } = require('gale/socket.io')); see load.cjs.
module.exports = require('./load.cjs').namespace('../dist/socket.io/index.js', 'gale/socket.io');

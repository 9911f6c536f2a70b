'use strict';
// CommonJS entry of @gale-http/socket.io: the ES module's named exports, through Node's require() of ES modules (≥ 20.19).
module.exports = require('../dist/index.js');

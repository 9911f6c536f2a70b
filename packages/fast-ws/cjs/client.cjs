'use strict';
// CommonJS entry of @gale-http/fast-ws/client: the ES module's named exports, through Node's require() of ES modules.
module.exports = require('../dist/client.js');

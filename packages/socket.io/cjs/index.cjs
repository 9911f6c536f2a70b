'use strict';
// CommonJS entry of @gale-http/socket.io: the ES module's named exports (through Node's require() of ES modules,
// ≥ 20.19) on a function, as socket.io's entry is one: `require('@gale-http/socket.io')(httpServer, options)`.
const m = require('../dist/index.js');

function io(target, options) {
  return new m.Server(target, options);
}
module.exports = Object.assign(io, m);

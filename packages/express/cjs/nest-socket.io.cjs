'use strict';
// CommonJS entry of @gale-http/express/nest/socket.io: the ES module's named exports, through Node's require() of ES modules
// (≥ 20.19; @nestjs/* 12 are ES modules too): `const { GaleIoAdapter } = require('@gale-http/express/nest/socket.io')`.
module.exports = require('../dist/nest/socket.io.js');

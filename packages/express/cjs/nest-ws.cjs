'use strict';
// CommonJS entry of @gale-http/express/nest/ws: the ES module's named exports, through Node's require() of ES modules
// (≥ 20.19; @nestjs/* 12 are ES modules too): `const { GaleWsAdapter } = require('@gale-http/express/nest/ws')`.
module.exports = require('../dist/nest/ws.js');

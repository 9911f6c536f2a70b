'use strict';
// CommonJS entry of @gale-http/express/nest: the ES module's named exports, through Node's require() of ES modules
// (≥ 20.19; @nestjs/* 12 are ES modules too): `const { GaleExpressAdapter } = require('@gale-http/express/nest')`.
module.exports = require('../dist/nest/index.js');

'use strict';
// CommonJS entry of @gale-http/express: `const express = require('@gale-http/express')` (Express 5).
module.exports = require('./load.cjs').defaultWithNamed('../dist/index.js');

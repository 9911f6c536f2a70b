'use strict';
// CommonJS entry of @gale-http/express/4: `const express = require('@gale-http/express/4')` (Express 4).
module.exports = require('./load.cjs').defaultWithNamed('../dist/express4.js');

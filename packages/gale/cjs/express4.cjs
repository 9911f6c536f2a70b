'use strict';
// CommonJS entry of `gale/express4`: as cjs/express.cjs, for the Express 4 flavour.
module.exports = require('./load.cjs').defaultWithNamed('../dist/express/express4.js', 'gale/express4');

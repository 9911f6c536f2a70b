// Types of the CommonJS entry `require('gale/express4')`: the Express 4 flavour of cjs/express.d.cts.
import express = require('../dist/express/express4.js');
export = express.default;

// Types of the CommonJS entry `require('gale/express')`: the express function (the ES module's default export),
// which also carries the named exports as properties.
import express = require('../dist/express/index.js');
export = express.default;

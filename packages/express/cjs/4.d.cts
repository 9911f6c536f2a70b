// Types of the CommonJS entry `require('@gale-http/express/4')`: the express function (the ES module's default
// export), which also carries the named exports as properties.
import express = require('../dist/express4.js');
export = express.default;

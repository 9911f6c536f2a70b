// Types of the CommonJS entry `require('@gale-http/express')`: the express function (the ES module's default
// export), which also carries the named exports as properties.
import express = require('../dist/index.js');
export = express.default;

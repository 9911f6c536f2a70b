// Types of the CommonJS entry `require('gale/socket.io')`: the ES module's named exports.
export * from '../dist/socket.io/index.js';

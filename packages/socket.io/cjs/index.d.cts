// Types of the CommonJS entry `require('@gale-http/socket.io')`: the ES module's named exports.
export * from '../dist/index.js';

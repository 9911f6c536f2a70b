// Types of the CommonJS entry `require('@gale-http/express/nest/socket.io')`: the ES module's named exports.
export * from '../dist/nest/socket.io.js';

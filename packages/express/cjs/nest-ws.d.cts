// Types of the CommonJS entry `require('@gale-http/express/nest/ws')`: the ES module's named exports.
export * from '../dist/nest/ws.js';

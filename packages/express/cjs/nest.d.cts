// Types of the CommonJS entry `require('@gale-http/express/nest')`: the ES module's named exports.
export * from '../dist/nest/index.js';

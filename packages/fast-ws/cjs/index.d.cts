// Types of the CommonJS entry `require('@gale-http/fast-ws')`: the ES module's named exports.
export * from '../dist/index.js';

// Types of the CommonJS entry `require('@gale-http/engine.io')`: the ES module's named exports.
export * from '../dist/index.js';

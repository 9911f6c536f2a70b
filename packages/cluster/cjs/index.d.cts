// Types of the CommonJS entry `require('@gale-http/cluster')`: the ES module's named exports.
export * from '../dist/index.js';

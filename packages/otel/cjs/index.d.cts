// Types of the CommonJS entry `require('@gale-http/otel')`: the ES module's named exports.
export * from '../dist/index.js';

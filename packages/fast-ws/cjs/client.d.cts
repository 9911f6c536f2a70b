// Types of the CommonJS entry `require('@gale-http/fast-ws/client')`: the ES module's named exports.
export * from '../dist/client.js';

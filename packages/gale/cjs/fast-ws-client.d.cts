// Types of the CommonJS entry `require('gale/fast-ws-client')`: the ES module's named exports.
export * from '../dist/fastws/client.js';

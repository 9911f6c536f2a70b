// Types of the CommonJS entry `require('gale/client')`: the same named exports as the ES module (cjs/client.cjs returns it).
export * from '../dist/client.js';

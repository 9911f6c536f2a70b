// Types of the CommonJS entry `require('gale/request-id')`: the same named exports as the ES module (cjs/request-id.cjs returns it).
export * from '../dist/batteries/request-id.js';

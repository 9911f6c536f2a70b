// Types of the CommonJS entry `require('gale/security')`: the same named exports as the ES module (cjs/security.cjs returns it).
export * from '../dist/batteries/security.js';

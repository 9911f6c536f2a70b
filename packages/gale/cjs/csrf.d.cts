// Types of the CommonJS entry `require('gale/csrf')`: the same named exports as the ES module (cjs/csrf.cjs returns it).
export * from '../dist/batteries/csrf.js';

// Types of the CommonJS entry `require('gale/session')`: the same named exports as the ES module (cjs/session.cjs returns it).
export * from '../dist/batteries/session.js';

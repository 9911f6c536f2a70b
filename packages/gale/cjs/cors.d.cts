// Types of the CommonJS entry `require('gale/cors')`: the same named exports as the ES module (cjs/cors.cjs returns it).
export * from '../dist/batteries/cors.js';

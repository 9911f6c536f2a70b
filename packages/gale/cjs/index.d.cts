// Types of the CommonJS entry `require('gale')`: the same named exports as the ES module (cjs/index.cjs returns it).
export * from '../dist/index.js';

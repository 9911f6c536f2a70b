'use strict';
// CommonJS entry of the old `gale/fast-ws-client` subpath: it moved to its own package, and loading it throws saying which.
require('./load.cjs').namespace('../dist/moved/fast-ws-client.js', 'gale/fast-ws-client');

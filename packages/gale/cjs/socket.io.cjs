'use strict';
// CommonJS entry of the old `gale/socket.io` subpath: it moved to its own package, and loading it throws saying which.
require('./load.cjs').namespace('../dist/moved/socket.io.js', 'gale/socket.io');

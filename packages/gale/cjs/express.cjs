'use strict';
// CommonJS entry of the old `gale/express` subpath: it moved to its own package, and loading it throws saying which.
require('./load.cjs').namespace('../dist/moved/express.js', 'gale/express');

'use strict';
// CommonJS entry of the old `gale/express4` subpath: it moved to its own package, and loading it throws saying which.
require('./load.cjs').namespace('../dist/moved/express4.js', 'gale/express4');

// `gale/express` moved to its own package, @gale-http/express: importing the old subpath throws GALE_ERR_MOVED saying so.
import { movedError } from '../moved.js';

throw movedError('gale/express', '@gale-http/express', "import express from '@gale-http/express'");

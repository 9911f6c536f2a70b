// `gale/express4` moved to @gale-http/express (as its `/4` subpath): importing the old one throws GALE_ERR_MOVED.
import { movedError } from '../moved.js';

throw movedError('gale/express4', '@gale-http/express', "import express from '@gale-http/express/4'");

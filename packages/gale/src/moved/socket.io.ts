// `gale/socket.io` moved to its own package, @gale-http/socket.io: importing the old subpath throws GALE_ERR_MOVED saying so.
import { movedError } from '../moved.js';

throw movedError('gale/socket.io', '@gale-http/socket.io', "import { Server } from '@gale-http/socket.io'");

// `gale/fast-ws-client` moved to its own package, @gale-http/fast-ws: importing the old subpath throws GALE_ERR_MOVED saying so.
import { movedError } from '../moved.js';

throw movedError(
  'gale/fast-ws-client',
  '@gale-http/fast-ws',
  "import { FastWsClient } from '@gale-http/fast-ws/client'",
);

// Express middleware the native API can never run, recognised when it is registered (`use()`, a route's middleware)
// rather than at its first request: body-parser's parsers (express.json() …), express-session, multer and
// compression. Known by each package's function name and a mark in its source, read once per registration. A
// middleware wrapped in a function of the app's own is not recognised here and is refused at its first use instead.
import type { GaleError } from './errors.js';
import { nodeOnly } from './node-socket.js';

const BODY =
  'it reads the request body as a node stream (req.on("data")), which the native Request does not offer: give the ' +
  'route a body schema (app.post(path, { body: schema }, handler)) or read it with req.parseBody(), req.json(), ' +
  'req.form() or req.text()';

/** name → [a mark of the package's source, what was given, why it cannot run here] */
const KNOWN: Readonly<Record<string, readonly [string, string, string]>> = {
  jsonParser: ['read(req, res, next', 'express.json() (body-parser) was given to use() or a route', BODY],
  urlencodedParser: ['read(req, res, next', 'express.urlencoded() (body-parser) was given to use() or a route', BODY],
  textParser: ['read(req, res, next', 'express.text() (body-parser) was given to use() or a route', BODY],
  rawParser: ['read(req, res, next', 'express.raw() (body-parser) was given to use() or a route', BODY],
  session: [
    'sessionStore',
    'express-session was given to use() or a route',
    'it saves the session and sets its cookie through node:http’s res.end/res.writeHead, which the native Response ' +
      'does not go through (use Gale’s own session() from "gale" for sessions on the native API)',
  ],
  multerMiddleware: [
    'busboy',
    'multer was given to use() or a route',
    'it pipes the request into busboy as a node stream, which the native Request is not (read uploads with ' +
      'req.multipart())',
  ],
  compression: [
    'onHeaders',
    'compression was given to use() or a route',
    'it replaces res.write/res.end and hooks res.writeHead, which the native Response does not go through (use ' +
      'gale({ compression: true }), the engine’s own)',
  ],
};

/** The refusal for a middleware the native API cannot run, or undefined for any other function. */
export function refusalOf(fn: unknown): GaleError | undefined {
  if (typeof fn !== 'function' || fn.length !== 3) return undefined;
  const known = Object.hasOwn(KNOWN, fn.name) ? KNOWN[fn.name] : undefined;
  if (known === undefined) return undefined;
  if (!Function.prototype.toString.call(fn).includes(known[0])) return undefined;
  return nodeOnly(known[1], known[2]);
}

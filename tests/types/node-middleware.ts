// Type tests: middleware typed for Express or node:http (helmet, morgan, compression, cookie-parser, body-parser,
// express-session, express-rate-limit, passport, serve-static, cors) go to `app.use` / `router.use` without a cast;
// Gale's own middleware given inline keep their Gale types, and a function that cannot be a middleware is refused.
import bodyParser from 'body-parser';
import compression from 'compression';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import rateLimit from 'express-rate-limit';
import session from 'express-session';
import { gale, router } from 'gale';
import helmet from 'helmet';
import morgan from 'morgan';
import passport from 'passport';
import serveStatic from 'serve-static';
import { type Equal, ok } from './expect.js';

const app = gale();
app.use(cors());
app.use(helmet());
app.use(morgan('tiny'));
app.use(compression());
app.use(cookieParser());
app.use(bodyParser.json());
app.use(session({ secret: 'x', resave: false, saveUninitialized: false }));
app.use(rateLimit({ windowMs: 1000, limit: 10 }));
app.use(passport.initialize());
app.use('/assets', serveStatic('public'));
app.use(helmet(), morgan('tiny'), cookieParser());
const api = router();
api.use(helmet(), bodyParser.urlencoded({ extended: false }));
app.use('/api', api);

// Inline middleware are still Gale's, typed.
app.use((req, _res, next) => {
  ok<Equal<typeof req.path, string>>(true);
  return next();
});
// @ts-expect-error a typo on an inline middleware's request
app.use((req, _res, next) => (req.pth ? next() : next()));
// @ts-expect-error a `next` that is not a function cannot be given
app.use((_req: string, _res: unknown, next: number) => next);

// At a route: a middleware typed for Express or node:http first, then Gale's middleware and the handler.
// (express-rate-limit and helmet are typed with Express's and node:http's request: passport.authenticate returns `any`.)
app.post('/login/:team', rateLimit({ limit: 5 }), (req) => {
  ok<Equal<typeof req.params, { team: string }>>(true);
  return req.params.team;
});
app.post(
  '/secure/:team',
  helmet(),
  (_req, _res, next) => next(),
  (req) => req.params.team,
);
app.post('/login', passport.authenticate('local'), (req) => req.path);
// @ts-expect-error a typo in the params of a route whose first middleware is Express-typed
app.post('/login3/:team', rateLimit({ limit: 5 }), (req) => req.params.tem);

// Express-typed middleware after the first, at a route: no cast either.
app.post('/signup/:team', helmet(), rateLimit({ limit: 5 }), cors(), (req) => {
  ok<Equal<typeof req.params, { team: string }>>(true);
  return req.params.team;
});
const needsId: import('gale').Middleware<{ id: string }> = (req, _res, next) => (req.params.id ? next() : next());
// @ts-expect-error a Gale middleware that needs a param the path lacks is still refused among Express ones
app.post('/teams', helmet(), needsId, rateLimit({ limit: 5 }), () => 'x');

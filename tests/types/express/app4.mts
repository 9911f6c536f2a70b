// app.mts for Express 4: a typical Express 4 app in TypeScript (ESM), as its authors write it for `express@4` +
// @types/express@4, with only the import of Express changed to @gale-http/express/4 (express-session, multer,
// passport, cookie-parser, `Request`/`Response`/`NextFunction` by name, `express.Request` as a namespace, an
// `ErrorRequestHandler`), and Express 4's path forms. Never run: tests/types/express.test.ts compiles it under `strict`
// with `skipLibCheck: false`, against @gale-http/express/4 (tsconfig.4.json) and, with the import mapped to
// @types/express@4, against Express 4's own types (tsconfig.express4.json): what compiles, and every
// `@ts-expect-error`, is the same with both. In both, `express` is @types/express@4 (mapped by `paths`), as in an
// Express 4 project: the middleware typings (express-session, multer, …) extend whichever @types/express the project
// has, and Express 4's app takes no handler typed by Express 5's (with `express` or with this package alike).
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type Response,
} from '@gale-http/express/4';
import cookieParser from 'cookie-parser';
import session from 'express-session';
import multer from 'multer';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';

declare module 'express-session' {
  interface SessionData {
    views: number;
    cart: string[];
  }
}

declare global {
  namespace Express {
    interface User {
      id: string;
      name: string;
    }
  }
}

interface Todo {
  title: string;
  done: boolean;
}

const app = express();
const upload = multer({ dest: 'uploads/', limits: { fileSize: 1024 * 1024 } });

passport.use(
  new LocalStrategy((username, password, done) => {
    if (password !== 'secret') return done(null, false, { message: 'wrong password' });
    return done(null, { id: username, name: username });
  }),
);
passport.serializeUser((user, done) => done(null, user.id));
passport.deserializeUser((id: string, done) => done(null, { id, name: id }));

app.set('trust proxy', 'loopback');
app.disable('x-powered-by');
app.use(express.json({ limit: '1mb' }));
app.use(express.urlencoded({ extended: false }));
app.use(cookieParser('cookie secret'));
app.use(
  session({
    secret: 'session secret',
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', maxAge: 86_400_000 },
  }),
);
app.use(passport.initialize());
app.use(passport.session());
app.use('/static', express.static('public', { maxAge: '1d', index: false }));

function requireUser(req: Request, res: Response, next: NextFunction): void {
  if (req.isAuthenticated()) {
    next();
    return;
  }
  res.status(401).json({ error: 'log in first' });
}

function logRequest(req: express.Request, res: express.Response, next: express.NextFunction): void {
  const started = Date.now();
  res.on('finish', () => console.log(req.method, req.originalUrl, res.statusCode, Date.now() - started));
  next();
}
app.use(logRequest);

const api = express.Router({ mergeParams: true });
api.post('/login', passport.authenticate('local', { failureMessage: true }), (req, res) => {
  res.json({ user: req.user?.name });
});
api.post('/logout', (req, res, next) => {
  req.logout((err) => (err ? next(err) : res.sendStatus(204)));
});
api.get('/me', requireUser, (req, res) => {
  const user: Express.User | undefined = req.user;
  res.json({ id: user?.id, views: req.session.views ?? 0 });
});
app.use('/api', api);

app.get('/count', (req: express.Request, res: express.Response) => {
  req.session.views = (req.session.views ?? 0) + 1;
  req.session.cart ??= [];
  req.session.cart.push(`item ${req.session.views}`);
  // @ts-expect-error: views is a number (SessionData above)
  const views: string = req.session.views;
  void views;
  res.send(`views: ${req.session.views}, in the cart: ${req.session.cart.length}`);
});

app.get('/theme', (req, res) => {
  const theme: string = req.cookies.theme ?? 'light';
  const visitor: string | undefined = req.signedCookies.visitor;
  res.cookie('visitor', visitor ?? req.sessionID, { signed: true, httpOnly: true });
  res.json({ theme, visitor });
});

app.post('/avatar', requireUser, upload.single('f'), (req, res) => {
  if (!req.file) {
    res.status(400).json({ error: 'no file' });
    return;
  }
  const { originalname, mimetype, size, path } = req.file;
  res.status(201).json({ originalname, mimetype, size, path, caption: req.body.caption });
});

app.post('/photos', upload.array('photos', 4), (req: Request, res: Response) => {
  const files = (req.files ?? []) as Express.Multer.File[];
  res.json(files.map((f) => f.filename));
});

app.post('/todos/:list?', (req: Request<{ list?: string }, Todo, Partial<Todo>>, res: Response<Todo>) => {
  const todo: Todo = { title: req.body.title ?? 'untitled', done: req.body.done ?? false };
  // @ts-expect-error: the response body is a Todo
  if (todo.done) res.json({ ok: true });
  res.status(201).json(todo);
});

app.get(/^\/files\/(.+)$/, (req, res) => {
  res.sendFile(req.params[0], { root: 'files', dotfiles: 'deny' });
});

app.get('/back', (req, res) => {
  res.redirect(req.get('referer') ?? '/');
});

app.get('/users/:id', async (req, res, next) => {
  try {
    const id: string = req.params.id;
    const user = await Promise.resolve({ id, name: `user ${id}` });
    res.format({
      json: () => res.json(user),
      html: () => res.send(`<h1>${user.name}</h1>`),
    });
  } catch (err) {
    next(err);
  }
});

app
  .route('/books')
  .get((req, res) => {
    res.json({ q: req.query.q, page: Number(req.query.page ?? 1) });
  })
  .post(requireUser, (req, res) => {
    res.location(`/books/${req.body.id}`).sendStatus(201);
  });

app.param('id', (_req, res, next, id: string) => {
  res.locals.id = id;
  next();
});

const notFound: express.RequestHandler = (req, res) => {
  res.status(404).json({ error: `no route for ${req.method} ${req.path}` });
};
app.use(notFound);

const onError: ErrorRequestHandler = (err, req, res, next) => {
  if (res.headersSent) {
    next(err);
    return;
  }
  const status = typeof err?.status === 'number' ? err.status : 500;
  res.status(status).json({ error: err instanceof Error ? err.message : String(err), path: req.path });
};
app.use(onError);

const port = Number(process.env.PORT) || 3000;
const server = app.listen(port, () => console.log(`listening on ${port}`));
process.on('SIGTERM', () => server.close());

export default app;

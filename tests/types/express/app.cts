// The CommonJS form of app.mts (`import express = require(…)`, as TypeScript writes `const express = require(…)`): a
// typical Express 5 app with express-session, multer, passport and cookie-parser, importing @gale-http/express.
// Compiled, never run, by tests/types/express.test.ts beside app.mts: against @gale-http/express and, with the import
// mapped to @types/express, against Express's own types.
import express = require('@gale-http/express');
import cookieParser = require('cookie-parser');
import session = require('express-session');
import multer = require('multer');
import passport = require('passport');

declare module 'express-session' {
  interface SessionData {
    returnTo: string;
  }
}

const app = express();
const upload = multer({ storage: multer.memoryStorage() });

app.use(express.json());
app.use(cookieParser());
app.use(session({ secret: 'session secret', resave: false, saveUninitialized: true }));
app.use(passport.initialize());
app.use(passport.session());

const requireUser: express.RequestHandler = (req, res, next) => {
  if (req.isAuthenticated()) return next();
  req.session.returnTo = req.originalUrl;
  res.redirect('/login');
};

const router = express.Router();
router.get('/profile', requireUser, (req: express.Request, res: express.Response) => {
  res.json({ user: req.user, returnTo: req.session.returnTo ?? null, theme: req.cookies.theme });
});
router.put('/avatar', requireUser, upload.single('f'), (req, res) => {
  const file: Express.Multer.File | undefined = req.file;
  if (file === undefined) {
    res.sendStatus(400);
    return;
  }
  // @ts-expect-error: a memory-stored file's buffer is a Buffer
  const text: string = file.buffer;
  void text;
  res.json({ name: file.originalname, bytes: file.buffer.length });
});
app.use(router);

function onError(err: Error, req: express.Request, res: express.Response, next: express.NextFunction): void {
  if (res.headersSent) {
    next(err);
    return;
  }
  res.status(500).json({ error: err.message, signed: Object.keys(req.signedCookies) });
}
const errorHandler: express.ErrorRequestHandler = onError;
app.use(errorHandler);

const server = app.listen(process.env.PORT ?? 3000, () => console.log('listening'));
process.on('SIGTERM', () => server.close());

export = app;

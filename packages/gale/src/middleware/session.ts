// Sessions: `req.session` holds JSON data, kept either in the signed cookie itself (the default: nothing on the
// server) or in a store (MemoryStore, RedisStore) under a random id carried by a signed cookie. Saved when the
// response head goes out: the cookie is set then, and a store write holds a whole-body answer until it is done
// (as express-session), so the client's next request, on any process, sees it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Middleware } from '../chain.js';
import { ErrorCodes, GaleError } from '../errors.js';
import { addHeadHook } from '../node-members.js';
import type { Request } from '../request/request.js';
import type { Response } from '../response/response.js';
import type { SessionData, SessionStore } from './session-stores.js';

export type { SessionData, SessionStore } from './session-stores.js';

/**
 * Options of `session()`.
 *
 * @example
 * app.use(session({ secret: [newSecret, oldSecret], maxAge: 86_400_000, cookie: { sameSite: 'lax', secure: 'auto' } }));
 */
export interface SessionOptions {
  /** Secret(s) signing the cookie; the first signs, all verify (rotate by prepending). Required. */
  secret: string | string[];
  /** Cookie name. Default `'gale.sid'`. */
  name?: string;
  /** Where the data lives. Default: in the signed cookie itself (at most 4 KB of data, nothing on the server). */
  store?: SessionStore;
  /** Lifetime in ms since the session was last saved (or touched, with `rolling`). Default 24 h. */
  maxAge?: number;
  /** Refresh the cookie and the lifetime on every response. Default false. */
  rolling?: boolean;
  /** Save (and send a cookie for) sessions that were never written to. Default false. */
  saveUninitialized?: boolean;
  /** Cookie attributes. Defaults: path '/', httpOnly, sameSite 'lax', not secure (`'auto'`: when the request is https). */
  cookie?: {
    path?: string;
    domain?: string;
    httpOnly?: boolean;
    secure?: boolean | 'auto';
    sameSite?: 'lax' | 'strict' | 'none' | boolean;
    partitioned?: boolean;
    priority?: 'low' | 'medium' | 'high';
  };
  /** Makes session ids. Default: 24 random bytes, base64url. */
  genid?: () => string;
}

const kState = Symbol('gale.session');
const COOKIE_LIMIT = 4096;

interface State {
  id: string | undefined;
  /** JSON of the data as loaded, to see changes. */
  loaded: string;
  fresh: boolean;
  destroyed: boolean;
  /** An id to delete from the store (regenerate). */
  dropped: string | undefined;
  touched: boolean;
  ctl: Controller;
}

interface Controller {
  store: SessionStore | undefined;
  ttl: number;
  genid: () => string;
}

/**
 * A Node-style callback for `req.session.regenerate/destroy/save`: called with the error, or none when done.
 *
 * @example
 * req.session.regenerate((err) => (err ? next(err) : res.redirect('/home')));
 */
export type SessionCallback = (err?: unknown) => void;

/** With a callback, it gets the outcome and the promise never rejects (callback code does not await it). */
function settle(work: Promise<void>, callback: SessionCallback | undefined): Promise<void> {
  if (callback === undefined) return work;
  return work.then(
    () => callback(),
    (err: unknown) => callback(err),
  );
}

/**
 * `req.session`: the data as properties (`req.session.user = …`), plus `id`, `regenerate()`, `destroy()`, `save()`
 * and `touch()`. Only JSON-serialisable values survive.
 *
 * @example
 * app.post('/logout', async (req) => {
 *   await req.session.destroy();
 *   return 'bye';
 * });
 */
export class Session {
  [key: string]: unknown;
  declare [kState]: State;

  /** The session id (store sessions; undefined for cookie sessions). */
  get id(): string | undefined {
    return this[kState].id;
  }

  /**
   * Starts a new session with a new id, dropping the old one (do it at login: the id an attacker planted is gone).
   * `callback` (express-session's style, as passport calls it) is called once done, instead of rejecting.
   */
  regenerate(callback?: SessionCallback): Promise<void> {
    return settle(this._regenerate(), callback);
  }

  private async _regenerate(): Promise<void> {
    const st = this[kState];
    for (const k of Object.keys(this)) delete this[k];
    if (st.id !== undefined && st.ctl.store !== undefined) {
      if (!st.fresh) st.dropped = st.id;
      st.id = st.ctl.genid();
    }
    st.loaded = '{}';
    st.fresh = true;
    st.destroyed = false;
    // a regenerated session is saved even when empty: the new id must reach the client
    st.touched = true;
  }

  /** Ends the session: its data and cookie are removed when the response goes out. `callback` as for regenerate. */
  destroy(callback?: SessionCallback): Promise<void> {
    return settle(this._destroy(), callback);
  }

  private async _destroy(): Promise<void> {
    const st = this[kState];
    for (const k of Object.keys(this)) delete this[k];
    st.destroyed = true;
    if (st.id !== undefined && st.ctl.store !== undefined) await st.ctl.store.destroy(st.id);
  }

  /** Writes the data to the store now (it is also saved when the response goes out). `callback` as for regenerate. */
  save(callback?: SessionCallback): Promise<void> {
    return settle(this._save(), callback);
  }

  private async _save(): Promise<void> {
    const st = this[kState];
    if (st.ctl.store === undefined || st.destroyed) return;
    st.id ??= st.ctl.genid();
    const json = JSON.stringify(this);
    await st.ctl.store.set(st.id, JSON.parse(json) as SessionData, st.ctl.ttl);
    st.loaded = json;
    st.fresh = false;
  }

  /** Extends the lifetime (cookie and store) on this response even though nothing changed. */
  touch(): void {
    this[kState].touched = true;
  }
}

declare module '../request/request.js' {
  interface Request {
    /**
     * The session (set by the `session()` middleware): data as properties, plus `regenerate()`, `destroy()`,
     * `save()`, `touch()`.
     *
     * @example
     * app.post('/login', async (req) => { await req.session.regenerate(); req.session.user = 'ada'; return 'ok'; });
     */
    session: Session;
  }
}

function hmac(secret: string, value: string): string {
  return createHmac('sha256', secret).update(value).digest('base64url');
}

function sign(value: string, secret: string): string {
  return `${value}.${hmac(secret, value)}`;
}

/** The value of a cookie signed with one of `secrets`, or undefined. */
function unsign(cookie: string, secrets: readonly string[]): string | undefined {
  const dot = cookie.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const value = cookie.slice(0, dot);
  const given = Buffer.from(cookie.slice(dot + 1));
  for (const s of secrets) {
    const want = Buffer.from(hmac(s, value));
    if (want.length === given.length && timingSafeEqual(want, given)) return value;
  }
  return undefined;
}

/**
 * Session middleware: `req.session` for every request it runs for. Without `store`, the data travels in the signed
 * cookie (tamper-proof, readable by the client if it decodes base64: keep secrets out); with a store, the cookie
 * holds only a signed random id. Expired sessions start empty.
 *
 * @example
 * app.use(session({ secret: process.env.SESSION_SECRET, maxAge: 7 * 24 * 3600_000 }));          // cookie sessions
 * app.use(session({ secret: [newSecret, oldSecret], store: new RedisStore({ client: redis }) })); // store sessions
 * app.get('/count', (req) => ({ count: (req.session.count = Number(req.session.count ?? 0) + 1) }));
 */
export function session(options: SessionOptions): Middleware {
  const secrets = typeof options?.secret === 'string' ? [options.secret] : (options?.secret ?? []);
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('session(): give a non-empty secret (or a list of them) to sign the session cookie');
  }
  const name = options.name ?? 'gale.sid';
  const store = options.store;
  const ttl = options.maxAge ?? 24 * 60 * 60 * 1000;
  if (!(ttl > 0)) throw new TypeError(`session(): maxAge must be a positive number of milliseconds, got ${ttl}`);
  const ctl: Controller = { store, ttl, genid: options.genid ?? (() => randomBytes(24).toString('base64url')) };
  const c = options.cookie ?? {};
  const pending = new Map<string, Promise<unknown>>();

  const cookieOptions = (req: Request, maxAge: number) => ({
    path: c.path ?? '/',
    domain: c.domain,
    httpOnly: c.httpOnly ?? true,
    secure: c.secure === 'auto' ? req.secure : (c.secure ?? false),
    sameSite: c.sameSite ?? 'lax',
    partitioned: c.partitioned,
    priority: c.priority,
    maxAge,
    encode: String, // the value is base64url and '.', nothing to escape
  });

  /** Sets the cookie and returns the store work, when the head goes out. */
  const commit = (req: Request, res: Response, s: Session): Promise<unknown> | undefined => {
    const st = s[kState];
    if (st.destroyed) {
      if (!st.fresh || st.id !== undefined) res.clearCookie(name, { path: c.path ?? '/', domain: c.domain });
      return undefined;
    }
    const json = JSON.stringify(s);
    const changed = json !== st.loaded;
    const empty = json === '{}';
    if (st.fresh && empty && !options.saveUninitialized && !st.touched) return undefined;
    const refresh = changed || st.fresh || st.touched || options.rolling === true;
    if (store === undefined) {
      if (!refresh) return undefined;
      const payload = Buffer.from(JSON.stringify({ e: Date.now() + ttl, d: JSON.parse(json) })).toString('base64url');
      const value = sign(payload, secrets[0] as string);
      if (value.length + name.length > COOKIE_LIMIT) {
        throw new GaleError(
          ErrorCodes.SESSION,
          `the session is ${json.length} bytes of JSON, too large for a cookie session (4 KB); keep less in it or use a store`,
        );
      }
      res.cookie(name, value, cookieOptions(req, ttl));
      return undefined;
    }
    st.id ??= ctl.genid();
    const id = st.id;
    const work: Promise<unknown>[] = [];
    if (st.dropped !== undefined) work.push(Promise.resolve(store.destroy(st.dropped)));
    if (changed || st.fresh) work.push(Promise.resolve(store.set(id, JSON.parse(json) as SessionData, ttl)));
    else if (refresh && store.touch !== undefined) work.push(Promise.resolve(store.touch(id, JSON.parse(json), ttl)));
    if (st.fresh || refresh) res.cookie(name, sign(id, secrets[0] as string), cookieOptions(req, ttl));
    if (work.length === 0) return undefined;
    const done = Promise.all(work).finally(() => {
      if (pending.get(id) === done) pending.delete(id);
    });
    pending.set(id, done);
    return done;
  };

  const load = async (req: Request): Promise<Session> => {
    const s = new Session();
    const st: State = {
      id: undefined,
      loaded: '{}',
      fresh: true,
      destroyed: false,
      dropped: undefined,
      touched: false,
      ctl,
    };
    s[kState] = st;
    const raw = req.cookies[name];
    const value = raw === undefined ? undefined : unsign(raw, secrets);
    // A store session has its id from the start (saved only if it gets data, or saveUninitialized).
    if (store !== undefined) st.id = ctl.genid();
    if (value === undefined) return s;
    let data: SessionData | undefined;
    if (store === undefined) {
      try {
        const p = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as { e: number; d: SessionData };
        if (typeof p.e === 'number' && p.e > Date.now() && typeof p.d === 'object' && p.d !== null) data = p.d;
      } catch {
        // signed by us but unreadable: start afresh
      }
    } else {
      await pending.get(value);
      data = await store.get(value);
      if (data !== undefined) st.id = value;
    }
    if (data === undefined) return s;
    Object.assign(s, data);
    st.loaded = JSON.stringify(s);
    st.fresh = false;
    return s;
  };

  return async (req, res, next) => {
    const s = await load(req);
    req.session = s;
    let committed = false;
    const once = (): Promise<unknown> | undefined => {
      if (committed) return undefined;
      committed = true;
      return commit(req, res, s);
    };
    // Streams and files: the cookie goes with the head, the store write runs alongside.
    addHeadHook(res, () => {
      once()?.catch((err: unknown) => res._host.fail(err, req, res));
    });
    if (store !== undefined) {
      const finish = res.finish;
      // Whole answers wait for the store write, so the client's next request finds the session saved.
      res.finish = function (this: Response, ctype, body, lines) {
        if (this.finished || this.headersSent || committed) return finish.call(this, ctype, body, lines);
        // The head hook stays: once() is done by then, and other hooks (a patched writeHead) still run at the head.
        const work = once();
        if (work === undefined) return finish.call(this, ctype, body, lines);
        this.headersSent = true; // held: nothing else may answer while the store writes
        work.then(
          () => {
            this.headersSent = false;
            if (!this.finished) finish.call(this, ctype, body, lines);
          },
          (err: unknown) => {
            this.headersSent = false;
            if (!this.finished) this._host.fail(err, req, this);
          },
        );
      };
    }
    return next();
  };
}

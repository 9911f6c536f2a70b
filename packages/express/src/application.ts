// express(): the application object (a function, as in Express) with settings, routing methods,
// sub-app mounting, views and listen(). Each app has its own request/response prototypes (classes),
// so requests are created with the right prototype instead of having it swapped per request.
// Over 400 lines: it ports Express's lib/application.js, the ~20 `app` prototype methods (init, defaultConfiguration,
// handle, use, set, enable/disable, render, listen, one per HTTP method, …) that express.application exposes as one
// object, plus the Application interface typing them and createApplication with Express 4's and 5's differences.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import finalhandler2 from 'finalhandler';
import finalhandler1 from 'finalhandler-1';
import type { GaleOptions } from 'gale';
import { pristine } from './compile.js';
import { compileETag, compileQueryParser, compileTrust } from './etag.js';
import { bump } from './layer.js';
import { closingServer, NodeSinkResponse, NodeSourceRequest, nodeContext } from './node-adapter.js';
import type { Compat, PathArg } from './path.js';
import { ExpressRequest } from './request.js';
import { ExpressRequest4 } from './request4.js';
import { ExpressResponse } from './response.js';
import { ExpressResponse4 } from './response4.js';
import {
  createRouter,
  type HandlerArg,
  type Layer,
  METHOD_NAMES,
  type Next,
  type RequestHandler,
  type Route,
  type RouterFn,
  type RoutingMethods,
  routerProto,
  useArgs,
} from './router.js';
import { type ExpressServer, listen } from './server.js';
import { View } from './view.js';

type Fn = (...a: unknown[]) => unknown;
type Engine = (path: string, options: object, cb: (err: unknown, html?: string) => void) => unknown;

/**
 * Options of `express()` (an addition to Express: it takes none).
 *
 * @example
 * const app = express({ server: { keepAliveTimeout: 10_000, maxHeaderSize: 32 * 1024 } });
 */
export interface ExpressOptions {
  /** Which Express major to imitate where 4 and 5 differ. Default 5 (`@gale-http/express/4` uses 4). */
  compat?: Compat;
  /**
   * Engine options for the servers `app.listen()` starts (limits, timeouts). `bodyLimit` defaults to
   * unlimited here: as in Express, body size limits belong to the body parsers.
   */
  server?: Omit<GaleOptions, 'caseSensitive' | 'strict'>;
}

/**
 * An Express application.
 *
 * @example
 * const app: Application = express();
 * app.set('trust proxy', 'loopback');
 * app.get('/', (req, res) => res.send('hi'));
 */
export interface Application extends EventEmitter, RoutingMethods<Application> {
  (req: unknown, res: unknown, next?: Next): void;
  settings: Record<string, unknown>;
  locals: Record<string, unknown>;
  cache: Record<string, unknown>;
  engines: Record<string, Engine>;
  mountpath: string | string[];
  parent: Application | undefined;
  request: object;
  response: object;
  readonly router: RouterFn;
  _router: RouterFn | undefined;
  /** @internal */ _compat: Compat;
  /** @internal */ _options: ExpressOptions;
  /** @internal */ _Req: new (...a: never[]) => ExpressRequest;
  /** @internal */ _Res: new (...a: never[]) => ExpressResponse;
  /** @internal Express 4: the query parser captured when the router was made */
  _qp4: Fn | undefined;
  /** @internal */ _getRouter(): RouterFn;
  /**
   * @internal whether a handler of constants answers as Express's code says: the app's request and response
   * prototypes (and the classes under them) are as the package made them, and 'declarative responses' is not off
   */
  _mayAnswerNatively(): boolean;
  handle(req: unknown, res: unknown, callback?: Next, layers?: readonly Layer[]): void;
  use(...handlers: (RequestHandler | readonly RequestHandler[])[]): this;
  use(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): this;
  use(...args: unknown[]): this;
  route(path: PathArg): Route;
  engine(ext: string, fn: Engine): this;
  param(name: string | string[], fn: Fn): this;
  set(setting: string, val?: unknown): unknown;
  get(setting: string): unknown;
  get(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): this;
  get(path: PathArg, ...handlers: unknown[]): this;
  path(): string;
  enabled(setting: string): boolean;
  disabled(setting: string): boolean;
  enable(setting: string): this;
  disable(setting: string): this;
  render(name: string, options?: unknown, callback?: (err: unknown, html?: string) => void): void;
  listen(...args: unknown[]): ExpressServer;
}

const TRUST_DEFAULT = '@@symbol:trust_proxy_default';

const proto: Record<string, unknown> = {};

proto.init = function init(this: Application) {
  this.cache = this._compat === 5 ? Object.create(null) : {};
  this.engines = this._compat === 5 ? Object.create(null) : {};
  this.settings = this._compat === 5 ? Object.create(null) : {};
  (this as unknown as { defaultConfiguration(): void }).defaultConfiguration();
};

proto.defaultConfiguration = function defaultConfiguration(this: Application) {
  const env = process.env.NODE_ENV || 'development';
  this.enable('x-powered-by');
  this.set('etag', 'weak');
  this.set('env', env);
  this.set('query parser', this._compat === 5 ? 'simple' : 'extended');
  this.set('subdomain offset', 2);
  this.set('trust proxy', false);
  Object.defineProperty(this.settings, TRUST_DEFAULT, { configurable: true, value: true });
  this.on('mount', function onmount(this: Application, parent: Application) {
    if (this.settings[TRUST_DEFAULT] === true && typeof parent.settings['trust proxy fn'] === 'function') {
      delete this.settings['trust proxy'];
      delete this.settings['trust proxy fn'];
    }
    Object.setPrototypeOf(this.request, parent.request);
    Object.setPrototypeOf(this.response, parent.response);
    Object.setPrototypeOf(this.engines, parent.engines);
    Object.setPrototypeOf(this.settings, parent.settings);
  });
  this.locals = Object.create(null);
  this.mountpath = '/';
  this.locals.settings = this.settings;
  this.set('view', View);
  this.set('views', resolve('views'));
  this.set('jsonp callback name', 'callback');
  if (env === 'production') this.enable('view cache');
};

/** The app's router, made on first use (as Express: routing settings are read then). */
proto._getRouter = function _getRouter(this: Application & { _r?: RouterFn }): RouterFn {
  if (this._r === undefined) {
    this._r = createRouter(this._compat, {
      caseSensitive: this.enabled('case sensitive routing'),
      strict: this.enabled('strict routing'),
    });
    if (this._compat === 4) this._qp4 = (this.get('query parser fn') as Fn | undefined) ?? undefined;
  }
  return this._r;
};

proto.lazyrouter = function lazyrouter(this: Application) {
  this._getRouter();
};

proto.handle = function handle(
  this: Application & { _r?: RouterFn },
  req: ExpressRequest,
  res: ExpressResponse,
  callback?: Next,
  layers?: readonly Layer[],
) {
  if (this._compat === 4 && this._r === undefined) {
    if (callback) callback();
    else (routerProto.final as (a: unknown, b: unknown, c: unknown) => void)(req, res, undefined);
    return;
  }
  if (this.enabled('x-powered-by')) res.setHeader('X-Powered-By', 'Express');
  req.res = res;
  res.req = req;
  if (Object.getPrototypeOf(req) !== this.request) Object.setPrototypeOf(req, this.request);
  if (Object.getPrototypeOf(res) !== this.response) Object.setPrototypeOf(res, this.response);
  if (this._compat === 4 && req._qp4 === undefined) {
    req._qp4 = (this._qp4 ?? ((str: string) => (compileQueryParser('extended') as Fn)(str))) as never;
  }
  this._getRouter().handle(req, res, callback, layers);
};

proto.use = function use(this: Application, ...args: unknown[]) {
  const { path, fns } = useArgs(args);
  if (fns.length === 0) throw new TypeError('app.use() requires a middleware function');
  const router = this._getRouter();
  for (const fn of fns) {
    const sub = fn as Partial<Application>;
    if (!fn || typeof sub.handle !== 'function' || typeof sub.set !== 'function') {
      router.use(path as PathArg, fn as HandlerArg);
      continue;
    }
    const subApp = sub as Application;
    subApp.mountpath = path as string;
    subApp.parent = this;
    router.use(path, function mounted_app(req: ExpressRequest, res: ExpressResponse, next: Next) {
      const orig = req.app as unknown as Application;
      subApp.handle(req, res, (err) => {
        Object.setPrototypeOf(req, orig.request);
        Object.setPrototypeOf(res, orig.response);
        next(err);
      });
    });
    (router.stack[router.stack.length - 1] as Layer).sub = () => subApp._getRouter();
    subApp.emit('mount', this);
  }
  return this;
};

proto.route = function route(this: Application, path: string) {
  return this._getRouter().route(path);
};

proto.engine = function engine(this: Application, ext: string, fn: Engine) {
  if (typeof fn !== 'function') throw new Error('callback function required');
  this.engines[ext[0] !== '.' ? `.${ext}` : ext] = fn;
  return this;
};

proto.param = function param(this: Application, name: string | string[], fn: Fn) {
  if (Array.isArray(name)) {
    for (const n of name) this.param(n, fn);
    return this;
  }
  this._getRouter().param(name, fn);
  return this;
};

// Taken as this module loads, before an app can patch a prototype (`express.response.json = …`).
const untouched = {
  5: [pristine(ExpressRequest.prototype), pristine(ExpressResponse.prototype)],
  4: [pristine(ExpressRequest4.prototype), pristine(ExpressResponse4.prototype)],
} as const;
const OWN_KEYS = ['constructor', 'app'];
const onlyOwn = (p: object) => Reflect.ownKeys(p).every((k) => OWN_KEYS.includes(k as string));

proto._mayAnswerNatively = function _mayAnswerNatively(this: Application): boolean {
  return (
    this.set('declarative responses') !== false &&
    this.handle === proto.handle &&
    onlyOwn(this.request) &&
    onlyOwn(this.response) &&
    untouched[this._compat].every((ok) => ok())
  );
};

proto.set = function set(this: Application, setting: string, val?: unknown) {
  // biome-ignore lint/complexity/noArguments: app.set(name) reads, app.set(name, undefined) writes, as in Express
  if (arguments.length === 1) {
    if (this._compat === 5) return this.settings[setting];
    let settings: object | null = this.settings;
    while (settings && settings !== Object.prototype) {
      if (Object.hasOwn(settings, setting)) return (settings as Record<string, unknown>)[setting];
      settings = Object.getPrototypeOf(settings);
    }
    return undefined;
  }
  this.settings[setting] = val;
  // A setting may change what a route answers (json spaces, etag, x-powered-by): native answers are taken back.
  bump();
  switch (setting) {
    case 'etag':
      this.set('etag fn', compileETag(val));
      break;
    case 'query parser':
      this.set('query parser fn', compileQueryParser(val, this._compat));
      break;
    case 'trust proxy':
      this.set('trust proxy fn', compileTrust(val));
      Object.defineProperty(this.settings, TRUST_DEFAULT, { configurable: true, value: false });
      break;
  }
  return this;
};

proto.path = function path(this: Application): string {
  return this.parent ? this.parent.path() + (this.mountpath as string) : '';
};
proto.enabled = function enabled(this: Application, setting: string) {
  return Boolean(this.set(setting));
};
proto.disabled = function disabled(this: Application, setting: string) {
  return !this.set(setting);
};
proto.enable = function enable(this: Application, setting: string) {
  return this.set(setting, true);
};
proto.disable = function disable(this: Application, setting: string) {
  return this.set(setting, false);
};

for (const method of METHOD_NAMES) {
  proto[method] = function (this: Application, path: unknown, ...handlers: unknown[]) {
    // biome-ignore lint/complexity/noArguments: app.get(name) is the settings getter, as in Express
    if (method === 'get' && arguments.length === 1) return this.set(path as string);
    const r = this.route(path as string) as unknown as Record<string, Fn>;
    (r[method] as Fn).apply(r, handlers);
    return this;
  };
}

proto.all = function all(this: Application, path: unknown, ...handlers: unknown[]) {
  const r = this.route(path as string) as unknown as Record<string, Fn>;
  for (const m of METHOD_NAMES) (r[m] as Fn).apply(r, handlers);
  return this;
};

proto.render = function render(
  this: Application,
  name: string,
  options?: unknown,
  callback?: (err: unknown, html?: string) => void,
) {
  const cache = this.cache as Record<string, View>;
  let done = callback as (err: unknown, html?: string) => void;
  let opts = (options || {}) as Record<string, unknown>;
  if (typeof options === 'function') {
    done = options as (err: unknown, html?: string) => void;
    opts = {};
  }
  const renderOptions: Record<string, unknown> = {
    ...this.locals,
    ...(opts._locals as object | undefined),
    ...opts,
  };
  if (renderOptions.cache == null) renderOptions.cache = this.enabled('view cache');
  let view: View | undefined;
  if (renderOptions.cache) view = cache[name];
  if (!view) {
    const ViewClass = this.get('view') as typeof View;
    try {
      view = new ViewClass(name, {
        defaultEngine: this.get('view engine') as string | undefined,
        root: this.get('views') as string | string[],
        engines: this.engines,
      });
    } catch (err) {
      done(err);
      return;
    }
    if (!view.path) {
      const root = view.root;
      const dirs =
        Array.isArray(root) && root.length > 1
          ? `directories "${root.slice(0, -1).join('", "')}" or "${root[root.length - 1]}"`
          : `directory "${root}"`;
      const err = Object.assign(new Error(`Failed to lookup view "${name}" in views ${dirs}`), { view });
      done(err);
      return;
    }
    if (renderOptions.cache) cache[name] = view;
  }
  try {
    view.render(renderOptions, done);
  } catch (err) {
    done(err);
  }
};

proto.listen = function (this: Application, ...args: unknown[]) {
  return listen(this, args);
};

/** Makes an application: `express()` (Express 5 rules) or `express({ compat: 4 })`. */
/**
 * A fresh `express.application` for one `express` export: a copy of the app methods. Apps copy it when they are
 * created (as Express mixes `express.application` into each app), so methods added to it reach later apps.
 */
export function applicationPrototype(): Record<string, unknown> {
  const application: Record<string, unknown> = {};
  for (const key of Reflect.ownKeys(proto)) {
    Object.defineProperty(application, key, Object.getOwnPropertyDescriptor(proto, key) as PropertyDescriptor);
  }
  return application;
}

export function createApplication(options: ExpressOptions = {}, application: object = proto): Application {
  const compat: Compat = options.compat === 4 ? 4 : 5;
  const app = function (req: unknown, res: unknown, next?: Next) {
    if (req instanceof ExpressRequest) {
      app.handle(req, res, next);
      return;
    }
    // A node:http request (http.createServer(app), supertest): the same req/res classes over it.
    closingServer(req as IncomingMessage, res as ServerResponse);
    const source = new NodeSourceRequest(req as IncomingMessage);
    const ereq = new app._Req(source as never, nodeContext(req as IncomingMessage) as never);
    const eres = new app._Res(new NodeSinkResponse(res as ServerResponse) as never, ereq as never);
    ereq.res = eres;
    app.handle(ereq, eres, next);
  } as Application;
  for (const src of [EventEmitter.prototype, application]) {
    for (const key of Reflect.ownKeys(src)) {
      if (key === 'constructor') continue;
      Object.defineProperty(app, key, Object.getOwnPropertyDescriptor(src, key) as PropertyDescriptor);
    }
  }
  app._compat = compat;
  app._options = options;
  const BaseReq = compat === 5 ? ExpressRequest : ExpressRequest4;
  const BaseRes = compat === 5 ? ExpressResponse : ExpressResponse4;
  const Req = class extends BaseReq {};
  const Res = class extends BaseRes {};
  const appProp = { configurable: true, enumerable: true, writable: true, value: app };
  Object.defineProperty(Req.prototype, 'app', appProp);
  Object.defineProperty(Res.prototype, 'app', appProp);
  app._Req = Req as never;
  app._Res = Res as never;
  app.request = Req.prototype;
  app.response = Res.prototype;
  if (compat === 5) {
    Object.defineProperty(app, 'router', { configurable: true, enumerable: true, get: () => app._getRouter() });
  } else {
    Object.defineProperty(app, '_router', {
      configurable: true,
      enumerable: true,
      get: () => (app as unknown as { _r?: RouterFn })._r,
    });
    Object.defineProperty(app, 'router', {
      configurable: true,
      get() {
        throw new Error(
          "'app.router' is deprecated!\nPlease see the 3.x to 4.x migration guide for details on how to update your app.",
        );
      },
    });
    (app as unknown as Record<string, unknown>).del = app.delete;
  }
  (app as unknown as { init(): void }).init();
  return app;
}

/** The last-resort answer (finalhandler), with the version and logging of the app's Express major. */
routerProto.final = (req: unknown, res: unknown, err: unknown) => {
  const app = (req as { app: Application }).app;
  const fh = app._compat === 4 ? finalhandler1 : finalhandler2;
  fh(req as never, res as never, {
    env: app.get('env') as string,
    onerror: (e: unknown) => {
      if (app.get('env') === 'test') return;
      if (app._compat === 4) console.error((e as Error).stack || String(e));
      else console.error(e);
    },
  })(err);
};

// Route params in the Express layer's router: `router.param()` callbacks and mergeParams, ported from
// Express's router. No Gale imports.
import { isThenable } from './layer.js';

type Fn = (...args: unknown[]) => unknown;

export interface ParamCalled {
  error: unknown;
  match: unknown;
  value: unknown;
}

export function mergeParams(params: Record<string, string>, parent: unknown): Record<string, string> {
  if (typeof parent !== 'object' || !parent) return params;
  const p = parent as Record<string, string>;
  const obj = Object.assign({}, p);
  if (!(0 in params) || !(0 in p)) return Object.assign(obj, params);
  let i = 0;
  let o = 0;
  while (i in params) i++;
  while (o in p) o++;
  for (i--; i >= 0; i--) {
    params[i + o] = params[i] as string;
    if (i < o) delete params[i];
  }
  return Object.assign(obj, params);
}

/**
 * Router.process_params: runs the `router.param()` callbacks for the params of a matched layer, once
 * per value per request (`called` remembers), then `done`.
 */
export function processParams(
  params: Record<string, Fn[]>,
  called: Record<string, ParamCalled>,
  req: { params: Record<string, string> },
  res: unknown,
  keys: string[],
  done: (err?: unknown) => void,
): void {
  let i = 0;
  let paramIndex = 0;
  let key: string;
  let paramVal: unknown;
  let paramCallbacks: Fn[] | undefined;
  let paramCalled: ParamCalled | undefined;
  const param = (err?: unknown): void => {
    if (err) {
      done(err);
      return;
    }
    if (i >= keys.length) {
      done();
      return;
    }
    paramIndex = 0;
    key = keys[i++] as string;
    paramVal = req.params[key];
    paramCallbacks = params[key];
    paramCalled = called[key];
    if (paramVal === undefined || !paramCallbacks) {
      param();
      return;
    }
    if (paramCalled && (paramCalled.match === paramVal || (paramCalled.error && paramCalled.error !== 'route'))) {
      req.params[key] = paramCalled.value as string;
      param(paramCalled.error);
      return;
    }
    paramCalled = { error: null, match: paramVal, value: paramVal };
    called[key] = paramCalled;
    paramCallback();
  };
  const paramCallback = (err?: unknown): void => {
    const fn = (paramCallbacks as Fn[])[paramIndex++];
    (paramCalled as ParamCalled).value = req.params[key];
    if (err) {
      (paramCalled as ParamCalled).error = err;
      param(err);
      return;
    }
    if (!fn) {
      param();
      return;
    }
    try {
      const ret = fn(req, res, paramCallback, paramVal, key);
      if (isThenable(ret)) ret.then(undefined, (e: unknown) => paramCallback(e || new Error('Rejected promise')));
    } catch (e) {
      paramCallback(e);
    }
  };
  param();
}

// Public entry of the `gale` package: named exports only.

export type { AddressInfo, FixedResponse, GaleOptions, Handler, StaticOptions } from './app.js';
export { App, gale } from './app.js';
export type { HttpErrorOptions } from './errors.js';
export { ErrorCodes, GaleError, HttpError } from './errors.js';
export type { Headers } from './request.js';
export { Request } from './request.js';
export type { HeaderValue } from './response.js';
export { Response } from './response.js';

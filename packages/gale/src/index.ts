// Public entry of the `gale` package: named exports only.
export { App, gale } from './app.js';
export type { AddressInfo, FixedResponse, GaleOptions, Handler } from './app.js';
export { ErrorCodes, GaleError, HttpError } from './errors.js';
export type { HttpErrorOptions } from './errors.js';
export { Request } from './request.js';
export type { Headers } from './request.js';
export { Response } from './response.js';
export type { HeaderValue } from './response.js';

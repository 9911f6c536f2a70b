// Files for Response: `res.sendFile` (the engine's static path: validators, 304, Range) and
// `res.download` (the same, as an attachment). Imports Response as a type only, never response.ts at run time.
import { basename, isAbsolute, resolve as resolvePath, sep } from 'node:path';
import { create as contentDisposition } from 'content-disposition';
import { ErrorCodes, GaleError, HttpError } from '../errors.js';
import { logRequestDone, primeRequestLog } from '../logging.js';
import { CT_NONE } from '../native.js';
import type { DownloadOptions, ResponseView as Response } from './api.js';
import { contentTypeName } from './headers.js';

/** `res.sendFile(path, options)`. */
export function sendFile(res: Response, path: string, options: { root?: string; dotfiles?: 'ignore' | 'allow' }): void {
  let full = path;
  // Dotfile checks cover what the caller did not choose: the part below root, or the file name.
  let checked: string[];
  if (options.root !== undefined) {
    const root = resolvePath(options.root);
    full = resolvePath(root, path.replace(/^\/+/, ''));
    if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) {
      throw new HttpError(404, 'Not Found');
    }
    checked = full.slice(root.length).split(sep);
  } else if (!isAbsolute(path)) {
    throw new GaleError(ErrorCodes.INVALID_PATH, `sendFile needs an absolute path or a root option, got ${path}`);
  } else {
    checked = [full.slice(full.lastIndexOf(sep) + 1)];
  }
  if (options.dotfiles !== 'allow' && checked.some((seg) => seg.startsWith('.') && seg.length > 1)) {
    throw new HttpError(404, 'Not Found');
  }
  if (res.finished || res.headersSent) {
    throw new GaleError(ErrorCodes.HEADERS_SENT, 'cannot send a file: a response was already sent');
  }
  if (res._onHead !== undefined) res._runOnHead();
  let lines = res.headerLines() ?? '';
  // A Content-Type set on res wins over the one guessed from the file name.
  if (res._ctype !== CT_NONE) lines = `Content-Type: ${contentTypeName(res._ctype)}\r\n${lines}`;
  // Copy what JS may still read before the engine can release the request.
  if (res._t0 !== 0) primeRequestLog(res._req);
  res._req._keep();
  const code = res._n.sendFile(res._id, full, lines || undefined);
  if (code === 404) throw new HttpError(404, 'Not Found');
  res.finished = true;
  res.headersSent = true;
  if (res._req._deferred) res._host.forget(res._id);
  res._events?.emit('finish');
  if (res._t0 !== 0) logRequestDone(res._req, res.statusCode, res._t0, false);
}

/** `res.download(path, filename, options)`. */
export function download(
  res: Response,
  path: string,
  filename: string | DownloadOptions | undefined,
  options: DownloadOptions,
): void {
  let name = filename;
  if (typeof name === 'object') {
    options = name;
    name = undefined;
  }
  const extra = Object.entries(options.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'content-disposition');
  for (const [k, v] of extra) res.header(k, v);
  res.header('Content-Disposition', contentDisposition(basename(name || path)));
  const full = options.root === undefined ? resolvePath(path) : path;
  try {
    res.sendFile(full, { root: options.root, dotfiles: options.dotfiles });
  } catch (err) {
    // As Express, the download headers belong to the file only: an error answer must not be a download.
    if (!res.headersSent) {
      res.removeHeader('content-disposition');
      for (const [k] of extra) res.removeHeader(k);
    }
    throw err;
  }
}

// qs, for the nested (`extended`) query and form parsing only, loaded on first use: it is an optional peer
// dependency of the core (with its dependencies, some 20 packages that flat parsing does not need).
import { createRequire } from 'node:module';
import { ErrorCodes, GaleError } from './errors.js';

/** The part of qs's parse options Gale passes. */
export interface QsParseOptions {
  depth?: number;
  parameterLimit?: number;
  arrayLimit?: number;
  plainObjects?: boolean;
  charset?: 'utf-8' | 'iso-8859-1';
  strictDepth?: boolean;
}

/** What Gale uses of qs. */
export interface Qs {
  parse(text: string, options: QsParseOptions): Record<string, unknown>;
}

let qs: Qs | undefined;

/** The qs module, or a GaleError saying to install it when `what` (the option that asked for it) needs it. */
export function loadQs(what: string): Qs {
  if (qs === undefined) {
    try {
      qs = createRequire(import.meta.url)('qs') as Qs;
    } catch (err) {
      if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
      throw new GaleError(
        ErrorCodes.MISSING_PACKAGE,
        `${what} parses nested keys (a[b]=1) with the qs package, which is not installed: npm install qs`,
      );
    }
  }
  return qs;
}

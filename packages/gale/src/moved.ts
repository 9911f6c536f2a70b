// What moved out of the core package when Gale split into packages by job: the old names stay, as stand-ins that
// throw GALE_ERR_MOVED with the package to install and the line to write instead, so old code fails saying what to do.
import { ErrorCodes, GaleError } from './errors.js';

/** The error an old name throws: what moved, where, and how to use it there. */
export function movedError(what: string, pkg: string, usage: string): GaleError {
  return new GaleError(ErrorCodes.MOVED, `${what} moved to its own package, ${pkg}: npm install ${pkg}, then ${usage}`);
}

/** A stand-in function for a moved export: calling it (or `new`) throws {@link movedError}. */
export function movedFunction(what: string, pkg: string, usage: string): (...args: never[]) => never {
  return function moved(): never {
    throw movedError(what, pkg, usage);
  };
}

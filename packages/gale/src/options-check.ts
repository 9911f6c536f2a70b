// Checks the option objects users hand to gale()/serve(), listen() and app.ws() once, when they are given: an unknown
// name (a typo: `bodylimit`) or a value of the wrong kind throws a TypeError with code GALE_ERR_INVALID_OPTION that
// names the option, and the nearest valid name for an unknown one. Nothing here runs per request.
import { ErrorCodes } from './errors.js';

/** The error every refused option gets: a TypeError (as Node's invalid-argument errors) with a stable code. */
export type InvalidOptionError = TypeError & { code: typeof ErrorCodes.INVALID_OPTION };

/** `where: message`, as a TypeError carrying GALE_ERR_INVALID_OPTION. */
export function invalidOption(where: string, message: string): InvalidOptionError {
  const err = new TypeError(`${where}: ${message}`) as InvalidOptionError;
  err.code = ErrorCodes.INVALID_OPTION;
  return err;
}

/** Edit distance with adjacent transpositions (optimal string alignment), for "did you mean". */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  const first = rows[0] as number[];
  for (let j = 1; j <= b.length; j++) first[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The known name closest to `name` (case ignored first), if one is close enough to be the name meant. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestD = limit + 1;
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best;
}

/**
 * Throws for the first own key of `options` not in `known`: with `hints[key]` when there is one (a name from another
 * library), else the nearest known name, and the list of known names. `prefix` names a nested object (`json.`).
 */
export function checkNames(
  where: string,
  options: object,
  known: readonly string[],
  hints: Record<string, string> = {},
  prefix = '',
): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
    if (hint !== undefined) throw invalidOption(where, `unknown option '${prefix}${key}': ${hint}`);
    const near = nearestName(key, known);
    const mean = near === undefined ? '' : ` — did you mean '${prefix}${near}'?`;
    throw invalidOption(where, `unknown option '${prefix}${key}'${mean} (known: ${known.join(', ')})`);
  }
}

/** Throws unless `options` is undefined or a plain options object. */
export function checkObject(where: string, options: unknown, what = 'options'): options is object | undefined {
  if (options === undefined) return true;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalidOption(where, `${what} must be an object; got ${show(options)}`);
  }
  return true;
}

/** A value for a message: JSON where it can be, else its type. */
export function show(v: unknown): string {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'bigint' || typeof v === 'symbol') return typeof v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return typeof v;
  }
}

/** The checks of one option's value: each returns what the value must be, or undefined when it is fine. */
export type Rule = (v: unknown) => string | undefined;

const isCount = (v: unknown, min: number) => typeof v === 'number' && Number.isInteger(v) && v >= min;

/** A whole number ≥ `min` (`unit` says of what). */
export const count =
  (unit: string, min = 0): Rule =>
  (v) =>
    isCount(v, min) ? undefined : `a whole number of ${unit}${min > 0 ? ` (at least ${min})` : ''}`;
/** A number from `min` to `max`. */
export const between =
  (min: number, max: number, what = 'a number'): Rule =>
  (v) =>
    typeof v === 'number' && v >= min && v <= max ? undefined : `${what} from ${min} to ${max}`;
export const bool: Rule = (v) => (typeof v === 'boolean' ? undefined : 'true or false');
export const str: Rule = (v) => (typeof v === 'string' ? undefined : 'a string');
export const fn: Rule = (v) => (typeof v === 'function' ? undefined : 'a function');
/** A byte count: a number, or a string like '100kb'. */
export const bytes: Rule = (v) =>
  isCount(v, 0) || typeof v === 'string' ? undefined : "a number of bytes or a size such as '100kb'";
/** One of the listed values. */
export const oneOf =
  (...values: unknown[]): Rule =>
  (v) =>
    values.includes(v)
      ? undefined
      : values
          .map((x) => show(x))
          .join(', ')
          .replace(/, ([^,]*)$/, ' or $1');
/** Any of the rules. */
export const anyOf =
  (...rules: Rule[]): Rule =>
  (v) => {
    const wants: string[] = [];
    for (const r of rules) {
      const want = r(v);
      if (want === undefined) return undefined;
      wants.push(want);
    }
    return wants.join(', or ');
  };
/** An object whose fields follow `rules` (unknown names refused). */
export const shape =
  (where: string, prefix: string, rules: Record<string, Rule>): Rule =>
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'an object';
    checkFields(where, v, rules, `${prefix}.`);
    return undefined;
  };

/** Checks the names and the (defined) values of `options` against `rules`. */
export function checkFields(where: string, options: object, rules: Record<string, Rule>, prefix = ''): void {
  checkNames(where, options, Object.keys(rules), {}, prefix);
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const want = (rules[key] as Rule)(value);
    if (want !== undefined) throw invalidOption(where, `option ${prefix}${key} must be ${want}; got ${show(value)}`);
  }
}

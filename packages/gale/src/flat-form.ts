// Flat urlencoded parsing (`a=1&a=2&b` → { a: ['1', '2'], b: '' }), the semantics qs gives with depth 0 — what
// body-parser's non-extended urlencoded and Express 5's simple query parser produce — without qs and its 20-odd
// dependencies in the core. Nested parsing (`extended`) needs qs, loaded only when asked for (qs.ts).

/** Decodes one key or value as qs does: `+` is a space; an invalid escape leaves the text as it is. */
function decode(s: string, latin1: boolean): string {
  const plus = s.indexOf('+') === -1 ? s : s.replace(/\+/g, ' ');
  if (plus.indexOf('%') === -1) return plus;
  // ISO-8859-1: each %XX is one byte, one character (qs's unescape).
  if (latin1) return plus.replace(/%[0-9a-f]{2}/gi, (h) => String.fromCharCode(Number.parseInt(h.slice(1), 16)));
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

/**
 * Parses `text` into a null-prototype object of flat keys; a repeated key becomes an array of its values in order;
 * an empty key and `__proto__` are skipped.
 *
 * @example
 * parseFlat('a=1&a=2&b', false); // { a: ['1', '2'], b: '' }
 */
export function parseFlat(text: string, latin1: boolean): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  let appended = 0; // `[]=x` keys: qs gives each the next index, `0`, `1`, …
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      // As qs: a key ends at the first '=', or at the '=' of a ']=' (so `a[x=y]=1` keeps its bracket).
      const bracketEq = text.indexOf(']=', start);
      const eq = bracketEq !== -1 && bracketEq < end ? bracketEq + 1 : text.indexOf('=', start);
      const hasValue = eq !== -1 && eq < end;
      let key = decode(text.slice(start, hasValue ? eq : end), latin1);
      // A whole key in brackets loses them (`[a]` is `a`), as qs reads a root segment.
      if (key.length > 2 && key.charCodeAt(0) === 0x5b && key.charCodeAt(key.length - 1) === 0x5d) {
        key = key.slice(1, -1);
      } else if (key === '[]') {
        key = String(appended++);
      }
      if (key !== '' && key !== '__proto__') {
        const value = hasValue ? decode(text.slice(eq + 1, end), latin1) : '';
        const prev = out[key];
        out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
      }
    }
    start = end + 1;
  }
  return out;
}

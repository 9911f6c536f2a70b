// The `html` tagged template: interpolated values are HTML-escaped unless they are themselves `html`
// results or wrapped in `raw()`. Nothing here evaluates strings; it only concatenates and escapes.

/**
 * A string of HTML that is safe to send as is (built by `html` or `raw`).
 *
 * @example
 * const row = html`<li>${name}</li>`; // a SafeHtml: nested in another html`` it is not escaped again
 * app.get('/', () => html`<ul>${items.map((name) => html`<li>${name}</li>`)}</ul>`);
 */
export class SafeHtml {
  /** The markup. */
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
  toJSON(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/;
const SPECIAL_G = /[&<>"']/g;

/**
 * Escapes `&`, `<`, `>`, `"` and `'` for use in HTML text and quoted attribute values.
 *
 * @example
 * escapeHtml('<b>"hi"</b>') // '&lt;b&gt;&quot;hi&quot;&lt;/b&gt;'
 */
export function escapeHtml(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(SPECIAL_G, (c) => ESCAPES[c] as string);
}

function interpolate(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) {
    let out = '';
    for (const v of value) out += interpolate(v);
    return out;
  }
  return escapeHtml(String(value));
}

/**
 * Builds HTML from a template literal, escaping every interpolated value. Arrays are joined (each item
 * escaped), nested `html` results and `raw()` values are inserted as they are, and `null`,
 * `undefined` and `false` render as nothing. Return the result from a handler (or pass it to
 * `res.send`) to answer with `text/html; charset=utf-8`.
 *
 * @example
 * import { html } from 'gale';
 * app.get('/hi/:name', (req) => html`<h1>Hello ${req.params.name}</h1>
 *   <ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`);
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += interpolate(values[i]) + (strings[i + 1] as string);
  return new SafeHtml(out);
}

/**
 * Marks a string as trusted HTML so `html` inserts it without escaping. Only use it for markup you
 * produced yourself, never for request data.
 *
 * @example
 * html`<main>${raw(renderedMarkdown)}</main>`
 */
export function raw(markup: string | SafeHtml): SafeHtml {
  return markup instanceof SafeHtml ? markup : new SafeHtml(String(markup));
}

// Pre-run validation: fetch the scenario once and check status, Content-Type and the exact body bytes before any load
// is counted. (During the run the load tool checks status and body of every response.)
import { describeBody, type Scenario } from './scenarios.ts';

export interface Validation {
  status: number;
  headers: Record<string, string>;
  /** The body as text, or for a long or binary body its size, hash and first bytes (bodyPreview). */
  body: string | { bytes: number; sha256: string };
}

/** A short printable preview of body bytes, for failure messages. */
function preview(b: Buffer): string {
  const s = b.subarray(0, 120).toString('utf8');
  return `${b.length} bytes ${JSON.stringify(s)}${b.length > 120 ? '…' : ''}`;
}

/** Where two buffers first differ (their common length when one is a prefix of the other). */
function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

function parseContentType(v: string): { type: string; params: Map<string, string> } {
  const [type = '', ...rest] = v.split(';');
  const params = new Map<string, string>();
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i > 0)
      params.set(
        p.slice(0, i).trim().toLowerCase(),
        p
          .slice(i + 1)
          .trim()
          .replace(/^"|"$/g, '')
          .toLowerCase(),
      );
  }
  return { type: type.trim().toLowerCase(), params };
}

/** null when `actual` satisfies `expected` (same media type, expected params present, any charset is utf-8). */
export function contentTypeProblem(actual: string | null, expected: string): string | null {
  if (actual === null) return `no Content-Type (expected "${expected}")`;
  const a = parseContentType(actual);
  const e = parseContentType(expected);
  const bad = `Content-Type "${actual}" (expected "${expected}")`;
  if (a.type !== e.type) return bad;
  for (const [k, v] of e.params) if (a.params.get(k) !== v) return bad;
  const cs = a.params.get('charset');
  if (cs !== undefined && cs !== 'utf-8' && cs !== 'utf8') return bad;
  return null;
}

/** Whether fetch() failed on its connection (closed, reset) rather than by a timeout or a bad answer. */
function isConnectionFailure(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } }).cause;
  return (
    err instanceof TypeError && ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED'].includes(cause?.code ?? '')
  );
}

/** fetch()'s message with its cause's (undici says only "fetch failed" at the top). */
function describeFailure(err: unknown): string {
  const e = err as Error & { cause?: { message?: string; code?: string } };
  return e.cause ? `${e.message} (${e.cause.code ?? ''} ${e.cause.message ?? ''})`.replace(/\s+\)/, ')') : e.message;
}

/** Fetches the scenario once; returns what was seen and a problem description (null when it matches exactly). */
export async function validateOnce(
  baseUrl: string,
  scenario: Scenario,
  timeoutMs = 5000,
): Promise<{ seen: Validation | null; problem: string | null }> {
  let res: Response;
  let body: Buffer;
  const get = async (): Promise<[Response, Buffer]> => {
    const r = await fetch(baseUrl + scenario.path, {
      method: scenario.method,
      // fetch() would ask for gzip/deflate (and undo it): ask for what the load tools get, which send no
      // Accept-Encoding.
      headers: { 'accept-encoding': 'identity', ...scenario.headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return [r, Buffer.from(await r.arrayBuffer())];
  };
  try {
    try {
      [res, body] = await get();
    } catch (err) {
      // fetch() pools keep-alive connections across validations, and a server may close an idle one at any time
      // (RFC 9112 §9.3): a GET that failed on the connection, not by timing out, is sent once more, as clients do
      // with idempotent requests, on a new connection. A server that cannot answer that one either is FAILED.
      if (!isConnectionFailure(err)) throw err; // every scenario is a GET
      process.stderr.write(`    validation: ${describeFailure(err)}; sent once more on a new connection\n`);
      [res, body] = await get();
    }
  } catch (err) {
    return { seen: null, problem: `request failed: ${describeFailure(err)}` };
  }
  const seen: Validation = {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: describeBody(body),
  };
  const problems: string[] = [];
  if (res.status !== scenario.status) problems.push(`status ${res.status} (expected ${scenario.status})`);
  const ct = contentTypeProblem(res.headers.get('content-type'), scenario.contentType);
  if (ct) problems.push(ct);
  for (const [name, want] of Object.entries(scenario.expectHeaders)) {
    const got = res.headers.get(name);
    if (got === null) problems.push(`no ${name} header`);
    else if (want !== true && got !== want) problems.push(`${name} "${got}" (expected "${want}")`);
  }
  if (!body.equals(scenario.body)) {
    problems.push(
      scenario.body.length <= 120
        ? `body ${JSON.stringify(body.toString('utf8').slice(0, 120))} (expected ${JSON.stringify(scenario.body.toString('utf8'))})`
        : `body of ${preview(body)} differs from the expected ${scenario.body.length} bytes at byte ${firstDifference(body, scenario.body)}`,
    );
  }
  return { seen, problem: problems.length ? `validation: ${problems.join('; ')}` : null };
}

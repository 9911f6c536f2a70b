// What the arena's validation checks are made of (validate.ts, validate-crud.ts): one request on a fresh connection,
// and a check's outcome.
import http from 'node:http';

export interface Check {
  label: string;
  ok: boolean;
  /** What was wrong (empty when ok). */
  detail: string;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request on a fresh connection (node:http, which decodes nothing: the body is the bytes on the wire). */
export function request(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path, headers: o.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', reject);
    req.end(o.body);
  });
}

/** One check, run by validate(): a request or several, then what was wrong. */
export type Step = () => Promise<Check | Check[]>;

export const pass = (label: string): Check => ({ label, ok: true, detail: '' });
export const fail = (label: string, detail: string): Check => ({ label, ok: false, detail });
export const show = (b: Buffer | string) => JSON.stringify(String(b).slice(0, 160));

/** validate.sh's check_header rule: equal, or equal up to parameters; text/javascript counts as application/javascript. */
export function headerMatches(value: string | undefined, expected: string): boolean {
  const norm = (s: string) => s.replace('text/javascript', 'application/javascript');
  const v = value ?? '';
  return [v, norm(v)].some((x) => x === expected || x.startsWith(`${expected};`) || x === norm(expected));
}

/** validate.sh's python check of a /json answer: the count, and every item's total = price × quantity × m. */
export function jsonProblem(body: Buffer, count: number, m: number): string | null {
  let d: { count?: unknown; items?: { price: number; quantity: number; total?: number }[] };
  try {
    d = JSON.parse(body.toString('utf8'));
  } catch {
    return `not JSON: ${show(body)}`;
  }
  const items = Array.isArray(d.items) ? d.items : [];
  const hasTotal = items.length > 0 && items.every((i) => 'total' in i);
  const correct = items.every((i) => i.total === i.price * i.quantity * m);
  if (d.count === count && hasTotal && correct) return null;
  return `count=${String(d.count)}, has_total=${hasTotal}, correct_totals=${correct}`;
}

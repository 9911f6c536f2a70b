// HttpArena's crud validation (its scripts/validate.sh at commit 28606baf, "CRUD"), ported check by check: the
// paginated list, a read, the cache-aside MISS then HIT, the 404, a create (201), reading it back, and an update that
// invalidates the cached item.
import { type Check, fail, pass, request, type Step, show } from './check-http.ts';

const json = { 'Content-Type': 'application/json' };
const xCache = (h: Record<string, string | string[] | undefined>) => String(h['x-cache'] ?? '').trim();

function parsed(body: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body.toString('utf8'));
    return v !== null && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}

/** The checks validate.sh runs for a server subscribed to crud, in its order (they depend on it). */
export function crudChecks(port: number): Step[] {
  return [
    async (): Promise<Check> => {
      const label = 'GET /crud/items?category=electronics&page=1&limit=5';
      const a = await request(port, { path: '/crud/items?category=electronics&page=1&limit=5' });
      const d = parsed(a.body);
      const items = Array.isArray(d?.items) ? (d.items as Record<string, unknown>[]) : [];
      const ok =
        items.length === 5 && Number(d?.total) > 0 && d?.page === 1 && items.every((i) => i !== null && 'rating' in i);
      return ok ? pass(label) : fail(label, `expected 5 items with rating, total > 0, page 1; got ${show(a.body)}`);
    },
    async (): Promise<Check> => {
      const label = 'GET /crud/items/1';
      const a = await request(port, { path: '/crud/items/1' });
      return parsed(a.body)?.id === 1 ? pass(label) : fail(label, `expected id 1, got ${a.status} ${show(a.body)}`);
    },
    async (): Promise<Check> => {
      const label = 'crud cache-aside (first MISS, then HIT)';
      const first = xCache((await request(port, { path: '/crud/items/42' })).headers);
      const second = xCache((await request(port, { path: '/crud/items/42' })).headers);
      return first === 'MISS' && second === 'HIT'
        ? pass(label)
        : fail(label, `expected X-Cache MISS then HIT, got ${show(first)} then ${show(second)}`);
    },
    async (): Promise<Check> => {
      const label = 'GET /crud/items/999999 → 404';
      const a = await request(port, { path: '/crud/items/999999' });
      return a.status === 404 ? pass(label) : fail(label, `expected 404, got ${a.status}`);
    },
    async (): Promise<Check> => {
      const label = 'POST /crud/items → 201';
      const a = await request(port, {
        method: 'POST',
        path: '/crud/items',
        headers: json,
        body: '{"id":200001,"name":"ValidateItem","category":"test","price":42,"quantity":7}',
      });
      return a.status === 201 ? pass(label) : fail(label, `expected 201, got ${a.status} ${show(a.body)}`);
    },
    async (): Promise<Check> => {
      const label = 'GET /crud/items/200001 (the created item)';
      const a = await request(port, { path: '/crud/items/200001' });
      return parsed(a.body)?.id === 200001
        ? pass(label)
        : fail(label, `expected id 200001, got ${a.status} ${show(a.body)}`);
    },
    async (): Promise<Check> => {
      const label = 'PUT /crud/items/200001 → 200, and the cached item invalidated';
      await request(port, { path: '/crud/items/200001' }); // warm the cache
      const put = await request(port, {
        method: 'PUT',
        path: '/crud/items/200001',
        headers: json,
        body: '{"name":"UpdatedItem","category":"test","price":99,"quantity":1}',
      });
      const after = xCache((await request(port, { path: '/crud/items/200001' })).headers);
      return put.status === 200 && after === 'MISS'
        ? pass(label)
        : fail(label, `expected 200 then X-Cache MISS, got ${put.status} then ${show(after)}`);
    },
  ];
}

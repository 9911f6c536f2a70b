// The routes and checks of the late-body tests (tests/api/late-body.test.ts over HTTP/1.1 and HTTP/2,
// tests/h3/late-body.test.ts over HTTP/3): a handler that answers while its body is still coming, and its reader.
import assert from 'node:assert/strict';
import type { Request, Response } from 'gale';
import { bounded } from '../h2/h2.js';
import type { App } from '../helpers.js';

/** `POST /late`: starts reading its body, answers 100 ms later with the body still coming; `outcome()` settles
 *  with what the reader got. `POST /after`: answers, then starts reading in the same turn. */
export function lateRoutes(app: App): { outcome(path: string): Promise<string> } {
  const outcomes = new Map<string, Promise<string>>();
  const read = (req: Request) =>
    req.text().then(
      (t) => `read ${t.length}`,
      (e: { status?: number; code?: string }) => `failed ${e.status} ${e.code}`,
    );
  let arrived: (() => void) | undefined;
  const seen = new Promise<void>((r) => {
    arrived = r;
  });
  app.post('/late', (req: Request, res: Response) => {
    outcomes.set('/late', read(req));
    arrived?.();
    setTimeout(() => res.send('early'), 100);
  });
  app.post('/after', (req: Request, res: Response) => {
    res.send('early');
    outcomes.set('/after', read(req));
    arrived?.();
  });
  return {
    async outcome(path) {
      await bounded(seen, 5000, `the request to ${path} reached its handler`);
      const o = outcomes.get(path);
      assert.ok(o, `${path} ran`);
      return bounded(o, 5000, `the body reader of ${path} settled after the answer`);
    },
  };
}

// Once the response has ended, the body is gone on every protocol (docs/guides/requests-and-responses.md): the
// reader fails with the error saying so, whether the rest came after the answer or never.
export const settled = (s: string) => assert.equal(s, 'failed 400 GALE_ERR_REQUEST_ENDED');
export const REST = 'x'.repeat(990);
/** A stalled body ends within the test's bounds. */
export const gale = { requestTimeout: 500 };

/** Waits until `has()` is true (checked every 10 ms), at most 5 s. */
export const until = (has: () => boolean, what: string) =>
  bounded(
    new Promise<void>((r) => {
      const check = () => (has() ? r() : setTimeout(check, 10));
      check();
    }),
    5000,
    what,
  );

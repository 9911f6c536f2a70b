// Type test, compiled on its own (`tsc -p tests/types/register`, in `npm run typecheck`): an app that declares
// `query: 'extended'` in Register gets qs's nested type on `req.query`; routes with a query schema keep its output.
import { gale, type ParsedQuery, type Query } from 'gale';
import { z } from 'zod';
import { type Equal, ok } from '../expect.js';

declare module 'gale' {
  interface Register {
    query: 'extended';
  }
}

ok<Equal<Query, ParsedQuery>>(true);
const app = gale({ query: 'extended' });
app.get('/search', (req) => {
  ok<Equal<typeof req.query, ParsedQuery>>(true);
  const filter = req.query.filter;
  return typeof filter === 'object' && !Array.isArray(filter) ? filter.tag : undefined;
});
app.get('/page', { query: z.object({ page: z.coerce.number() }) }, (req) => {
  ok<Equal<typeof req.query, { page: number }>>(true);
  return req.query.page;
});

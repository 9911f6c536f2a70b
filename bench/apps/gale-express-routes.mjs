// The routes of apps/express-app.mjs written on Gale's native API with `res` (res.json, res.send), so the cost the
// Express layer adds on the same route can be measured: `/` res.json({ hello: 'world' }), `/u/:id` res.send of a
// string, `/a` one awaited promise then res.json. On 127.0.0.1:$PORT.
import { gale } from 'gale';

const app = gale();
app.get('/', (_req, res) => res.json({ hello: 'world' }));
app.get('/u/:id', (req, res) => res.send(`user ${req.params.id}`));
app.get('/a', async (_req, res) => {
  await Promise.resolve();
  res.json({ hello: 'world' });
});
app.listen(Number(process.env.PORT), '127.0.0.1');

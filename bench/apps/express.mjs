// Benchmark app: Express 5 with its defaults (res.json / res.send). Serves the HTTP scenarios of
// bench/lib/scenarios.ts on 127.0.0.1:$PORT. Prints nothing but errors.
import express from 'express';

const app = express();

app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
app.get('/json', (_req, res) => {
  res.json({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } });
});
app.get('/text', (_req, res) => {
  res.set('Content-Type', 'text/plain; charset=utf-8').send('Hello 世界');
});
app.get('/hello/:name', (req, res) => {
  res.set('Content-Type', 'text/plain; charset=utf-8').send(`Hello ${req.params.name}`);
});

app.listen(Number(process.env.PORT), '127.0.0.1', (err) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
});

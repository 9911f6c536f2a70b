// HTTP/2 conformance with h2spec (every case, --strict), on cleartext h2c and over TLS with ALPN h2: no case may fail.
// The route reads the request body before it answers, as a POST handler does. h2spec's stream-state and flow-control
// cases send a GET whose HEADERS leave the stream open, then RST_STREAM, HEADERS or WINDOW_UPDATE frames on it; a route
// that answers at once ends the stream (and resets it with NO_ERROR, as RFC 9113 §8.1 allows) before or after those
// frames arrive depending on how the socket's reads split, so three cases would pass or fail by timing alone.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { h2App } from './h2.js';
import { h2specPath } from './h2spec.js';

const run = promisify(execFile);

for (const secure of [false, true]) {
  test(`h2spec --strict on ${secure ? 'TLS (ALPN h2)' : 'h2c'}: every case passes`, { timeout: 120_000 }, async (t) => {
    const h2spec = h2specPath();
    const s = await h2App(
      t,
      (app) => {
        app.all('/', async (req, res) => {
          await req.arrayBuffer();
          res.send('hello h2spec');
        });
      },
      { secure },
    );
    const args = ['-h', '127.0.0.1', '-p', String(s.port), '--strict', '-o', '3', ...(secure ? ['-t', '-k'] : [])];
    // h2spec exits 1 when a case fails: the report is read either way.
    const out = await run(h2spec, args, { timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }).catch(
      (err: { stdout?: string; stderr?: string; message: string }) => {
        if (err.stdout === undefined) throw err;
        return { stdout: err.stdout, stderr: err.stderr ?? '' };
      },
    );
    const summary = /(\d+) tests, (\d+) passed, (\d+) skipped, (\d+) failed/.exec(out.stdout);
    assert.ok(summary, `h2spec printed no summary:\n${out.stdout}\n${out.stderr}`);
    const [, total, passed, skipped, failed] = summary.map(Number);
    const failures = out.stdout.slice(out.stdout.indexOf('Failures:'));
    assert.equal(failed, 0, `h2spec failures:\n${failures}`);
    assert.equal(skipped, 0);
    assert.ok((total ?? 0) >= 146, `all of h2spec's strict cases ran (${total})`);
    assert.equal(passed, total);
    t.diagnostic(summary[0]);
  });
}

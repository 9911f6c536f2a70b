// A mocha reporter that appends one JSON line per outcome to UPSTREAM_REPORT as it happens (so a run that crashes
// still leaves what ran), and a final {"end": true} line when mocha finished the run.
'use strict';
const { appendFileSync } = require('node:fs');
const out = process.env.UPSTREAM_REPORT;
if (!out) throw new Error('reporter.cjs needs UPSTREAM_REPORT');

module.exports = function LineReporter(runner) {
  const write = (o) => appendFileSync(out, `${JSON.stringify(o)}\n`);
  const line = (state, t, err) =>
    write({
      state,
      file: t.file,
      title: t.fullTitle(),
      hook: t.type === 'hook' || undefined,
      error: err ? String(err.message ?? err).slice(0, 2000) : undefined,
    });
  runner.on('pass', (t) => line('passed', t));
  runner.on('fail', (t, err) => line('failed', t, err));
  runner.on('pending', (t) => line('pending', t));
  runner.once('end', () => write({ end: true }));
};

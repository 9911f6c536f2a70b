// The socket.io-protocol and engine.io-protocol suites (raw fetch + WebSocket tests of a running server) against the
// real socket.io / engine.io release (the baseline) and against @gale-http/socket.io / @gale-http/engine.io. Each run starts the
// suite's server (servers/*.mjs, one app for both) on a free port, points the suite's URL at it, runs the suite's own
// mocha and stops the server, also when something fails.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareCopy, suiteDir } from './copy.mjs';
import { runMocha } from './mocha.mjs';

const servers = join(import.meta.dirname, 'servers');
const SUITE_FILES = ['test-suite.js', 'node-imports.js', 'package.json', 'package-lock.json'];
const URL_LINE = 'const URL = "http://localhost:3000";';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 3_000;
const RUN_TIMEOUT_MS = 180_000;
/** The mocha the suites run with (see prepareProtocol). */
const MOCHA = '11.7.5';

/**
 * The two suites: the real release they are scored against (`reference`, completed with the resolved Engine.IO
 * version once installed), the package that provides it and the server script.
 */
export const PROTOCOL_SUITES = {
  'socket.io-protocol': {
    reference: 'socket.io@4.8.4',
    package: { name: 'real-socket.io', spec: 'npm:socket.io@4.8.4' },
    server: join(servers, 'socket.io.mjs'),
    gale: '@gale-http/socket.io',
  },
  'engine.io-protocol': {
    reference: 'engine.io@6.6.13',
    package: { name: 'real-engine.io', spec: 'npm:engine.io@6.6.13' },
    server: join(servers, 'engine.io.mjs'),
    gale: '@gale-http/engine.io',
  },
};

/**
 * What the runner adds to the suite's node-imports.js (../shared/upstream/README): browser-like event delivery. ws
 * emits every message of one TCP read synchronously, one after the other, while the tests register each one-shot
 * listener only after an `await`, so the second of two packets written back to back can reach no listener. A browser
 * dispatches each WebSocket event in a task of its own, microtasks run in between. Here the first event of a burst
 * is dispatched in the I/O callback it arrived in (its task), and each later one in a setImmediate of its own, in
 * order (Node runs microtasks between immediates). Deferring the first one too would let I/O that arrived after it
 * overtake it: a fetch response read in the same loop turn would resolve, and its awaiting test register a listener,
 * before a WebSocket message the server had sent earlier. Errors keep ws's Node behaviour: an 'error' nobody listens
 * to still throws, as from ws's own emit.
 */
const DELIVERY_SHIM = `
// Added by Gale's upstream runner (scripts/upstream/protocol.mjs): each WebSocket event in a task of its own, in
// order, as a browser dispatches them; the first of a burst at once, the next ones one setImmediate each.
const EVENTS = new Set(["message", "open", "close", "error"]);
class BrowserLikeWebSocket extends WebSocket {
  emit(type, ...args) {
    if (!EVENTS.has(type)) return super.emit(type, ...args);
    const listening = this.listenerCount(type) > 0;
    if (this._galeQueue === undefined) {
      this._galeQueue = [];
      const next = () => {
        const event = this._galeQueue.shift();
        if (event === undefined) {
          this._galeQueue = undefined;
          return;
        }
        setImmediate(next);
        super.emit(event.type, ...event.args);
      };
      setImmediate(next);
      super.emit(type, ...args);
    } else this._galeQueue.push({ type, args });
    return listening;
  }
}
globalThis.WebSocket = BrowserLikeWebSocket;
`;

/** A working copy of the suite with its locked dependencies, and the reference release next to it. */
export function prepareProtocol(suite) {
  const cfg = PROTOCOL_SUITES[suite];
  const copy = prepareCopy(suite, join(suite, 'test-suite'), SUITE_FILES, {}, { lockfile: true });
  // The suite locks mocha 9, which cannot start on Node 26 (its yargs 16 has extensionless CommonJS files in a
  // "type": "module" package, ES modules there) and has no bin/mocha.js, the launcher mocha.mjs starts. The tests
  // run with mocha 11 (the runner only: the packages the tests import stay the locked ones), installed beside the
  // copy; the suite's own launcher path hands over to it, on every Node, for the baseline and Gale alike.
  const runner = prepareCopy(join(suite, 'runner'), join(suite, 'test-suite'), [], { mocha: MOCHA });
  const launcher = join(runner, 'node_modules', 'mocha', 'bin', 'mocha.js');
  writeFileSync(
    join(copy, 'node_modules', 'mocha', 'bin', 'mocha.js'),
    `'use strict';\n// Added by Gale's upstream runner (scripts/upstream/protocol.mjs): mocha ${MOCHA}.\nrequire(${JSON.stringify(launcher)});\n`,
  );
  // Under a name no test requires, in a directory of its own so the suite's locked tree stays as npm ci made it.
  const reference = prepareCopy(join(suite, 'reference'), join(suite, 'test-suite'), [], {
    [cfg.package.name]: cfg.package.spec,
  });
  // The baseline's name says what was installed (socket.io's engine.io is whatever ~6.6 resolved to).
  const version = (name) =>
    JSON.parse(readFileSync(join(reference, 'node_modules', name, 'package.json'), 'utf8')).version;
  cfg.reference =
    suite === 'socket.io-protocol'
      ? `socket.io@${version(cfg.package.name)} (engine.io@${version('engine.io')})`
      : `engine.io@${version(cfg.package.name)}`;
  return copy;
}

/**
 * Runs one protocol suite against `impl` ('reference': the real release; 'gale'), the server and mocha both on the
 * Node binary `node`. Resolves to every case's outcome and the problems seen (as runMocha).
 */
export async function runProtocol({ suite, impl, node, copy }) {
  const cfg = PROTOCOL_SUITES[suite];
  const label = `${suite} on ${impl === 'reference' ? cfg.reference : cfg.gale}`;
  let server;
  try {
    server = await startServer({ node, script: cfg.server, impl, reference: join(copy, 'reference') });
  } catch (err) {
    return { cases: new Map(), problems: [`${label}: the server did not start: ${err.message}`] };
  }
  try {
    writeSuite(suite, copy, `http://127.0.0.1:${server.port}`);
    const result = await runMocha({
      node,
      cwd: copy,
      mochaArgs: [],
      files: ['test-suite.js'],
      env: {},
      timeoutMs: RUN_TIMEOUT_MS,
      label,
    });
    if (server.exited()) result.problems.push(`${label}: the server exited during the run\n${server.output()}`);
    return result;
  } finally {
    await server.stop();
  }
}

/** The suite's two files from the pristine upstream copy: its URL pointed at `url`, the delivery shim added. */
function writeSuite(suite, copy, url) {
  const from = join(suiteDir(suite), 'test-suite');
  const tests = readFileSync(join(from, 'test-suite.js'), 'utf8');
  if (tests.split(URL_LINE).length !== 2) throw new Error(`${suite}: test-suite.js has no single line ${URL_LINE}`);
  writeFileSync(join(copy, 'test-suite.js'), tests.replace(URL_LINE, `const URL = ${JSON.stringify(url)};`));
  const imports = readFileSync(join(from, 'node-imports.js'), 'utf8');
  writeFileSync(join(copy, 'node-imports.js'), imports + DELIVERY_SHIM);
}

/**
 * Starts `script` with UPSTREAM_IMPL=`impl` and waits for its `listening <port>` line. The child's stdin is a pipe it
 * watches: when this process ends, so does the server.
 */
function startServer({ node, script, impl, reference }) {
  const child = spawn(node, [script], {
    env: { ...process.env, UPSTREAM_IMPL: impl, UPSTREAM_REFERENCE: reference },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let exit;
  const keep = (d) => {
    output += d;
    if (output.length > 100_000) output = output.slice(-50_000);
  };
  child.stderr.on('data', keep);
  const closed = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      exit = code ?? signal;
      resolve();
    });
  });
  const tail = () =>
    output
      .trim()
      .split('\n')
      .slice(-15)
      .map((l) => `    ${l}`)
      .join('\n');
  const stop = async () => {
    if (exit === undefined) {
      child.stdin.end();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await closed;
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      stop().then(() => reject(new Error(`no "listening" line within ${START_TIMEOUT_MS / 1000} s\n${tail()}`)));
    }, START_TIMEOUT_MS);
    child.stdout.on('data', (d) => {
      buffered += d;
      const m = /^listening (\d+)$/m.exec(buffered);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      child.stdout.on('data', keep);
      child.stdout.resume();
      resolve({ port: Number(m[1]), stop, exited: () => exit !== undefined, output: tail });
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    closed.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited (${exit}) before listening\n${tail()}`));
    });
  });
}

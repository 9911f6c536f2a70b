// The native binding against its hand-written TypeScript interface (NativeServer in packages/gale/src/native.ts):
// the binding registers its methods with raw Node-API calls (crates/gale-node/src/methods.rs), so napi-rs cannot
// generate the types and only this test catches drift. Both ways: every method a real server object has is in the
// interface and every interface method exists; each method's arity (the registration table gives it, as the
// function's `length`) equals the interface's parameter count; and a callback that reads its arguments itself
// (`nu::args::<N>`) reads at least that many.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { native } from '../../packages/gale/src/native.js';

const root = join(import.meta.dirname, '..', '..');
const nodeSrc = join(root, 'crates', 'gale-node', 'src');

/** NativeServer's methods and their parameter counts, read with the TypeScript compiler. */
function interfaceMethods(): Map<string, number> {
  const file = join(root, 'packages', 'gale', 'src', 'native.ts');
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Map<string, number>();
  sf.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'NativeServer') return;
    for (const m of node.members) {
      if (ts.isMethodSignature(m) && m.name && ts.isIdentifier(m.name)) out.set(m.name.text, m.parameters.length);
    }
  });
  assert.ok(out.size > 0, 'NativeServer not found in native.ts');
  return out;
}

/** The registration table of methods.rs: JS name → [Rust callback path (`setup::route`), declared arity]. */
function registered(): Map<string, [string, number]> {
  const src = readFileSync(join(nodeSrc, 'methods.rs'), 'utf8');
  const out = new Map<string, [string, number]>();
  for (const m of src.matchAll(/\(c"(\w+)", crate::(\w+)::(\w+), (\d+)\)/g)) {
    out.set(m[1] as string, [`${m[2]}::${m[3]}`, Number(m[4])]);
  }
  assert.ok(out.size > 0, 'no registration table found in methods.rs');
  return out;
}

/** The argument count a Rust callback reads itself (N of its `nu::args::<N>`), or undefined when a helper does. */
function rustReads(path: string): number | undefined {
  const [module, fn] = path.split('::') as [string, string];
  const src = readFileSync(join(nodeSrc, `${module}.rs`), 'utf8');
  const start = src.search(new RegExp(`fn ${fn}\\(\\s*env: napi_env,\\s*info: napi_callback_info,?\\s*\\)`));
  assert.ok(start !== -1, `crates/gale-node/src/${module}.rs has no callback ${fn}`);
  const next = src.slice(start + 3).search(/\n(?:pub\(crate\) )?(?:unsafe )?(?:extern "C" )?fn /);
  const body = src.slice(start, next === -1 ? undefined : start + 3 + next);
  const arities = [...body.matchAll(/args::<(\d+)>/g)].map((m) => Number(m[1]));
  assert.ok(arities.length <= 1, `${path} reads its arguments more than once`);
  return arities[0];
}

test('every method of a real native server is in NativeServer, and every NativeServer method exists', () => {
  const server = native.createServer(
    {},
    () => {},
    () => {},
    () => {},
  );
  const actual = Object.keys(server).sort();
  const declared = [...interfaceMethods().keys()].sort();
  assert.deepEqual(actual, declared);
  for (const name of actual) assert.equal(typeof (server as unknown as Record<string, unknown>)[name], 'function');
});

test('each method takes as many arguments in TypeScript as the binding declares, and its callback reads them', () => {
  const iface = interfaceMethods();
  const table = registered();
  assert.deepEqual([...table.keys()].sort(), [...iface.keys()].sort(), 'the registration table and the interface');
  const server = native.createServer(
    {},
    () => {},
    () => {},
    () => {},
  ) as unknown as Record<string, (...a: unknown[]) => unknown>;
  const wrong: string[] = [];
  for (const [name, [path, declared]] of table) {
    const tsCount = iface.get(name);
    if (declared !== tsCount) wrong.push(`${name}: the binding declares ${declared}, TypeScript ${tsCount}`);
    const length = server[name]?.length;
    if (length !== declared) wrong.push(`${name}: the function's length is ${length}, the table says ${declared}`);
    const reads = rustReads(path);
    if (reads !== undefined && reads < declared) wrong.push(`${name}: ${path} reads only ${reads} of ${declared}`);
  }
  assert.deepEqual(wrong, []);
});

test('an option of the wrong type reaching the binding is a TypeError naming it (its napi-rs object type reads it)', () => {
  const f = () => {};
  const refused = (o: object, name: string) =>
    assert.throws(
      () => native.createServer(o as never, f, f, f),
      (e: Error) => e instanceof TypeError && e.message.includes(name),
      JSON.stringify(o),
    );
  refused({ bodyLimit: '1mb' }, 'bodyLimit');
  refused({ compression: 3 }, 'compression');
  refused({ errorFormat: 1 }, 'errorFormat');
  const server = native.createServer({ bodyLimit: 10, compression: { gzip: true } }, f, f, f);
  assert.throws(() => server.setHttp2({ maxFrameSize: '16384' } as never), /maxFrameSize/);
  assert.throws(() => server.wsRoute('/ws', 1, { sendPings: 'yes' } as never), /sendPings/);
  assert.throws(() => server.static('/', '.', { index: 'index.html' } as never), /index/);
});

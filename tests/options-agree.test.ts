// Each engine option agrees across its homes (issue 45): the binding's option types (native-options.ts, generated from
// crates/gale-node/src/options.rs; CI's `binding-types --check` keeps the two equal), the TypeScript types users write
// (both read with the compiler API), the rules of option-rules.ts and static-options.ts, and the bounds gale-server
// and the binding enforce. An option added, renamed or bounded in one place and not the others fails here.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { checkGaleOptions, checkListen, checkWsBehavior } from '../packages/gale/src/option-rules.js';
import { checkStaticOptions } from '../packages/gale/src/static-options.js';

const root = join(import.meta.dirname, '..');
const gsrc = join(root, 'packages', 'gale', 'src');
const nativeOptions = join(gsrc, 'native-options.ts');
const read = (...p: string[]) => readFileSync(join(root, ...p), 'utf8');

/** Kinds of values: number, boolean, string, string[], object, function; `?` for a read or rule not understood. */
type Kinds = Set<string>;
const show = (k: Kinds) => [...k].sort().join('|') || 'undefined';
const same = (a: Kinds, b: Kinds) => a.size === b.size && [...a].every((k) => b.has(k));

// ---- Rust: the bounds' source ----

/** The text of `fn name` (`Type::name`: the one after `impl Type`), from `fn` to its closing brace. */
function fnBody(src: string, name: string): string | undefined {
  const [ty, fn] = name.includes('::') ? (name.split('::') as [string, string]) : [undefined, name];
  const from = ty === undefined ? 0 : src.search(new RegExp(`\\bimpl ${ty}\\b`));
  const at = from < 0 ? -1 : src.slice(from).search(new RegExp(`\\bfn ${fn}\\b`));
  if (at < 0) return undefined;
  let depth = 0;
  for (let i = src.indexOf('{', from + at); i < src.length; i++) {
    if (src[i] === '"') {
      for (i++; i < src.length && src[i] !== '"'; i++) if (src[i] === '\\') i++;
    } else if (src[i] === '{') depth++;
    else if (src[i] === '}' && --depth === 0) return src.slice(from + at, i + 1);
  }
  return undefined;
}

// ---- TypeScript: the types users write, and the rule tables ----

const program = (roots: string[]) =>
  ts.createProgram(roots, {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });

/** The kinds a type allows (`undefined` left out: every option is optional; `false` and `Infinity` are kinds too). */
function kindsOf(checker: ts.TypeChecker, t: ts.Type): Kinds {
  const out: Kinds = new Set();
  for (const u of t.isUnion() ? t.types : [t]) {
    if (u.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Null)) continue;
    if (u.flags & ts.TypeFlags.NumberLike) out.add('number');
    else if (u.flags & ts.TypeFlags.BooleanLike) out.add('boolean');
    else if (u.flags & ts.TypeFlags.StringLike) out.add('string');
    else if (checker.isArrayType(u))
      out.add(`${show(kindsOf(checker, checker.getTypeArguments(u as ts.TypeReference)[0] as ts.Type))}[]`);
    else out.add(u.getCallSignatures().length > 0 ? 'function' : 'object');
  }
  return out;
}

/** A TS type's properties with their kinds, and the kinds at a dotted path (`cache.maxFileSize`). */
type TsType = { names: Map<string, Kinds>; at: (path: string) => Kinds | undefined };

function tsType(prog: ts.Program, file: string, name: string): TsType {
  const checker = prog.getTypeChecker();
  const decl = prog
    .getSourceFile(file)
    ?.statements.find((s) => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === name);
  assert.ok(decl !== undefined, `${file} declares no ${name}`);
  const type = checker.getTypeAtLocation((decl as ts.InterfaceDeclaration).name);
  const kinds = (p: ts.Symbol) => kindsOf(checker, checker.getTypeOfSymbol(p));
  const at = (path: string): Kinds | undefined => {
    let types = [type];
    for (const part of path.split('.')) {
      const props = types.flatMap((t) => (t.isUnion() ? t.types : [t])).map((t) => t.getProperty(part));
      types = props.filter((p) => p !== undefined).map((p) => checker.getTypeOfSymbol(p));
    }
    return types[0] === undefined ? undefined : kindsOf(checker, types[0]);
  };
  return { names: new Map(checker.getPropertiesOfType(type).map((p) => [p.name, kinds(p)])), at };
}

/** Rules (of options-check.ts and option-rules.ts) whose kinds no `typeof` in their body says. */
const RULE_KINDS: Record<string, string> = { bool: 'boolean', str: 'string', fn: 'function', strings: 'string[]' };
Object.assign(RULE_KINDS, { bytes: 'number|string', shape: 'object', count: 'number', between: 'number' });
const isBoolLiteral = (n: ts.Node) => n.kind === ts.SyntaxKind.TrueKeyword || n.kind === ts.SyntaxKind.FalseKeyword;
/** The initializer of the top-level `const name` of `sf`. */
const topConst = (sf: ts.SourceFile, name: string) =>
  sf.statements
    .flatMap((s) => (ts.isVariableStatement(s) ? [...s.declarationList.declarations] : []))
    .find((d) => ts.isIdentifier(d.name) && d.name.text === name)?.initializer;

/** The kinds a rule expression accepts; a local helper (`num`) is followed to its declaration. */
function ruleKinds(sf: ts.SourceFile, e: ts.Expression): Kinds {
  if (ts.isIdentifier(e)) {
    if (RULE_KINDS[e.text] !== undefined) return new Set(RULE_KINDS[e.text]?.split('|'));
    const init = topConst(sf, e.text);
    return init === undefined ? new Set(['?']) : ruleKinds(sf, init);
  }
  if (ts.isCallExpression(e) && ts.isIdentifier(e.expression)) {
    const args = [...e.arguments];
    if (e.expression.text === 'anyOf') return new Set(args.flatMap((a) => [...ruleKinds(sf, a)]));
    if (e.expression.text !== 'oneOf') return ruleKinds(sf, e.expression);
    return new Set(args.flatMap((a) => (ts.isStringLiteral(a) ? ['string'] : isBoolLiteral(a) ? ['boolean'] : [])));
  }
  // An arrow: what it tests the value with (`typeof v === 'number'`, `Number.isInteger(v)`, `v === false`).
  const out: Kinds = new Set();
  const scan = (n: ts.Node): void => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken) {
      if (ts.isTypeOfExpression(n.left) && ts.isStringLiteral(n.right)) out.add(n.right.text);
      if (isBoolLiteral(n.right)) out.add('boolean');
    }
    if (ts.isCallExpression(n) && /^Number\.is(Integer|Finite)$/.test(n.expression.getText(sf))) out.add('number');
    n.forEachChild(scan);
  };
  scan(e);
  return out.size === 0 ? new Set(['?']) : out;
}

/**
 * The rule tables of option-rules.ts, by where they are: `galeRules` (its returned literal), `checkListen` and
 * `checkWsBehavior` (the literal given to checkFields), `fn.name` for a `shape(where, 'name', { … })` inside `fn`.
 */
function ruleTables(src: string): Map<string, Map<string, Kinds>> {
  const sf = ts.createSourceFile('option-rules.ts', src, ts.ScriptTarget.Latest, true);
  const out = new Map<string, Map<string, Kinds>>();
  const visit = (n: ts.Node, fn: string): void => {
    if (ts.isFunctionDeclaration(n) && n.name) fn = n.name.text;
    const p = n.parent;
    const call = p && ts.isCallExpression(p) && ts.isIdentifier(p.expression) ? p : undefined;
    const named = call?.expression.getText(sf) === 'shape' ? call?.arguments[1] : undefined;
    let where = named && ts.isStringLiteral(named) ? `${fn}.${named.text}` : undefined;
    if (call?.expression.getText(sf) === 'checkFields' || (p && ts.isReturnStatement(p))) where = fn;
    if (ts.isObjectLiteralExpression(n) && where !== undefined) {
      const table = new Map<string, Kinds>();
      for (const prop of n.properties) {
        if (ts.isPropertyAssignment(prop)) table.set(prop.name.getText(sf), ruleKinds(sf, prop.initializer));
      }
      out.set(where, table);
    }
    n.forEachChild((c) => visit(c, fn));
  };
  visit(sf, '');
  return out;
}

// ---- The comparisons ----

/**
 * Names that are not the same option on both sides, each with its one-line reason: TS options only JavaScript handles
 * (`jsOnly`), names the binding reads that no user option sets (`bindingOnly`: the rules must refuse them as unknown),
 * TS options JavaScript turns into another kind for the binding (`converted`), and the binding's name → the TS path
 * JavaScript takes it from (`renamed`).
 */
type Exceptions = Partial<Record<'jsOnly' | 'bindingOnly' | 'converted' | 'renamed', Record<string, string>>>;

/** Every disagreement between what the binding reads (its option type) and a TS type (none: they agree). */
function compare(rust: Map<string, Kinds>, t: TsType, ex: Exceptions = {}): string[] {
  const out: string[] = [];
  const read = new Set([...rust.keys()].map((n) => (ex.renamed?.[n] ?? n).split('.')[0]));
  for (const [name, kinds] of rust) {
    const path = ex.renamed?.[name] ?? name;
    const tk = t.at(path);
    if (ex.bindingOnly?.[name] !== undefined) {
      if (tk !== undefined) out.push(`${name}: listed as binding-only, but the TS type declares it`);
    } else if (tk === undefined) out.push(`${name}: the binding reads it, the TS type has no ${path}`);
    else if (ex.converted?.[path] === undefined && !same(kinds, tk)) {
      out.push(`${path}: the binding reads ${show(kinds)}, the TS type declares ${show(tk)}`);
    }
  }
  for (const [name, kinds] of t.names) {
    // Handlers (and `protocol?: undefined`) are JavaScript by nature: no function crosses as an option.
    if ([...kinds].every((k) => k === 'function')) continue;
    if (ex.jsOnly?.[name] === undefined) {
      if (!read.has(name)) out.push(`${name}: in the TS type, but the binding never reads it`);
    } else if (read.has(name)) out.push(`${name}: listed as JS-only, but the binding reads it`);
  }
  for (const n of [...Object.keys(ex.jsOnly ?? {}), ...Object.keys(ex.converted ?? {})]) {
    if (!t.names.has(n)) out.push(`${n}: a stale exception (not in the TS type)`);
  }
  for (const n of [...Object.keys(ex.bindingOnly ?? {}), ...Object.keys(ex.renamed ?? {})]) {
    if (!rust.has(n)) out.push(`${n}: a stale exception (the binding does not read it)`);
  }
  return out;
}

/** Every disagreement between a TS type and its rule table: a name on one side only, or kinds that differ. */
function compareRules(t: TsType, rules: Map<string, Kinds>, bindingOnly: Record<string, string> = {}): string[] {
  const out: string[] = [];
  for (const [name, kinds] of t.names) {
    const rk = rules.get(name);
    if (rk === undefined) out.push(`${name}: no rule (the check refuses it as unknown)`);
    else if (!same(kinds, rk)) out.push(`${name}: the TS type declares ${show(kinds)}, the rule accepts ${show(rk)}`);
  }
  for (const name of rules.keys()) if (!t.names.has(name)) out.push(`${name}: a rule, but the TS type lacks it`);
  for (const name of Object.keys(bindingOnly)) if (rules.has(name)) out.push(`${name}: binding-only, yet has a rule`);
  return out;
}

// ---- The option groups: each decoder, the type users write its options in, and where they are checked ----

/** [the binding's type (native-options.ts), TS type: [file, name], the option-rules.ts table (static-options.ts: 'static')]. */
const GROUPS: [string, [string, string], string][] = [
  ['NativeOptions', ['options.ts', 'GaleOptions'], 'galeRules'],
  ['NativeCompression', ['options.ts', 'CompressionOptions'], 'galeRules.compression'],
  ['NativeHttp2', ['tls.ts', 'Http2Options'], 'checkListen.http2'],
  ['NativeHttp3', ['tls.ts', 'Http3Options'], 'checkListen.http3'],
  ['NativeWebTransport', ['tls.ts', 'WebTransportLimits'], 'checkListen.http3.webtransport'],
  ['NativeWsOptions', ['ws-route.ts', 'WsBehavior'], 'checkWsBehavior'],
  ['NativeStaticOptions', ['options.ts', 'StaticOptions'], 'static'],
];
/** The binding's types that are no user option type's twin, with why. */
const UNGROUPED: Record<string, string> = {
  NativeTls:
    "nativeTls() (tls.ts) builds it from TlsOptions, reading files and picking ALPN; typed as it, it can't drift",
  NativeSni: 'an entry of NativeTls.sni, built by nativeTls()',
};

/** Each table's check, given the options as users write them (it throws GALE_ERR_INVALID_OPTION). */
const CHECK: Record<string, (o: Record<string, unknown>) => void> = {
  galeRules: (o) => checkGaleOptions(o, 'gale()'),
  'galeRules.compression': (o) => checkGaleOptions({ compression: o }, 'gale()'),
  'checkListen.http2': (o) => checkListen({ http2: o }, undefined),
  'checkListen.http3': (o) => checkListen({ http3: o }, undefined),
  'checkListen.http3.webtransport': (o) => checkListen({ http3: { webtransport: o } }, undefined),
  checkWsBehavior: (o) => checkWsBehavior(o, '/ws'),
  static: (o) => void checkStaticOptions(o, 'app.static()'),
};

const each = (reason: string, ...names: string[]) => Object.fromEntries(names.map((n) => [n, reason]));
const PARSED = 'requests are parsed in JS (request/)';

/** The exceptions, by TS type. Keep them few, and each reason true. */
const EXCEPTIONS: Record<string, Exceptions> = {
  GaleOptions: {
    jsOnly: {
      ...each(PARSED, 'query', 'json', 'urlencoded', 'text', 'cookieSecret', 'trustProxy', 'requireLength'),
      ...each('req.subdomains, res.render and ETags are JS', 'subdomainOffset', 'views', 'viewEngine', 'etag'),
      ...each('logging and error pages are JS', 'development', 'logger', 'requestLogging'),
      handlerTimeout: "the dispatcher's timer (app/dispatch.ts)",
      security: 'JS sets the headers, and hands them to static mounts as `headers`',
    },
    bindingOnly: each('in NativeOptions, but no user option sets it', 'maxPipeline', 'highWaterMark', 'backlog'),
  },
  WsBehavior: {
    jsOnly: { nativeAccept: 'JS decides, and turns it on with wsNative() after the first upgrade' },
    converted: { compression: "nativeWsOptions: true → 'shared', false → 'off'" },
    bindingOnly: each(
      'deflate settings nativeWsOptions (ws-route.ts) never passes',
      ...['serverMaxWindowBits', 'clientMaxWindowBits', 'serverNoContextTakeover', 'clientNoContextTakeover'],
    ),
  },
  // Registrar.mountStatic (app-routes.ts) turns the user's static options into the binding's.
  StaticOptions: {
    converted: {
      index: 'a name or false becomes a list',
      cache: 'true/false or { maxFileSize, maxSize } becomes cache, cacheFileMax and cacheMax',
      immutable: 'a RegExp becomes its source',
      headers: 'an object becomes header lines',
    },
    renamed: { cacheFileMax: 'cache.maxFileSize', cacheMax: 'cache.maxSize' },
  },
};

const prog = program([...new Set(GROUPS.map(([, [file]]) => join(gsrc, file))), nativeOptions]);
const tables = ruleTables(read('packages', 'gale', 'src', 'option-rules.ts'));
const rustOf = (name: string) => tsType(prog, nativeOptions, name).names;
const tsOf = ([file, name]: [string, string]) => tsType(prog, join(gsrc, file), name);
/** `{ a: { b: v } }` for path `a.b`. */
const nest = (path: string, v: unknown) =>
  path.split('.').reduceRight<unknown>((inner, k) => ({ [k]: inner }), v) as Record<string, unknown>;

/** Whether `table`'s check refuses `o`; a refusal must be GALE_ERR_INVALID_OPTION, naming `name`. */
function refuses(table: string, name: string, o: Record<string, unknown>): boolean {
  try {
    CHECK[table]?.(o);
    return false;
  } catch (err) {
    const e = err as Error & { code?: string };
    assert.equal(e.code, 'GALE_ERR_INVALID_OPTION', e.message);
    assert.ok(e.message.includes(name), `${e.message}: does not name ${name}`);
    return true;
  }
}

test('every option type of the binding has a group here', () => {
  const sf = prog.getSourceFile(nativeOptions);
  assert.ok(sf !== undefined);
  const found = sf.statements.filter(ts.isInterfaceDeclaration).map((s) => s.name.text);
  assert.deepEqual(found.sort(), [...GROUPS.map(([d]) => d), ...Object.keys(UNGROUPED)].sort());
});

test('each name the binding reads is in the TS type with the same kind, and each TS option reaches it', () => {
  for (const [d, t] of GROUPS)
    assert.deepEqual(compare(rustOf(d), tsOf(t), EXCEPTIONS[t[1]]), [], `${d} ↔ ${t.join(' ')}`);
});

test('each name in the TS types has a rule of the same kind, and binding-only names have none', () => {
  for (const [, t, table] of GROUPS) {
    if (table === 'static') continue;
    const rules = tables.get(table);
    assert.ok(rules !== undefined, `option-rules.ts has no table ${table}`);
    assert.deepEqual(compareRules(tsOf(t), rules, EXCEPTIONS[t[1]]?.bindingOnly), [], `${t.join(' ')} ↔ ${table}`);
  }
});

test('static-options.ts knows every StaticOptions name, and checks the booleans and numbers as such', () => {
  const sf = ts.createSourceFile('s.ts', read('packages', 'gale', 'src', 'static-options.ts'), ts.ScriptTarget.Latest);
  const known = topConst(sf, 'KNOWN') as ts.ArrayLiteralExpression;
  const t = tsOf(['options.ts', 'StaticOptions']);
  const names = known.elements.map((e) => (e as ts.StringLiteral).text);
  assert.deepEqual(names.sort(), [...t.names.keys()].sort(), 'static-options.ts KNOWN vs StaticOptions');
  for (const path of [...t.names.keys(), ...Object.values(EXCEPTIONS.StaticOptions?.renamed ?? {})]) {
    const kinds = show(t.at(path) as Kinds);
    const [good, bad] = kinds === 'boolean' ? [false, 1] : kinds === 'number' ? [0, '1'] : [];
    if (good === undefined) continue;
    assert.ok(!refuses('static', path, nest(path, good)), `${path}: ${good} is refused`);
    assert.ok(refuses('static', path, nest(path, bad)), `${path}: ${bad} is accepted`);
  }
});

// ---- Bounds: where the engine refuses or clamps a value, the rule refuses it first ----

/** Where the bounds are: the Rust file and function. */
const AT = {
  h3: ['crates/gale-server/src/lib.rs', 'H3Options::check'],
  h2: ['crates/gale-server/src/h2/state.rs', 'Settings::new'],
  compression: ['crates/gale-node/src/config.rs', 'compression'],
  config: ['crates/gale-node/src/config.rs', 'config'],
  ws: ['crates/gale-node/src/config.rs', 'ws_options'],
  static: ['crates/gale-node/src/config.rs', 'static_options'],
} as const;
const I31 = 2 ** 31 - 1;

/** [rule table, option, values the rule accepts, values it refuses, where, the bound as the Rust source writes it]. */
const BOUNDS: [string, string, number[], number[], keyof typeof AT, string][] = [
  ['checkListen.http3', 'maxConcurrentStreams', [1], [0, 0.5], 'h3', 'self.max_concurrent_streams == 0'],
  ['checkListen.http3', 'idleTimeout', [1, 600_000], [0, 600_001, Infinity], 'h3', '(1..=600_000).contains(&self.idle'],
  ['checkListen.http3', 'maxConnectionsPerAddress', [1], [0], 'h3', 'self.max_connections_per_address == 0'],
  ['checkListen.http3', 'maxHandshakesPerSecond', [1], [0], 'h3', 'self.max_handshakes_per_second == 0'],
  ['checkListen.http2', 'maxConcurrentStreams', [1], [0], 'h2', 'opts.max_concurrent_streams == 0'],
  ['checkListen.http2', 'initialWindowSize', [65_535, I31], [65_534, I31 + 1], 'h2', '(65_535..=(1 << 31) - 1)'],
  ['checkListen.http2', 'connectionWindowSize', [65_535, I31], [0, Infinity], 'h2', 'contains(&opts.connection_window'],
  ['checkListen.http2', 'maxFrameSize', [16_384, 2 ** 24 - 1], [16_383, 2 ** 24], 'h2', '(16_384..=(1 << 24) - 1)'],
  ['galeRules.compression', 'brotliQuality', [0, 11], [-1, 12], 'compression', 'n.clamp(0.0, 11.0)'],
  ['galeRules.compression', 'gzipLevel', [0, 9], [-1, 10], 'compression', 'n.clamp(0.0, 9.0)'],
  ['galeRules.compression', 'threshold', [0], [-1], 'compression', 'c.threshold = count(n)'],
  ['galeRules', 'bodyLimit', [0, Infinity], [-1], 'config', 'c.body_limit = count(n)'],
  ['galeRules', 'maxConnections', [1], [0], 'config', 'c.max_connections = count::<usize>(n).max(1)'],
  ['galeRules', 'sendTimeout', [0], [-1], 'config', 'set(&mut c.send_timeout_ms, o.send_timeout)'],
  ['checkWsBehavior', 'compressionLevel', [0, 9], [-1, 10], 'ws', 'd.level = n.clamp(0.0, 9.0)'],
  ['checkWsBehavior', 'idleTimeout', [0], [-1], 'ws', 'w.idle_timeout_ms = count(n * 1000.0)'],
  // A cap, not a refusal: a larger maxPayloadLength (engine.io's maxHttpBufferSize) is 2 GiB (docs/hardening.md).
  ['checkWsBehavior', 'maxPayloadLength', [1, 2 ** 31, 2 ** 40], [-1], 'ws', 'count::<usize>(n).min(MAX_MESSAGE)'],
  ['static', 'maxAge', [0], [-1], 'static', 'opts.max_age = o.max_age.map(count)'],
  ['static', 'cache.maxFileSize', [0], [-1], 'static', 'opts.cache_file_max = count(n)'],
  ['static', 'cache.maxSize', [0], [-1], 'static', 'opts.cache_max = count(n)'],
];

test('the bounds of the table are still in the Rust source (so the table cannot go stale)', () => {
  for (const [, path, , , at, literal] of BOUNDS) {
    const [file, fn] = AT[at];
    assert.ok(fnBody(read(file), fn)?.includes(literal), `${file} ${fn} has no \`${literal}\` (${path}) any more`);
  }
  assert.ok(read(AT.ws[0]).includes('const MAX_MESSAGE: usize = 1 << 31;'), 'MAX_MESSAGE is not 2 GiB any more');
  // `count` is what makes a negative 0 in the lines above.
  assert.ok(fnBody(read(AT.config[0]), 'count')?.includes('n.max(0.0)'), 'config.rs count no longer clamps at 0');
});

test('the rules accept what the engine accepts, and refuse what it refuses or clamps, naming the option', () => {
  const wrong: string[] = [];
  for (const [table, path, ok, bad] of BOUNDS) {
    for (const v of ok) if (refuses(table, path, nest(path, v))) wrong.push(`${table} ${path}: ${v} is refused`);
    for (const v of bad) if (!refuses(table, path, nest(path, v))) wrong.push(`${table} ${path}: ${v} is accepted`);
  }
  assert.deepEqual(wrong, []);
});

// ---- The comparisons can fail ----

test('the comparisons report a mismatched pair: a wrong kind, a name on one side only, a wrong rule', () => {
  const dir = mkdtempSync(join(tmpdir(), 'options-agree-'));
  const file = join(dir, 'fake.ts');
  const src =
    'export interface Fake { size?: boolean; fast?: boolean; limit?: number; mode?: "a" | "b"; odd?: string; js?: 1 }\n' +
    'export interface FakeNative { size?: number; fast?: boolean; limit?: number; mode?: string; extra?: boolean; odd?: boolean | FakeNative }';
  let t: ReturnType<typeof tsType>;
  let native: Map<string, Kinds>;
  try {
    writeFileSync(file, src);
    const p = program([file]);
    t = tsType(p, file, 'Fake');
    native = tsType(p, file, 'FakeNative').names;
  } finally {
    rmSync(dir, { recursive: true });
  }
  assert.deepEqual(compare(native, t).sort(), [
    'extra: the binding reads it, the TS type has no extra',
    'js: in the TS type, but the binding never reads it',
    'odd: the binding reads boolean|object, the TS type declares string',
    'size: the binding reads number, the TS type declares boolean',
  ]);
  const ex = { jsOnly: { js: 'x', gone: 'x' }, bindingOnly: { extra: 'x' } };
  assert.deepEqual(compare(native, t, ex), [
    'size: the binding reads number, the TS type declares boolean',
    'odd: the binding reads boolean|object, the TS type declares string',
    'gone: a stale exception (not in the TS type)',
  ]);
  const rules = ruleTables(
    "function checkFake(o) { checkFields(w, o, { size: count('x'), fast: bool, limit: between(1, 2), mode: bool }); }",
  );
  assert.deepEqual(compareRules(t, rules.get('checkFake') as Map<string, Kinds>), [
    'size: the TS type declares boolean, the rule accepts number',
    'mode: the TS type declares string, the rule accepts boolean',
    'odd: no rule (the check refuses it as unknown)',
    'js: no rule (the check refuses it as unknown)',
  ]);
});

// Which route handlers answer a constant: `(req, res) => res.json({ hello: 'world' })` and its kin, read from the
// handler's source with acorn. server.ts lets the engine keep such a route's first answer and send it by itself to the
// requests the handler would answer alike (Gale's route answers); anything this file cannot prove constant runs as is.
import { type Node, parseExpressionAt } from 'acorn';

type N = Node & Record<string, unknown>;

/** A literal JSON can hold, written only with constants: no names, calls, spreads, computed keys or expressions. */
function constant(n: N | null | undefined): boolean {
  if (n === null || n === undefined) return false;
  switch (n.type) {
    case 'Literal':
      // Strings, numbers, booleans, null; not regular expressions or bigints.
      return n.regex === undefined && n.bigint === undefined;
    case 'TemplateLiteral':
      return (n.expressions as N[]).length === 0;
    case 'UnaryExpression': {
      const arg = n.argument as N;
      return n.operator === '-' && arg.type === 'Literal' && typeof arg.value === 'number';
    }
    case 'ArrayExpression':
      return (n.elements as (N | null)[]).every((e) => e !== null && e.type !== 'SpreadElement' && constant(e));
    case 'ObjectExpression':
      return (n.properties as N[]).every((p) => {
        if (p.type !== 'Property' || p.kind !== 'init' || p.computed || p.method || p.shorthand) return false;
        const key = p.key as N;
        // `__proto__: …` sets the prototype rather than a key.
        const name = key.type === 'Identifier' ? key.name : key.type === 'Literal' ? key.value : undefined;
        if (name === '__proto__') return false;
        return (key.type === 'Identifier' || key.type === 'Literal') && constant(p.value as N);
      });
    default:
      return false;
  }
}

/** `res.json(c)`, `res.send(c)`, or either after `res.status(code)`, with `res` the handler's response parameter. */
function constantAnswer(call: N, res: string): boolean {
  if (call.type !== 'CallExpression' || call.optional) return false;
  const args = call.arguments as N[];
  const callee = call.callee as N;
  if (args.length !== 1 || callee.type !== 'MemberExpression' || callee.computed || callee.optional) return false;
  const method = (callee.property as N).name;
  if (method !== 'json' && method !== 'send') return false;
  // send() of a number is a status code in Express 4 and refused in 5: strings, objects and arrays only.
  const arg = args[0] as N;
  if (method === 'send' && arg.type === 'Literal' && typeof arg.value !== 'string') return false;
  if (!constant(arg)) return false;
  let target = callee.object as N;
  if (target.type === 'CallExpression') {
    const c = target.callee as N;
    const a = target.arguments as N[];
    if (c.type !== 'MemberExpression' || c.computed || (c.property as N).name !== 'status' || a.length !== 1) {
      return false;
    }
    const code = (a[0] as N).value;
    if (typeof code !== 'number' || !Number.isInteger(code) || code < 200 || code > 599) return false;
    target = c.object as N;
  }
  return target.type === 'Identifier' && target.name === res;
}

const cache = new WeakMap<object, boolean>();

/**
 * Whether `fn`, called as a route handler `(req, res)`, does nothing but answer a constant with `res.json` or
 * `res.send` (optionally after `res.status(code)`): a plain, non-async function or arrow of at most two plain
 * parameters whose body is that one call. Such a handler answers every request that reaches it alike, as far as its
 * own code goes.
 *
 * @example
 * constantHandler((_req, res) => res.json({ hello: 'world' })); // true
 * constantHandler((req, res) => res.json({ id: req.params.id })); // false
 */
export function constantHandler(fn: (...a: never[]) => unknown): boolean {
  let known = cache.get(fn);
  if (known === undefined) {
    known = check(fn);
    cache.set(fn, known);
  }
  return known;
}

function check(fn: (...a: never[]) => unknown): boolean {
  if (typeof fn !== 'function' || fn.length > 2) return false;
  let node: N;
  try {
    node = parseExpressionAt(Function.prototype.toString.call(fn), 0, { ecmaVersion: 'latest' }) as N;
  } catch {
    // Methods, bound and native functions do not read as an expression: not provable.
    return false;
  }
  if (node.type !== 'ArrowFunctionExpression' && node.type !== 'FunctionExpression') return false;
  if (node.async || node.generator) return false;
  const params = node.params as N[];
  if (params.length !== 2 || !params.every((p) => p.type === 'Identifier')) return false;
  const res = (params[1] as N).name as string;
  if ((params[0] as N).name === res) return false;
  let body = node.body as N;
  if (body.type === 'BlockStatement') {
    const stmts = body.body as N[];
    if (stmts.length !== 1) return false;
    const only = stmts[0] as N;
    if (only.type === 'ExpressionStatement') body = only.expression as N;
    else if (only.type === 'ReturnStatement' && only.argument !== null) body = only.argument as N;
    else return false;
  }
  return constantAnswer(body, res);
}

/**
 * A check that the prototype chain of `proto` (up to Object.prototype) still has the own properties it has now, with
 * the same values and accessors: taken when the module that defines the class loads, before an app can patch it.
 */
export function pristine(proto: object): () => boolean {
  const chain: [object, [PropertyKey, PropertyDescriptor][]][] = [];
  for (let p: object | null = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    chain.push([p, Reflect.ownKeys(p).map((k) => [k, Object.getOwnPropertyDescriptor(p, k) as PropertyDescriptor])]);
  }
  return () =>
    chain.every(([p, props]) => {
      if (Reflect.ownKeys(p).length !== props.length) return false;
      return props.every(([k, d]) => {
        const now = Object.getOwnPropertyDescriptor(p, k);
        return now !== undefined && now.value === d.value && now.get === d.get && now.set === d.set;
      });
    });
}

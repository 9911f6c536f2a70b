// A route's schemas at run time: the handler wrapped so that params, query, headers and body are checked by their
// Standard Schemas (sync or async) after the route's middleware and before the handler, which then sees the
// schemas' outputs; a failure throws ValidationError (a 400 problem document) and the handler does not run. The
// `response` schemas become the response's serializer (serialize.ts).
import type { Handler } from './chain.js';
import { type RequestPart, ValidationError, type ValidationIssue } from './errors.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';
import { standardValidate } from './route-schema.js';
import type { RouteSchema } from './route-types.js';
import { responseSerializer } from './serialize.js';
import type { StandardIssue, StandardResult } from './standard-schema.js';

const PARTS: readonly RequestPart[] = ['params', 'query', 'headers', 'body'];

interface Check {
  readonly part: RequestPart;
  readonly validate: (value: unknown) => unknown;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as PromiseLike<unknown> | undefined)?.then === 'function';
}

/**
 * The handler a route with `schema` runs instead of `handler` (itself when the schema checks and serializes
 * nothing). It declares `next` only when `handler` does, so a route without middleware keeps the direct call.
 */
export function schemaHandler(handler: Handler, schema: RouteSchema | undefined, where: string): Handler {
  if (schema === undefined) return handler;
  const checks: Check[] = [];
  for (const part of PARTS) {
    const validate = standardValidate(schema[part]);
    if (validate !== undefined) checks.push({ part, validate });
  }
  const response = schema.response as Readonly<Record<string, object>> | undefined;
  const ser = response === undefined ? undefined : responseSerializer(response, where);
  if (checks.length === 0 && ser === undefined) return handler;
  const inner = checks.length === 0 ? handler : validating(handler, checks);
  if (ser === undefined) return inner;
  if (handler.length >= 3) {
    return (req, res, next) => {
      res._ser = ser;
      return inner(req, res, next);
    };
  }
  return ((req: Request, res: Response) => {
    res._ser = ser;
    return (inner as (req: Request, res: Response) => unknown)(req, res);
  }) as Handler;
}

/** `handler` behind the checks: synchronous when every schema answered synchronously and no body is read. */
function validating(handler: Handler, checks: readonly Check[]): Handler {
  const run = (req: Request, res: Response, next: Parameters<Handler>[2]): unknown => {
    let pending = false;
    const results: unknown[] = [];
    for (const c of checks) {
      const r = c.part === 'body' ? req.parseBody().then(c.validate) : c.validate(inputOf(req, c.part));
      if (isThenable(r)) pending = true;
      results.push(r);
    }
    if (!pending) {
      apply(req, checks, results);
      return handler(req, res, next);
    }
    return Promise.all(results).then((settled) => {
      apply(req, checks, settled);
      return handler(req, res, next);
    });
  };
  if (handler.length >= 3) return run;
  return ((req: Request, res: Response) => run(req, res, undefined as never)) as Handler;
}

function inputOf(req: Request, part: RequestPart): unknown {
  return part === 'params' ? req.params : part === 'query' ? req.query : req.headers;
}

/** Puts each schema's output where the handler reads it, or throws every issue found. */
function apply(req: Request, checks: readonly Check[], results: readonly unknown[]): void {
  let issues: ValidationIssue[] | undefined;
  for (let i = 0; i < checks.length; i++) {
    const part = (checks[i] as Check).part;
    const r = results[i] as StandardResult<unknown>;
    if (r.issues !== undefined) {
      issues ??= [];
      for (const issue of r.issues) issues.push(toIssue(part, issue, part === 'body' ? bodyHint(req) : undefined));
    } else if (part === 'params') (req as { params: unknown }).params = r.value;
    else if (part === 'body') req.body = r.value;
    else req._validated(part, r.value);
  }
  if (issues !== undefined) throw new ValidationError(issues);
}

function toIssue(part: RequestPart, issue: StandardIssue, hint: string | undefined): ValidationIssue {
  const path = (issue.path ?? []).map((seg) => {
    const key = typeof seg === 'object' && seg !== null ? seg.key : seg;
    return typeof key === 'number' ? key : String(key);
  });
  return {
    in: part,
    pointer: `#${path.map((k) => `/${pointerSegment(String(k))}`).join('')}`,
    path,
    // An issue about the whole body, when its Content-Type made it text or bytes: the header is the likely mistake.
    message: hint !== undefined && path.length === 0 ? `${issue.message} (${hint})` : issue.message,
  };
}

/**
 * Why a body may have been read as something other than the client meant: no Content-Type (read as text), or one
 * that is not JSON or a form; undefined when the header names JSON or a form.
 */
function bodyHint(req: Request): string | undefined {
  const type = req.get('content-type');
  if (type === undefined) {
    return 'the request has no Content-Type header, so its body was read as text; a JSON body needs Content-Type: application/json';
  }
  const essence = (type.split(';')[0] as string).trim().toLowerCase();
  if (essence === 'application/json' || essence.endsWith('+json')) return undefined;
  if (essence === 'application/x-www-form-urlencoded' || essence === 'multipart/form-data') return undefined;
  return `the body was read as ${essence}, its Content-Type; a JSON body needs Content-Type: application/json`;
}

/** One JSON Pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`), percent-encoded where a URI fragment needs it. */
function pointerSegment(key: string): string {
  return key
    .replace(/~/g, '~0')
    .replace(/\//g, '~1')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?]/gu, (c) => encodeURIComponent(c));
}

// The differential cases of the SvelteKit example (examples/sveltekit): the requests sent to it built with
// adapter-gale and with @sveltejs/adapter-node, what of the answers must agree, and what the answers must show.
// tests/sveltekit/diff.test.ts runs them on the workspace build, tests/package/sveltekit.test.ts on the packed one.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type HttpAnswer, request } from './servers.js';

/** Headers compared by value (normalized: media-type parameters and list spacing). */
const COMPARED = [
  'content-type',
  'location',
  'cache-control',
  'allow',
  'x-hooks',
  'x-items',
  'x-example',
  'x-deleted',
  'x-fallback',
  'x-sveltekit-page',
  'content-encoding',
];
/** Headers that must be present on both or on neither. */
const PRESENT = ['etag', 'last-modified'];

export interface Case {
  name: string;
  method?: string;
  path: string | (() => string);
  headers?: Record<string, string>;
  /** Send `Origin: <the server's own origin>` (SvelteKit's CSRF check for form posts). */
  sameOrigin?: boolean;
  body?: string | Buffer;
  /** Compare only the status (bodies are known to differ in wording). */
  statusOnly?: boolean;
}

export const big = Buffer.alloc(100 * 1024, 'abcdefghij');

/**
 * The requests, in order (the form's messages and the cookie counts are state both servers share); `immutable` names
 * one file under /_app/immutable of the build (see immutableEntry).
 */
export function diffCases(immutable: () => string): Case[] {
  return [
    { name: 'SSR page', path: '/' },
    { name: 'SSR page, HEAD', method: 'HEAD', path: '/' },
    { name: 'static file', path: '/static.html' },
    { name: 'static file, HEAD', method: 'HEAD', path: '/static.html' },
    { name: 'static file as /static (.html alias)', path: '/static' },
    { name: 'static file, brotli', path: '/static.html', headers: { 'accept-encoding': 'br' } },
    { name: 'static file, gzip', path: '/static.html', headers: { 'accept-encoding': 'gzip' } },
    { name: 'robots.txt', path: '/robots.txt' },
    { name: 'favicon', path: '/favicon.svg' },
    { name: 'prerendered page', path: '/prerendered.html' },
    { name: 'prerendered page, gzip', path: '/prerendered.html', headers: { 'accept-encoding': 'gzip' } },
    { name: 'prerendered page with SSR pages below it', path: '/blog' },
    { name: 'prerendered page asked with a trailing slash', path: '/blog/?a=1' },
    { name: 'SSR page below a prerendered one', path: '/blog/hello' },
    { name: 'error() in a load', path: '/blog/nope' },
    { name: 'version.json', path: '/_app/version.json' },
    { name: 'immutable asset', path: immutable },
    { name: 'no such page', path: '/no/such/page' },
    { name: 'case matters', path: '/STATIC.HTML' },
    { name: 'data request', path: '/blog/hello/__data.json' },
    { name: 'data request with invalidation', path: '/__data.json?x-sveltekit-invalidated=01' },
    { name: 'redirect from a load', path: '/redirect' },
    { name: 'error(418)', path: '/teapot' },
    { name: 'thrown error', path: '/crash' },
    { name: 'setHeaders', path: '/headers' },
    { name: 'server-side fetch to an own endpoint', path: '/fetch' },
    { name: 'streamed page (read whole)', path: '/stream?delay=100' },
    { name: 'client address', path: '/address' },
    { name: 'cookies, first visit', path: '/cookies' },
    { name: 'cookies, fifth visit', path: '/cookies', headers: { cookie: 'visits=4; theme=light' } },
    { name: 'endpoint cookies', path: '/api/cookies', headers: { cookie: 'seen=yes' } },
    { name: 'GET endpoint with query', path: '/api/items?x=1&x=2&y=%C3%A9' },
    { name: 'HEAD endpoint', method: 'HEAD', path: '/api/items' },
    {
      name: 'POST JSON',
      method: 'POST',
      path: '/api/items',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"kiwi"}',
    },
    {
      name: 'POST JSON, rejected (422)',
      method: 'POST',
      path: '/api/items',
      headers: { 'content-type': 'application/json' },
      body: '{"nom":1}',
    },
    {
      name: 'PUT bytes',
      method: 'PUT',
      path: '/api/items',
      headers: { 'content-type': 'application/octet-stream' },
      body: 'raw bytes',
    },
    {
      name: 'PATCH JSON',
      method: 'PATCH',
      path: '/api/items?id=3',
      headers: { 'content-type': 'application/json' },
      body: '[1,2]',
    },
    { name: 'DELETE', method: 'DELETE', path: '/api/items' },
    { name: 'OPTIONS', method: 'OPTIONS', path: '/api/items' },
    { name: 'fallback handler (PROPFIND)', method: 'PROPFIND', path: '/api/items' },
    { name: 'POST to a static file', method: 'POST', path: '/static.html', sameOrigin: true },
    { name: 'POST to a prerendered page', method: 'POST', path: '/blog', sameOrigin: true },
    {
      name: '100 KiB streamed through an endpoint',
      method: 'POST',
      path: '/api/echo',
      headers: { 'content-type': 'application/octet-stream' },
      body: big,
    },
    {
      name: 'chunked request body',
      method: 'POST',
      path: '/api/echo',
      headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      body: 'sent in chunks',
    },
    { name: 'streamed endpoint', path: '/api/stream' },
    { name: 'redirect from an endpoint', path: '/api/redirect' },
    {
      name: 'form action (no JavaScript)',
      method: 'POST',
      path: '/form',
      sameOrigin: true,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: 'text=hello+there',
    },
    {
      name: 'form action failing validation',
      method: 'POST',
      path: '/form',
      sameOrigin: true,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: 'text=',
    },
    {
      name: 'form action as use:enhance posts it',
      method: 'POST',
      path: '/form',
      sameOrigin: true,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'x-sveltekit-action': 'true',
      },
      body: 'text=enhanced',
    },
    { name: 'page after the posts', path: '/form' },
    {
      name: 'named action',
      method: 'POST',
      path: '/cookies?/reset',
      sameOrigin: true,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: 'visits=3' },
      body: '',
    },
    {
      name: 'cross-site form post (CSRF)',
      method: 'POST',
      path: '/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      body: 'text=x',
    },
    {
      name: 'body over BODY_SIZE_LIMIT (512K)',
      method: 'POST',
      path: '/api/items',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(600 * 1024, 0x20),
      statusOnly: true,
    },
  ];
}

function normalize(name: string, v: string | string[] | undefined): string | string[] | undefined {
  if (v === undefined || Array.isArray(v)) return v;
  // Gale's engine names charset=utf-8 on every text type it serves; sirv on some (the media type must agree).
  if (name === 'content-type') return v.toLowerCase().split(';')[0]?.trim();
  if (name === 'cache-control' || name === 'allow') return v.replace(/,\s*/g, ', ');
  return v;
}

/**
 * What must agree between the two servers (only the status for `statusOnly` cases); `skip` leaves headers out (those
 * one reference adapter does not send at all).
 */
export function summary(a: HttpAnswer, c: Case, skip: readonly string[] = []) {
  const headers: Record<string, unknown> = {};
  for (const h of COMPARED) if (!skip.includes(h)) headers[h] = normalize(h, a.headers[h]);
  for (const h of PRESENT) if (!skip.includes(h)) headers[h] = a.headers[h] !== undefined;
  headers['set-cookie'] = a.headers['set-cookie'] ?? [];
  return c.statusOnly ? { status: a.status } : { status: a.status, headers, body: a.text };
}

/**
 * Sends one case to a server (with the app's origin as Origin when `sameOrigin`: `origin`, the one it was built with,
 * else the server's own URL).
 */
export async function send(s: { url: string; origin?: string }, c: Case): Promise<HttpAnswer> {
  const path = typeof c.path === 'function' ? c.path() : c.path;
  const headers = { ...c.headers, ...(c.sameOrigin ? { origin: s.origin ?? s.url } : {}) };
  return request(s.url + path, { method: c.method, headers, body: c.body });
}

/** One file under /_app/immutable of a build (`buildDir`: the adapter's output, holding client/), as a URL path. */
export function immutableEntry(buildDir: string): string {
  const entry = readdirSync(join(buildDir, 'client', '_app', 'immutable', 'entry')).find((f) => f.endsWith('.js'));
  assert.ok(entry, `no entry file under ${buildDir}/client/_app/immutable/entry`);
  return `/_app/immutable/entry/${entry}`;
}

/**
 * The answers (adapter-gale's, by case name) show what the features are supposed to do, built with SvelteKit `kit`
 * (3 follows adapter-node 6: a relative trailing-slash redirect, files for GET and HEAD only).
 */
export function assertFeatures(get: (name: string) => HttpAnswer, kit: 2 | 3 = 2): void {
  assert.equal(get('static file').headers['content-encoding'], undefined);
  assert.equal(get('static file, brotli').headers['content-encoding'], 'br');
  assert.equal(
    get('immutable asset').headers['cache-control']?.replace(/\s/g, ''),
    'public,max-age=31536000,immutable',
  );
  assert.deepEqual(get('cookies, fifth visit').headers['set-cookie']?.length, 3);
  assert.match(get('cookies, fifth visit').text, /id="visits">5</);
  assert.equal(get('POST JSON').status, 201);
  assert.equal(get('100 KiB streamed through an endpoint').body.length, big.length);
  assert.ok(get('100 KiB streamed through an endpoint').body.equals(big));
  assert.equal(get('streamed endpoint').text, 'line 1\nline 2\nline 3\nline 4\nline 5\n');
  assert.match(get('page after the posts').text, /hello there.*enhanced/s);
  assert.equal(get('cross-site form post (CSRF)').status, 403);
  assert.equal(get('body over BODY_SIZE_LIMIT (512K)').status, 413);
  assert.equal(
    get('prerendered page asked with a trailing slash').headers.location,
    kit === 3 ? '../blog?a=1' : '/blog?a=1',
  );
  const post = get('POST to a static file');
  assert.equal(post.status, kit === 3 ? 405 : 200);
  if (kit === 3) assert.equal(post.headers.allow, 'GET, HEAD');
  assert.match(get('client address').text, /id="address">127\.0\.0\.1</);
  assert.match(get('thrown error').text, /Internal Error/);
  assert.doesNotMatch(get('thrown error').text, /boom/);
}

/**
 * Where adapter-gale and adapter-node differ on purpose (docs/guides/sveltekit.md); `answers` holds both answers to each
 * case already sent.
 */
export async function assertDifferences(
  gale: { url: string },
  node: { url: string },
  answers: Map<string, [HttpAnswer, HttpAnswer]>,
): Promise<void> {
  // A missing file under _app/immutable gets the engine's 404 (adapter-node lets SvelteKit say it).
  const missing = { name: 'missing immutable', path: '/_app/immutable/nope.js' };
  const [a, b] = [await send(gale, missing), await send(node, missing)];
  assert.equal(a.status, 404);
  assert.equal(b.status, 404);
  // A prerendered page with a native mount, asked with a trailing slash, is served (adapter-node redirects).
  const slash = { name: 'slash', path: '/prerendered.html/' };
  const [c, d] = [await send(gale, slash), await send(node, slash)];
  assert.equal(c.status, 200);
  assert.equal(d.status, 308);
  // Chunked vs length-framed SSR bodies: Gale sends a whole body with Content-Length.
  const page = answers.get('SSR page') as [HttpAnswer, HttpAnswer];
  assert.equal(page[0].headers['content-length'], String(page[0].body.length));
}

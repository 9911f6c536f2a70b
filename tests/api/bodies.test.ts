// Body parsers over real sockets: req.json() options and error positions, req.text() charsets,
// req.form() (qs), req.parseBody() by Content-Type, Content-Encoding, limits (413), requireLength
// (411), wrong types (415), webStream(). Every error's status, code and message are asserted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { App } from '../helpers.js';
import { chunked, simpleRequest, T, withApp } from '../helpers.js';

interface Answer {
  status: number;
  body: unknown;
}

/** Routes whose errors come back as { code, message } with the error's status. */
function routes(app: App): void {
  app.onError((err, _req, res) => {
    const e = err as { status?: number; code?: string; message: string };
    res.status(e.status ?? 500).json({ code: e.code, message: e.message });
  });
  app.post('/json', async (req) => ({ value: await req.json() }));
  app.post('/json-loose', async (req) => ({ value: await req.json({ strict: false }) }));
  app.post('/json-small', async (req) => ({ value: await req.json({ limit: 16 }) }));
  app.post('/json-typed', async (req) => ({ value: await req.json({ strictType: true }) }));
  app.post('/json-reviver', async (req) => ({
    value: await req.json({ reviver: (k, v) => (k === 'when' ? `date:${v}` : v) }),
  }));
  app.post('/text', async (req) => ({ value: await req.text() }));
  app.post('/text-small', async (req) => ({ value: await req.text({ limit: '1kb' }) }));
  app.post('/form', async (req) => ({ value: await req.form() }));
  app.post('/form-extended', async (req) => ({ value: await req.form({ extended: true }) }));
  app.post('/form-limits', async (req) => ({
    value: await req.form({ extended: true, depth: 2, parameterLimit: 3 }),
  }));
  app.post('/any', async (req) => {
    const first = req.parseBody();
    const value = await first;
    return {
      same: req.parseBody() === first,
      type: value === undefined ? 'undefined' : Buffer.isBuffer(value) ? 'buffer' : typeof value,
      value: Buffer.isBuffer(value) ? value.toString('latin1') : (value ?? null),
    };
  });
  app.post('/web', async (req) => {
    const chunks: Uint8Array[] = [];
    const reader = req.webStream().getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return { length: Buffer.concat(chunks).length, text: Buffer.concat(chunks).toString('utf8') };
  });
  app.put('/length', (req) => ({ length: req.requireLength() }));
}

async function post(url: string, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const r = await fetch(`${url}${path}`, { method: 'POST', body: body as unknown as BodyInit, headers });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: r.status, body: parsed } as Answer;
}

const JSON_CT = { 'content-type': 'application/json' };
const FORM_CT = { 'content-type': 'application/x-www-form-urlencoded' };

function err(status: number, code: string, message: string): Answer {
  return { status, body: { code, message } };
}

// ---------------------------------------------------------------------------------------------
// JSON

test(
  'json(): objects and arrays parse; strict (default) rejects a top-level primitive with its position',
  T,
  async (t) => {
    const { url } = await withApp(t, routes);
    assert.deepEqual(await post(url, '/json', ' {"a":[1,{"b":null}]} ', JSON_CT), {
      status: 200,
      body: { value: { a: [1, { b: null }] } },
    });
    assert.deepEqual(
      await post(url, '/json', '  42', JSON_CT),
      err(
        400,
        'GALE_ERR_INVALID_JSON',
        'Request body must be a JSON object or array (json.strict), but found "4" at position 2 (line 1, column 3)',
      ),
    );
    assert.deepEqual(await post(url, '/json-loose', '"just a string"', JSON_CT), {
      status: 200,
      body: { value: 'just a string' },
    });
    assert.deepEqual(await post(url, '/json-loose', 'null', JSON_CT), { status: 200, body: { value: null } });
  },
);

test('json(): malformed JSON → 400 naming what was expected, what was found, and where', T, async (t) => {
  const { url } = await withApp(t, routes);
  const cases: Array<[string, string]> = [
    ['{"a":}', 'expected a JSON value but found "}" at position 5 (line 1, column 6)'],
    ['{"a":1,}', 'expected a double-quoted property name but found "}" at position 7 (line 1, column 8)'],
    [
      '[1,2',
      "expected ',' or ']' after an array element but found the end of the body at position 4 (line 1, column 5)",
    ],
    ['{"a" 1}', 'expected \':\' after a property name but found "1" at position 5 (line 1, column 6)'],
    ['{"a":"x', "expected the closing '\"' of a string but found the end of the body at position 7 (line 1, column 8)"],
    ['{"a":1} x', 'expected the end of the document but found "x" at position 8 (line 1, column 9)'],
    ['{\n  "a": tru\n}', 'expected \'true\' but found "\\n" at position 12 (line 2, column 11)'],
    ['[-]', 'expected a digit but found "]" at position 2 (line 1, column 3)'],
    [
      '["\\x"]',
      'expected a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) but found "x" at position 3 (line 1, column 4)',
    ],
    ['{"é":💥}', 'expected a JSON value but found "💥" at position 5 (line 1, column 6)'],
  ];
  for (const [body, detail] of cases) {
    assert.deepEqual(
      await post(url, '/json', body, JSON_CT),
      err(400, 'GALE_ERR_INVALID_JSON', `Request body is not valid JSON: ${detail}`),
      body,
    );
  }
  assert.deepEqual(
    await post(url, '/json', '', JSON_CT),
    err(400, 'GALE_ERR_INVALID_JSON', 'Request body is empty; send a JSON document'),
  );
});

test('json(): without an error handler the 400 answer is the message as text/plain', T, async (t) => {
  const { url } = await withApp(t, (app) => app.post('/j', async (req) => req.json()));
  const r = await fetch(`${url}/j`, { method: 'POST', body: '[1,]', headers: JSON_CT });
  assert.equal(r.status, 400);
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(
    await r.text(),
    'Request body is not valid JSON: expected a JSON value but found "]" at position 3 (line 1, column 4)',
  );
});

test('json(): a deeply nested malformed document is located without overflowing the stack', T, async (t) => {
  const { url } = await withApp(t, routes);
  const body = `${'['.repeat(100_000)}x`;
  assert.deepEqual(
    await post(url, '/json', body, JSON_CT),
    err(
      400,
      'GALE_ERR_INVALID_JSON',
      'Request body is not valid JSON: expected a JSON value but found "x" at position 100000 (line 1, column 100001)',
    ),
  );
});

test('json(): reviver; utf-16le charset; a BOM is ignored', T, async (t) => {
  const { url } = await withApp(t, routes);
  assert.deepEqual(await post(url, '/json-reviver', '{"when":1,"n":2}', JSON_CT), {
    status: 200,
    body: { value: { when: 'date:1', n: 2 } },
  });
  const utf16 = Buffer.from('\ufeff{"é":"ü"}', 'utf16le');
  assert.deepEqual(await post(url, '/json', utf16, { 'content-type': 'application/json; charset=utf-16le' }), {
    status: 200,
    body: { value: { é: 'ü' } },
  });
  assert.deepEqual(await post(url, '/json', Buffer.from('\ufeff[1]'), JSON_CT), { status: 200, body: { value: [1] } });
  assert.deepEqual(
    await post(url, '/json', '[1]', { 'content-type': 'application/json; charset=iso-8859-1' }),
    err(415, 'GALE_ERR_UNSUPPORTED_CHARSET', 'Unsupported charset "iso-8859-1" for JSON; send utf-8'),
  );
});

test('json(): a limit under bodyLimit → 413 naming it, from Content-Length or from a chunked body', T, async (t) => {
  const { url, port } = await withApp(t, routes);
  assert.deepEqual(await post(url, '/json-small', '[1,2,3,4,5,6,7]', JSON_CT), {
    status: 200,
    body: { value: [1, 2, 3, 4, 5, 6, 7] },
  });
  assert.deepEqual(
    await post(url, '/json-small', '[1,2,3,4,5,6,7,8]', JSON_CT),
    err(413, 'GALE_ERR_BODY_TOO_LARGE', 'Request body is 17 bytes, larger than the json.limit option (16 bytes)'),
  );
  const res = await simpleRequest(port, {
    method: 'POST',
    path: '/json-small',
    headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    body: chunked(['[1,2,3,4,', '5,6,7,8,9]']),
  });
  assert.equal(res.status, 413);
  assert.deepEqual(JSON.parse(res.text), {
    code: 'GALE_ERR_BODY_TOO_LARGE',
    message: 'Request body is 19 bytes, larger than the json.limit option (16 bytes)',
  });
});

test('json limit from the app option (string form)', T, async (t) => {
  const { url } = await withApp(t, routes, { json: { limit: '10b' } });
  assert.deepEqual(
    await post(url, '/json', '[1,2,3,4,5]', JSON_CT),
    err(413, 'GALE_ERR_BODY_TOO_LARGE', 'Request body is 11 bytes, larger than the json.limit option (10 bytes)'),
  );
});

test('json.strictType: a non-JSON Content-Type → 415; application/json and +json types pass', T, async (t) => {
  const { url } = await withApp(t, routes);
  assert.deepEqual(
    await post(url, '/json-typed', '[1]', { 'content-type': 'text/plain' }),
    err(
      415,
      'GALE_ERR_UNSUPPORTED_MEDIA_TYPE',
      'req.json() (json.strictType) reads application/json bodies; this request\'s Content-Type is "text/plain"',
    ),
  );
  // fetch sends text/plain for a string body; a Uint8Array body has no Content-Type
  assert.deepEqual(
    await post(url, '/json-typed', new TextEncoder().encode('[1]')),
    err(
      415,
      'GALE_ERR_UNSUPPORTED_MEDIA_TYPE',
      "req.json() (json.strictType) reads application/json bodies; this request's Content-Type is missing",
    ),
  );
  for (const ct of ['application/json; charset=utf-8', 'application/vnd.api+json', 'APPLICATION/JSON']) {
    assert.deepEqual(await post(url, '/json-typed', '[1]', { 'content-type': ct }), {
      status: 200,
      body: { value: [1] },
    });
  }
  // without strictType any Content-Type is read as JSON
  assert.deepEqual(await post(url, '/json', '[1]', { 'content-type': 'text/plain' }), {
    status: 200,
    body: { value: [1] },
  });
});

test('json.strict: false and strictType: true as app options', T, async (t) => {
  const { url } = await withApp(t, routes, { json: { strict: false, strictType: true } });
  assert.deepEqual(await post(url, '/json', '7', JSON_CT), { status: 200, body: { value: 7 } });
  assert.equal((await post(url, '/json', '7', { 'content-type': 'text/plain' })).status, 415);
});

// ---------------------------------------------------------------------------------------------
// text

test('text(): charset from the Content-Type (utf-8, iso-8859-1, utf-16le, others); unknown → 415', T, async (t) => {
  const { url } = await withApp(t, routes);
  const s = 'café – ü';
  assert.deepEqual(await post(url, '/text', s, { 'content-type': 'text/plain; charset=utf-8' }), {
    status: 200,
    body: { value: s },
  });
  assert.deepEqual(
    await post(url, '/text', Buffer.from('café', 'latin1'), { 'content-type': 'text/plain; charset=ISO-8859-1' }),
    { status: 200, body: { value: 'café' } },
  );
  assert.deepEqual(
    await post(url, '/text', Buffer.from('café', 'latin1'), { 'content-type': 'text/plain; charset=latin1' }),
    {
      status: 200,
      body: { value: 'café' },
    },
  );
  assert.deepEqual(
    await post(url, '/text', Buffer.from(s, 'utf16le'), { 'content-type': 'text/plain; charset="utf-16le"' }),
    {
      status: 200,
      body: { value: s },
    },
  );
  // other WHATWG encodings go through TextDecoder: 0xB3 is ł in iso-8859-2, 82 A0 is あ in Shift_JIS
  assert.deepEqual(
    await post(url, '/text', Buffer.from([0xb3, 0x41]), { 'content-type': 'text/plain; charset=iso-8859-2' }),
    {
      status: 200,
      body: { value: 'łA' },
    },
  );
  assert.deepEqual(
    await post(url, '/text', Buffer.from([0x82, 0xa0]), { 'content-type': 'text/plain; charset=Shift_JIS' }),
    {
      status: 200,
      body: { value: 'あ' },
    },
  );
  assert.deepEqual(
    await post(url, '/text', 'x', { 'content-type': 'text/plain; charset=x-klingon' }),
    err(
      415,
      'GALE_ERR_UNSUPPORTED_CHARSET',
      'Unsupported charset "x-klingon" in Content-Type; send utf-8, iso-8859-1, utf-16le or another WHATWG encoding',
    ),
  );
  // no charset: utf-8, BOM dropped
  assert.deepEqual(await post(url, '/text', Buffer.from('\ufeffhé')), { status: 200, body: { value: 'hé' } });
});

test('text(): defaultCharset option; limit → 413', T, async (t) => {
  const { url } = await withApp(t, routes, { text: { defaultCharset: 'iso-8859-1' } });
  assert.deepEqual(await post(url, '/text', Buffer.from('é', 'latin1'), { 'content-type': 'text/plain' }), {
    status: 200,
    body: { value: 'é' },
  });
  assert.deepEqual(
    await post(url, '/text-small', 'x'.repeat(1025), { 'content-type': 'text/plain' }),
    err(413, 'GALE_ERR_BODY_TOO_LARGE', 'Request body is 1025 bytes, larger than the text.limit option (1024 bytes)'),
  );
});

// ---------------------------------------------------------------------------------------------
// urlencoded

test('form(): flat keys by default, nested with extended; repeated keys become arrays; + is a space', T, async (t) => {
  const { url } = await withApp(t, routes);
  const body = 'name=Ada+Lovelace&tag=a&tag=b&user[age]=36&e=%C3%A9';
  assert.deepEqual(await post(url, '/form', body, FORM_CT), {
    status: 200,
    body: { value: { name: 'Ada Lovelace', tag: ['a', 'b'], 'user[age]': '36', e: 'é' } },
  });
  assert.deepEqual(await post(url, '/form-extended', body, FORM_CT), {
    status: 200,
    body: { value: { name: 'Ada Lovelace', tag: ['a', 'b'], user: { age: '36' }, e: 'é' } },
  });
  assert.deepEqual(await post(url, '/form', '', FORM_CT), { status: 200, body: { value: {} } });
  assert.deepEqual(
    await post(url, '/form', 'a=%E9', { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' }),
    {
      status: 200,
      body: { value: { a: 'é' } },
    },
  );
});

test('form(): extended as the app option', T, async (t) => {
  const { url } = await withApp(t, routes, { urlencoded: { extended: true } });
  assert.deepEqual(await post(url, '/form', 'a[b][c]=1&a[d][]=2', FORM_CT), {
    status: 200,
    body: { value: { a: { b: { c: '1' }, d: ['2'] } } },
  });
});

test('form(): malformed percent-encoding or invalid UTF-8 → 400 with the position', T, async (t) => {
  const { url } = await withApp(t, routes);
  assert.deepEqual(
    await post(url, '/form', 'a=1&b=%ZZ', FORM_CT),
    err(
      400,
      'GALE_ERR_INVALID_URLENCODED',
      'Form body is not valid urlencoded data: malformed percent-encoding "%ZZ" at position 6',
    ),
  );
  assert.deepEqual(
    await post(url, '/form', 'a=50%', FORM_CT),
    err(
      400,
      'GALE_ERR_INVALID_URLENCODED',
      'Form body is not valid urlencoded data: malformed percent-encoding "%" at position 4',
    ),
  );
  assert.deepEqual(
    await post(url, '/form', 'ok=%C3%A9&bad=%E9t%C3', FORM_CT),
    err(
      400,
      'GALE_ERR_INVALID_URLENCODED',
      'Form body is not valid urlencoded data: the percent-encoded bytes "%E9" at position 14 are not valid UTF-8',
    ),
  );
});

test('form(): parameterLimit and depth → 413 naming the option', T, async (t) => {
  const { url } = await withApp(t, routes);
  assert.deepEqual(await post(url, '/form-limits', 'a=1&b=2&c[d][e]=3', FORM_CT), {
    status: 200,
    body: { value: { a: '1', b: '2', c: { d: { e: '3' } } } },
  });
  assert.deepEqual(
    await post(url, '/form-limits', 'a=1&b=2&c=3&d=4', FORM_CT),
    err(413, 'GALE_ERR_FORM_LIMIT', 'Form body has more than 3 parameters (the urlencoded.parameterLimit option)'),
  );
  assert.deepEqual(
    await post(url, '/form-limits', 'a[b][c][d]=1', FORM_CT),
    err(413, 'GALE_ERR_FORM_LIMIT', 'Form body nests deeper than 2 levels (the urlencoded.depth option)'),
  );
});

test('form(): another Content-Type or charset → 415', T, async (t) => {
  const { url } = await withApp(t, routes);
  assert.deepEqual(
    await post(url, '/form', 'a=1', { 'content-type': 'text/plain' }),
    err(
      415,
      'GALE_ERR_UNSUPPORTED_MEDIA_TYPE',
      'req.form() reads application/x-www-form-urlencoded bodies; this request\'s Content-Type is "text/plain"',
    ),
  );
  assert.deepEqual(
    await post(url, '/form', 'a=1', { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16le' }),
    err(415, 'GALE_ERR_UNSUPPORTED_CHARSET', 'Unsupported charset "utf-16le" for a form; send utf-8 or iso-8859-1'),
  );
});

// ---------------------------------------------------------------------------------------------
// parseBody

test('parseBody(): by Content-Type, cached, undefined without a body', T, async (t) => {
  const { url, port } = await withApp(t, routes);
  assert.deepEqual(await post(url, '/any', '{"a":1}', JSON_CT), {
    status: 200,
    body: { same: true, type: 'object', value: { a: 1 } },
  });
  assert.deepEqual(await post(url, '/any', '{"a":1}', { 'content-type': 'application/merge-patch+json' }), {
    status: 200,
    body: { same: true, type: 'object', value: { a: 1 } },
  });
  assert.deepEqual(await post(url, '/any', 'a=1&a=2', FORM_CT), {
    status: 200,
    body: { same: true, type: 'object', value: { a: ['1', '2'] } },
  });
  assert.deepEqual(await post(url, '/any', 'hello', { 'content-type': 'text/markdown' }), {
    status: 200,
    body: { same: true, type: 'string', value: 'hello' },
  });
  assert.deepEqual(await post(url, '/any', Buffer.from([0xff, 0x00]), { 'content-type': 'application/octet-stream' }), {
    status: 200,
    body: { same: true, type: 'buffer', value: '\u00ff\u0000' },
  });
  // an empty JSON body is {} (as body-parser); no body at all is undefined
  assert.deepEqual(await post(url, '/any', '', JSON_CT), {
    status: 200,
    body: { same: true, type: 'object', value: {} },
  });
  const none = await simpleRequest(port, {
    method: 'POST',
    path: '/any',
    headers: { 'Content-Type': 'application/json' },
  });
  assert.deepEqual(JSON.parse(none.text), { same: true, type: 'undefined', value: null });
  // a body without a Content-Type is not parsed (as body-parser): read it with arrayBuffer()
  assert.deepEqual(await post(url, '/any', new TextEncoder().encode('[1]')), {
    status: 200,
    body: { same: true, type: 'undefined', value: null },
  });
  // errors are the readers' errors
  assert.deepEqual(
    await post(url, '/any', '{', JSON_CT),
    err(
      400,
      'GALE_ERR_INVALID_JSON',
      'Request body is not valid JSON: expected a double-quoted property name but found the end of the body at position 1 (line 1, column 2)',
    ),
  );
});

// ---------------------------------------------------------------------------------------------
// Content-Encoding, Content-Length, streams

test(
  'Content-Encoding: gzip bodies are inflated; over the limit once inflated → 413; unknown → 415; corrupt → 400',
  T,
  async (t) => {
    const { url } = await withApp(t, routes);
    assert.deepEqual(
      await post(url, '/json', gzipSync('{"zipped":true}'), { ...JSON_CT, 'content-encoding': 'gzip' }),
      {
        status: 200,
        body: { value: { zipped: true } },
      },
    );
    const bomb = gzipSync(`[${'0,'.repeat(5000)}0]`);
    assert.ok(bomb.length < 100);
    assert.deepEqual(
      await post(url, '/json-small', bomb, { ...JSON_CT, 'content-encoding': 'gzip' }),
      err(
        413,
        'GALE_ERR_BODY_TOO_LARGE',
        'The decompressed request body is larger than the json.limit option (16 bytes)',
      ),
    );
    assert.deepEqual(
      await post(url, '/json', '[1]', { ...JSON_CT, 'content-encoding': 'compress' }),
      err(
        415,
        'GALE_ERR_CONTENT_ENCODING',
        'Unsupported Content-Encoding "compress"; send gzip, deflate, br or identity',
      ),
    );
    const corrupt = await post(url, '/json', 'not gzip', { ...JSON_CT, 'content-encoding': 'gzip' });
    assert.equal(corrupt.status, 400);
    assert.deepEqual(corrupt.body, {
      code: 'GALE_ERR_CONTENT_ENCODING',
      message: 'Request body could not be decompressed (gzip): incorrect header check',
    });
  },
);

test('requireLength option: a chunked body → 411; with Content-Length it is read', T, async (t) => {
  const { port, url } = await withApp(t, routes, { requireLength: true });
  const res = await simpleRequest(port, {
    method: 'POST',
    path: '/json',
    headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    body: chunked(['[1]']),
  });
  assert.equal(res.status, 411);
  assert.deepEqual(JSON.parse(res.text), {
    code: 'GALE_ERR_LENGTH_REQUIRED',
    message: 'This endpoint needs a Content-Length header; send the body with a known length',
  });
  assert.deepEqual(await post(url, '/json', '[1]', JSON_CT), { status: 200, body: { value: [1] } });
});

test('req.requireLength(): the length, or 411 without Content-Length', T, async (t) => {
  const { port } = await withApp(t, routes);
  const ok = await simpleRequest(port, { method: 'PUT', path: '/length', body: 'abcde' });
  assert.deepEqual(JSON.parse(ok.text), { length: 5 });
  const chunkedRes = await simpleRequest(port, {
    method: 'PUT',
    path: '/length',
    headers: { 'Transfer-Encoding': 'chunked' },
    body: chunked(['abc']),
  });
  assert.equal(chunkedRes.status, 411);
  assert.deepEqual(JSON.parse(chunkedRes.text), {
    code: 'GALE_ERR_LENGTH_REQUIRED',
    message: 'This endpoint needs a Content-Length header; send the body with a known length',
  });
});

test('webStream(): a Web ReadableStream of the whole body', T, async (t) => {
  const { url, port } = await withApp(t, routes);
  const big = 'x'.repeat(300_000);
  assert.deepEqual(await post(url, '/web', big), { status: 200, body: { length: 300_000, text: big } });
  const res = await simpleRequest(port, {
    method: 'POST',
    path: '/web',
    headers: { 'Transfer-Encoding': 'chunked' },
    body: chunked(['ab', 'cd', 'é']),
  });
  assert.deepEqual(JSON.parse(res.text), { length: 6, text: 'abcdé' });
});

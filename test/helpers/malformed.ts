import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { api, newIp, type ApiResponse } from './http.ts';

/** One request body that a careless client or an attacker might send. */
export type MalformedBody = { name: string; rawBody?: string; headers?: Record<string, string> };

const json = (name: string, value: unknown, headers?: Record<string, string>): MalformedBody => ({
  name,
  rawBody: JSON.stringify(value),
  headers,
});
const nested = (depth: number): unknown => (depth === 0 ? 'deep' : { a: nested(depth - 1) });
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/**
 * The table: broken JSON, bodies of the wrong shape, wrong types for each of `fields`, and odd
 * but well-formed values. `fields` are the body fields of the endpoint under test. String values
 * carry a random tag, so running the table twice never repeats a login attempt (throttle).
 */
export function malformedBodies(fields: string[]): MalformedBody[] {
  const tag = randomBytes(3).toString('hex');
  const all = (value: unknown) => Object.fromEntries(fields.map((f) => [f, value]));
  const cases: MalformedBody[] = [
    { name: 'no body at all' },
    { name: 'empty JSON body', rawBody: '' },
    { name: 'plain text', rawBody: `hello ${tag}` },
    { name: 'truncated JSON', rawBody: '{"email": ' },
    { name: 'JSON with NaN', rawBody: '{"a": NaN}' },
    { name: 'JSON with a byte order mark', rawBody: '\ufeff{}' },
    { name: 'JSON with a lone surrogate', rawBody: `{"${fields[0] ?? 'a'}": "\\ud800"}` },
    json('null', null),
    json('true', true),
    json('a number', 42),
    json('a string', `text ${tag}`),
    json('an empty array', []),
    json('an array of objects', [all('x')]),
    json('an empty object', {}),
    json('only unknown fields', { unexpected: 1, is_admin: true, role: 'admin' }),
    json('deeply nested objects', nested(500)),
    { name: 'deeply nested arrays', rawBody: deepArray(2000) },
    { name: '__proto__ key', rawBody: `{"__proto__": {"admin": true}, ${fields.map((f) => `"${f}": {"__proto__": 1}`).concat('"x": 0').join(', ')}}` },
    json('constructor.prototype key', { constructor: { prototype: { polluted: true } }, ...all({ constructor: 1 }) }),
    json('query operators as values', all({ $gt: '' })),
    json('huge strings', all(`${tag}${'x'.repeat(15_000)}`)),
    json('unicode and control characters', all(`𝕏😀\u0000\u202e\u0007 ${tag}`)),
    json('only whitespace', all('   \t\n')),
    json('empty strings', all('')),
    json('SQL-looking strings', all(`' OR 1=1; DROP TABLE users; -- ${tag}`)),
    { name: 'JSON sent as text/plain', rawBody: JSON.stringify(all('x')), headers: { 'content-type': 'text/plain' } },
    { name: 'a form body', rawBody: fields.map((f) => `${f}=x`).join('&'), headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    { name: 'an unsupported charset', rawBody: '{}', headers: { 'content-type': 'application/json; charset=utf-16' } },
    { name: 'a gzip body that is not gzip', rawBody: '{}', headers: { 'content-encoding': 'gzip' } },
    { name: 'an unknown content encoding', rawBody: '{}', headers: { 'content-encoding': 'br2' } },
  ];
  for (const field of fields) {
    for (const [kind, value] of [
      ['a number', 12345],
      ['a boolean', true],
      ['null', null],
      ['an array', ['x']],
      ['an object', { value: 'x' }],
    ] as const) {
      cases.push(json(`${field} as ${kind}`, { ...all(`valid-looking-${tag}`), [field]: value }));
    }
  }
  return cases;
}

/** Random bodies for `fields`: any text, any JSON value, or objects mixing those fields with junk. */
export function malformedBodyArbitrary(fields: string[]): fc.Arbitrary<MalformedBody> {
  const keys = fc.constantFrom(...fields, '__proto__', 'constructor', 'extra');
  return fc.oneof(
    fc.string().map((s) => ({ name: 'random text', rawBody: s })),
    fc.jsonValue().map((v) => json('random JSON value', v)),
    fc.dictionary(keys, fc.jsonValue()).map((o) => json('random object', o)),
  );
}

export type No500Options = {
  /** Body fields of the endpoint: they get wrong-typed values. */
  fields?: string[];
  /** A bearer token, or a function giving a fresh one (called once per 20 requests, to stay under per-user limits). */
  token?: string | (() => Promise<string>);
  /** Whether a 2xx answer is acceptable (endpoints where an odd body can still be valid). */
  allowSuccess?: boolean;
  /** Random bodies sent after the table. */
  runs?: number;
};

/** Sends every body of the table, then random ones, and checks each answer is a 4xx envelope. */
export async function expectNo500(method: string, path: string, o: No500Options = {}): Promise<void> {
  const fields = o.fields ?? [];
  let sent = 0;
  let token: string | undefined;
  const send = async (c: MalformedBody) => {
    if (typeof o.token === 'function' && sent++ % 20 === 0) token = await o.token();
    if (typeof o.token === 'string') token = o.token;
    const res = await api(method, path, { rawBody: c.rawBody, headers: c.headers, token, ip: newIp() });
    assertEnvelope(res, c, o.allowSuccess ?? false);
  };
  for (const c of malformedBodies(fields)) await send(c);
  await fc.assert(fc.asyncProperty(malformedBodyArbitrary(fields), send), { numRuns: o.runs ?? 25 });
}

function assertEnvelope(res: ApiResponse, c: MalformedBody, allowSuccess: boolean): void {
  const what = `${c.name} → ${res.status} ${res.text.slice(0, 200)}`;
  assert.ok(res.status < 500, `server error for ${what}`);
  // The general rate limit would hide what the endpoint does with the body.
  assert.notEqual(res.body?.error?.code, 'RATE_LIMIT_EXCEEDED', `rate limited: ${what}`);
  if (res.status < 400) {
    assert.ok(allowSuccess, `accepted ${what}`);
    if (res.status !== 204) assert.equal(res.body?.success, true, `not an envelope: ${what}`);
    return;
  }
  assert.equal(res.body?.success, false, `not an error envelope: ${what}`);
  assert.equal(typeof res.body.error?.code, 'string', `no error code: ${what}`);
  assert.equal(typeof res.body.error?.message, 'string', `no error message: ${what}`);
}

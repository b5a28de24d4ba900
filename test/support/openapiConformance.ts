import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { api, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

/** The response headers the service may send that a client reads: each must be documented where it is sent. */
export const WATCHED_HEADERS = ['Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Location'];

export type Operation = { id: string; method: string; path: string; op: any };

export type CallOptions = {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  token?: string;
  ip?: string;
  headers?: Record<string, string>;
  /** The status the caller means to drive (a mismatch is a broken fixture, said as such). */
  expect?: number;
  /** An answer that may not end (an NDJSON stream): read its first line, then hang up. */
  stream?: boolean;
};

/**
 * The OpenAPI document as a contract: every answer the service gives to a call made through it
 * is checked against the operation it was made for — a documented status, the documented
 * headers (and no watched header it leaves out), a body of the documented media type that its
 * JSON Schema (2020-12, ajv) accepts.
 */
export class Conformance {
  readonly operations = new Map<string, Operation>();
  /** operationId → the statuses its calls got. */
  readonly driven = new Map<string, Set<number>>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly prefix: string;

  constructor(readonly doc: any) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: doc.components });
    this.prefix = new URL(doc.servers[0].url).pathname.replace(/\/$/, '');
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        assert.ok(op.operationId, `${method} ${path} has no operationId`);
        assert.ok(!this.operations.has(op.operationId), `operationId ${op.operationId} is used twice`);
        this.operations.set(op.operationId, { id: op.operationId, method, path, op });
      }
    }
  }

  /** The URL of an operation with its parameters filled in, under the document's server. */
  url(id: string, params: Record<string, string> = {}, query: Record<string, string> = {}): string {
    const { path } = this.operation(id);
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      assert.ok(params[name] !== undefined, `${id}: the path parameter ${name}`);
      return encodeURIComponent(params[name]);
    });
    const search = new URLSearchParams(query).toString();
    return `${this.prefix}${filled}${search ? `?${search}` : ''}`;
  }

  operation(id: string): Operation {
    const o = this.operations.get(id);
    assert.ok(o, `no operation ${id} in the document`);
    return o;
  }

  /** Calls an operation and checks the answer against the document; returns it. */
  async call(id: string, o: CallOptions = {}): Promise<ApiResponse> {
    const { method } = this.operation(id);
    const res = o.stream ? await firstLine(this.url(id, o.params, o.query), o) : await api(method.toUpperCase(), this.url(id, o.params, o.query), {
      body: o.body,
      rawBody: o.rawBody,
      token: o.token,
      ip: o.ip,
      headers: o.headers,
    });
    if (o.expect !== undefined) assert.equal(res.status, o.expect, `${id}: fixture expected ${o.expect}, got ${res.text.slice(0, 300)}`);
    this.check(id, res);
    return res;
  }

  /** Checks an answer against the operation's documented responses; throws with every problem. */
  check(id: string, res: ApiResponse): void {
    const problems = this.problems(id, res);
    assert.deepEqual(problems, [], `${id} answered ${res.status} ${res.text.slice(0, 400)}`);
    if (!this.driven.has(id)) this.driven.set(id, new Set());
    this.driven.get(id)!.add(res.status);
  }

  problems(id: string, res: ApiResponse): string[] {
    const { op } = this.operation(id);
    const response = this.resolve(op.responses?.[String(res.status)]);
    if (!response) return [`status ${res.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`];
    const problems: string[] = [];
    const documented = Object.fromEntries(Object.entries<any>(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), this.resolve(h)]));
    for (const name of WATCHED_HEADERS) {
      if (res.headers.has(name) && !documented[name.toLowerCase()]) problems.push(`header ${name} is sent but not documented`);
    }
    for (const [name, header] of Object.entries<any>(documented)) {
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is required but absent`);
        continue;
      }
      const typed = header.schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      const validate = this.ajv.compile(header.schema ?? {});
      if (!validate(typed)) problems.push(`header ${name}: ${value} ${this.ajv.errorsText(validate.errors)}`);
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    if (!response.content) {
      if (res.text !== '') problems.push(`a body where none is documented: ${res.text.slice(0, 100)}`);
      return problems;
    }
    const media = response.content[type];
    if (!media) return [...problems, `content type ${type || '(none)'} is not documented (${Object.keys(response.content).join(', ')})`];
    if (type !== 'application/json') {
      if (media.schema?.type === 'string' && typeof res.text !== 'string') problems.push('not text');
      return problems;
    }
    const validate = this.validator(`${id} ${res.status}`, media.schema);
    if (!validate(res.body)) {
      problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
    }
    return problems;
  }

  /** What `schema` (of this document) finds wrong with `value`. */
  validate(key: string, schema: unknown, value: unknown): string[] {
    const validate = this.validator(key, schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** Operations of the document no call reached. */
  undriven(): string[] {
    return [...this.operations.keys()].filter((id) => !this.driven.has(id));
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      // A schema's `#/components/…` points into the document: made absolute, it resolves there.
      const absolute = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
      v = this.ajv.compile(absolute);
      this.compiled.set(key, v);
    }
    return v;
  }

  private resolve(o: any): any {
    if (!o?.$ref) return o;
    const path = (o.$ref as string).replace(/^#\//, '').split('/');
    return this.resolve(path.reduce((at: any, key) => at?.[key], this.doc));
  }
}

/** A GET whose answer may stream for ever: its status, headers and text up to the first line break. */
async function firstLine(path: string, o: CallOptions): Promise<ApiResponse> {
  const { service } = await testService();
  const abort = new AbortController();
  const headers: Record<string, string> = { 'x-forwarded-for': o.ip ?? '10.255.0.1', ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const res = await fetch(`${service.url}${path}`, { headers, signal: abort.signal });
  let text = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.includes('\n')) break;
  }
  abort.abort();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

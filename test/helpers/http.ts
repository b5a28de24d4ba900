import { testService } from './service.ts';

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T; text: string };

export type ApiOptions = {
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
  /** The client address the service sees (tests run with TRUST_PROXY=true). */
  ip?: string;
};

let nextIp = 1;
/** A client address of its own, so one test's rate-limit counters never touch another's. */
export function newIp(): string {
  const n = nextIp++;
  return `10.${(process.pid >> 8) & 255}.${(n >> 8) & 255}.${n & 255}`;
}
const defaultIp = newIp();

export async function api<T = any>(method: string, path: string, o: ApiOptions = {}): Promise<ApiResponse<T>> {
  const { service } = await testService();
  const headers: Record<string, string> = { 'x-forwarded-for': o.ip ?? defaultIp, ...o.headers };
  let body: string | undefined = o.rawBody;
  if (body === undefined && o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const res = await fetch(`${service.url}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

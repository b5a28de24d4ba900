// The REST API as the app calls it: JSON in the envelope, the access token in `Authorization`,
// errors as ApiError with the API's code, message and details.

import { session } from './session.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, string[]>,
  ) {
    super(message);
  }

  /** The message and each field's complaints, as lines a person can read. */
  lines(): string[] {
    const fields = Object.entries(this.details ?? {}).flatMap(([field, msgs]) =>
      ([] as unknown[]).concat(msgs).map((m) => `${field.replaceAll('_', ' ')}: ${String(m)}`),
    );
    return [this.message, ...fields];
  }
}

export type Pagination = { page: number; limit: number; total: number; total_pages: number; hasNext: boolean; hasPrev: boolean };
export type Answer<T> = { status: number; data: T; pagination?: Pagination; headers: Headers };

type Options = { body?: unknown; auth?: boolean };

/** One call; a refused token is refreshed once and the call repeated. */
export async function request<T = unknown>(method: string, path: string, o: Options = {}): Promise<Answer<T>> {
  const send = async (token: string | undefined) =>
    fetch(`/v1${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        ...(o.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
    });
  const auth = o.auth ?? true;
  let token = auth ? await session.accessToken() : undefined;
  let res = await send(token);
  if (res.status === 401 && token) {
    token = await session.renew();
    if (token) res = await send(token);
  }
  const body = res.status === 204 ? undefined : await res.json().catch(() => undefined);
  if (!res.ok) {
    const e = body?.error ?? {};
    throw new ApiError(res.status, e.code ?? 'HTTP_' + res.status, e.message ?? `The request failed (${res.status})`, e.details);
  }
  return { status: res.status, data: body?.data as T, pagination: body?.pagination, headers: res.headers };
}

export const get = async <T>(path: string, o?: Options) => (await request<T>('GET', path, o)).data;
export const post = async <T>(path: string, body?: unknown, o?: Options) => (await request<T>('POST', path, { ...o, body })).data;
export const del = async (path: string) => void (await request('DELETE', path));

/** A file the API serves outside the envelope (a PGN), saved under `name`. */
export async function download(path: string, name: string): Promise<void> {
  const token = await session.accessToken();
  const res = await fetch(`/v1${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!res.ok) {
    const e = (await res.json().catch(() => undefined))?.error ?? {};
    throw new ApiError(res.status, e.code ?? 'HTTP_' + res.status, e.message ?? `The download failed (${res.status})`);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The user with this exact username (case-insensitive), through the prefix search. */
export async function findUser(username: string): Promise<{ id: string; username: string; rating: number } | undefined> {
  const q = username.trim();
  if (!q) return undefined;
  const found = await get<{ id: string; username: string; rating: number }[]>(`/users/search?q=${encodeURIComponent(q)}&limit=100`);
  return found.find((u) => u.username.toLowerCase() === q.toLowerCase());
}

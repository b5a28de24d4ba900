// The REST API as the app calls it: JSON in the envelope, the access token in `Authorization`,
// errors as ApiError with the API's code, message and details.

import { session } from './session.ts';
import type { Pagination, PublicUser } from './types/api.ts';

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

/** What the API's codes mean to a person (the API's own wording is for programmers). */
const PLAIN: Record<string, string> = {
  PLAYER_BUSY: 'You are already playing or seeking a game. Finish or cancel it first.',
  USER_NOT_FOUND: 'There is no player with that name.',
  RATE_LIMIT_EXCEEDED: 'That was too many requests in a minute. Wait a little and try again.',
  TOO_MANY_ATTEMPTS: 'Too many tries. Wait a few minutes and try again.',
  INVALID_CREDENTIALS: 'The email, username or password is wrong.',
  SERVICE_UNAVAILABLE: 'The service is busy. Try again in a moment.',
  GAME_NOT_PENDING: 'This challenge is no longer open.',
  GAME_NOT_ACTIVE: 'This game is over.',
  FRIEND_LIMIT: 'You have reached the limit of friends and requests.',
  EMAIL_ALREADY_EXISTS: 'Another account uses this email address.',
  USERNAME_ALREADY_EXISTS: 'This username is taken.',
  REMATCH_NOT_ALLOWED: 'A rematch of this game is no longer possible.',
  GAME_NOT_FINISHED: 'A rematch can be asked for only once the game is over.',
  GAME_NOT_ABORTABLE: 'Too late to abort: both sides have moved. You can resign or offer a draw.',
  CLAIM_NOT_ALLOWED: 'You cannot claim the game yet: your opponent has not been away long enough.',
  TAKEBACK_PENDING: 'A takeback is already waiting for an answer.',
  TAKEBACK_LIMIT: 'You have used your three takebacks in this game.',
  TAKEBACK_NOT_ALLOWED: 'No takeback here: it would undo a first move (or this is an arena game).',
  TAKEBACK_NOT_PENDING: 'That takeback was already answered or has lapsed.',
};

/** A code and message the room sent (`error {code, message}`), in plain words. */
export const plainCode = (code: string, message: string): string => PLAIN[code] ?? sentence(message);

const FIELD_NAMES: Record<string, string> = { opponent_id: 'Opponent', initial_time: 'Minutes', current_password: 'Current password', new_password: 'New password' };

/** A sentence: capitalised, with a full stop. */
const sentence = (s: string) => {
  const t = s.trim();
  return t ? t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.') : t;
};

/** An error in plain words: "You cannot challenge yourself.", "Password must be at least 8 characters." */
export function plainError(e: unknown): string {
  if (!(e instanceof ApiError)) return 'The service could not be reached. Check your connection and try again.';
  if (PLAIN[e.code]) return PLAIN[e.code];
  const fields = Object.entries(e.details ?? {}).flatMap(([field, msgs]) =>
    ([] as unknown[]).concat(msgs).map((m) => {
      const text = String(m);
      // "must be …", "is required" need their field; "you cannot challenge yourself" says it all.
      if (!/^(must|is|should|cannot)\b/.test(text)) return sentence(text);
      const name = FIELD_NAMES[field] ?? field.replace(/_id$/, '').replaceAll('_', ' ');
      return sentence(`${name} ${text}`);
    }));
  return fields.length ? fields.join(' ') : sentence(e.message);
}

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
export async function findUser(username: string): Promise<PublicUser | undefined> {
  const q = username.trim();
  if (!q) return undefined;
  const found = await get<PublicUser[]>(`/users/search?q=${encodeURIComponent(q)}&limit=100`);
  return found.find((u) => u.username.toLowerCase() === q.toLowerCase());
}

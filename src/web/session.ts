// Where the tokens live, and why.
//
// Both tokens are kept in localStorage under one key, so a reload or a second tab stays signed
// in (a reload mid-game must resume the game). They never go into a URL, a cookie or a log: the
// access token travels in `Authorization` (REST) or in a join or subscribe message's body
// (rooms, the realtime channel). What keeps script from reading them is the page's policy: only
// this origin's bundled files run (no inline script, no eval, no third-party code), and the app
// inserts every text as text, never as HTML. A cookie marked HttpOnly would hide them even from
// an injected script, but the API takes bearer tokens (DESIGN 2.1: no cookies, no CSRF surface),
// so the browser holds them like any other client of the API.
//
// Refresh tokens are single use, and presenting a used one ends the session (DESIGN 2.2), so two
// tabs must never refresh with the same one: a refresh runs under a Web Lock shared by the tabs,
// and re-reads the stored pair inside it (another tab may have refreshed meanwhile).

import type { LoginResult, TokenPair } from './types/api.ts';

/** The signed-in user as the session keeps it (what login and signup both answer of it). */
export type SessionUser = Pick<LoginResult['user'], 'id' | 'username' | 'email'>;
export type Session = { user: SessionUser; accessToken: string; refreshToken: string; expiresAt: number };

const KEY = 'chess.session';
// Refresh this long before the access token expires.
const MARGIN_MS = 60_000;

type Listener = (session: Session | undefined) => void;
const listeners = new Set<Listener>();

function read(): Session | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    const s = raw ? (JSON.parse(raw) as Session) : undefined;
    return s && typeof s.accessToken === 'string' && typeof s.refreshToken === 'string' && s.user?.id ? s : undefined;
  } catch {
    return undefined;
  }
}

let current = read();

// Another tab signed in, refreshed or signed out.
window.addEventListener('storage', (event) => {
  if (event.key !== KEY && event.key !== null) return;
  const next = read();
  const changedUser = next?.user.id !== current?.user.id;
  current = next;
  if (changedUser) for (const l of listeners) l(current);
});

export const session = {
  get: () => current,
  user: () => current?.user,

  /** After signup or login. */
  start(user: SessionUser, tokens: TokenPair): void {
    store({ user, ...pair(tokens) });
  },

  /** Ends the session here (the caller tells the API first). */
  clear(): void {
    store(undefined);
  },

  onChange(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },

  /** A valid access token, refreshed when it is about to expire; undefined when signed out. */
  async accessToken(): Promise<string | undefined> {
    const s = current;
    if (!s) return undefined;
    if (s.expiresAt - MARGIN_MS > Date.now()) return s.accessToken;
    return (await refresh(s))?.accessToken;
  },

  /** The API refused the token (revoked, or the clock lied): refresh once, or end the session. */
  async renew(): Promise<string | undefined> {
    const s = current;
    return s ? (await refresh(s))?.accessToken : undefined;
  },
};

const pair = (t: TokenPair) => ({
  accessToken: t.access_token,
  refreshToken: t.refresh_token,
  expiresAt: Date.now() + t.expires_in * 1000,
});

function store(next: Session | undefined): void {
  const changedUser = next?.user.id !== current?.user.id;
  current = next;
  if (next) localStorage.setItem(KEY, JSON.stringify(next));
  else localStorage.removeItem(KEY);
  if (changedUser) for (const l of listeners) l(current);
}

async function refresh(seen: Session): Promise<Session | undefined> {
  return withLock(async () => {
    const stored = read();
    // Another tab refreshed (or signed out) while this one waited for the lock.
    if (!stored || stored.refreshToken !== seen.refreshToken) {
      current = stored;
      return stored;
    }
    const res = await fetch('/v1/auth/refresh', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refresh_token: stored.refreshToken }),
    });
    if (res.status === 401 || res.status === 400) {
      store(undefined); // the session ended (logout elsewhere, password change, 30 days)
      return undefined;
    }
    if (!res.ok) throw new Error(`Could not refresh the session (${res.status})`);
    const { data } = await res.json();
    const next = { user: stored.user, ...pair(data) };
    store(next);
    return next;
  });
}

/** Runs `fn` while no other tab of this origin runs it (where Web Locks exist: secure contexts). */
function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? (locks.request('chess.session.refresh', fn) as Promise<T>) : fn();
}

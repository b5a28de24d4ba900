import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { api, newIp } from './http.ts';

export type TestUser = {
  id: string;
  email: string;
  username: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  /** The client address the user signed up from; each user has its own. */
  ip: string;
};

export type NewUserOverrides = { email?: string; username?: string; password?: string; full_name?: string; ip?: string };

// No vowels and no digits that read as letters: random names cannot spell an offensive word.
const NAME_ALPHABET = 'bcdfghjkmnpqrvwxz2689';

/** A username no other test uses: up to 6 characters of `prefix`, `_`, 12 random ones. */
export function uniqueUsername(prefix = 'usr'): string {
  const random = [...randomBytes(12)].map((b) => NAME_ALPHABET[b % NAME_ALPHABET.length]).join('');
  return `${prefix.slice(0, 6)}_${random}`;
}

/**
 * A unique address at example.com: that domain exists (RFC 2606), so the signup domain check
 * passes with real DNS as well as with a resolver that knows nothing.
 */
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}.${randomBytes(6).toString('hex')}@example.com`;
}

/** Signs a new user up through the API, from a fresh client address, and returns its tokens. */
export async function createUser(overrides: NewUserOverrides = {}): Promise<TestUser> {
  const ip = overrides.ip ?? newIp();
  const body = {
    email: overrides.email ?? uniqueEmail(),
    username: overrides.username ?? uniqueUsername(),
    password: overrides.password ?? `pw-${randomBytes(6).toString('hex')}-9`,
    ...(overrides.full_name !== undefined ? { full_name: overrides.full_name } : {}),
  };
  const res = await api('POST', '/v1/auth/signup', { body, ip });
  assert.equal(res.status, 201, `signup failed: ${res.text}`);
  const { user, session } = res.body.data;
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    password: body.password,
    accessToken: session.access_token,
    refreshToken: session.refresh_token,
    ip,
  };
}

/** Logs a user in from a fresh address (the auth class limit counts per address). */
export async function login(user: Pick<TestUser, 'email' | 'password'>, ip = newIp()) {
  return api('POST', '/v1/auth/login', { body: { email: user.email, password: user.password }, ip });
}

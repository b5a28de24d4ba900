import assert from 'node:assert/strict';
import type { Room } from '@colyseus/sdk';
import { api } from './http.ts';
import { testService } from './service.ts';
import type { TestUser } from './users.ts';

/** A personal access token of `user` made over REST (DESIGN 2.12): its id and the token. */
export async function personalToken(user: TestUser, scopes: string[], expiresAt?: Date): Promise<{ id: string; token: string }> {
  const body = { description: 'bot', scopes, ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}) };
  const res = await api('POST', '/v1/account/tokens', { token: user.accessToken, ip: user.ip, body });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.data.id, token: res.body.data.token };
}

/** DELETE /account/tokens/{id} by its owner's session. */
export async function deleteToken(user: TestUser, id: string): Promise<void> {
  const res = await api('DELETE', `/v1/account/tokens/${id}`, { token: user.accessToken, ip: user.ip });
  assert.equal(res.status, 204, res.text);
}

/** A second session of `user` (another device): its access token. */
export async function secondSession(user: TestUser): Promise<string> {
  const res = await api('POST', '/v1/auth/login', { body: { email: user.email, password: user.password }, ip: user.ip });
  assert.equal(res.status, 200, res.text);
  return res.body.data.session.access_token;
}

/** How a room ended for its client: the `error` it was sent last (if any) and the close code. */
export function roomEnding(room: Room, timeoutMs = 5000): Promise<{ error?: { code: string; message: string }; code: number }> {
  let error: { code: string; message: string } | undefined;
  room.onMessage('error', (m: { code: string; message: string }) => (error = m));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the room did not close within ${timeoutMs} ms`)), timeoutMs);
    room.onLeave((code: number) => {
      clearTimeout(timer);
      resolve({ error, code });
    });
  });
}

/**
 * Runs `f` with the shared service's clock moved `ms` forward (ShiftedClock), and puts it back
 * after, as docs/testing.md asks.
 */
export async function withClockSkipped<T>(ms: number, f: () => Promise<T>): Promise<T> {
  const { clock } = await testService();
  clock.skip(ms);
  try {
    return await f();
  } finally {
    clock.reset();
  }
}

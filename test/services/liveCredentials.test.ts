import assert from 'node:assert/strict';
import type { AuthUser } from '../../src/auth/scopes.ts';
import { createLogger } from '../../src/logger.ts';
import { createLiveCredentials, type CredentialEnd } from '../../src/services/liveCredentials.ts';
import { ManualClock, settle } from '../helpers/clock.ts';

/**
 * The one record of which sockets hang on which credential (src/services/liveCredentials.ts), on
 * a manual clock; the sockets themselves are tested through the service (test/rooms/credentials,
 * test/realtime/credentials).
 */
describe('live credentials: what ends a socket', () => {
  let clock: ManualClock;
  let revokedInDb: Set<string>;
  const make = () =>
    createLiveCredentials({ clock, log: createLogger('silent'), isLive: async (u) => !revokedInDb.has(u.sessionId), tickMs: 1000, recheckMs: 60_000 });
  const user = (sessionId: string, o: Partial<AuthUser> = {}): AuthUser => ({ id: 'u1', email: 'u1@example.com', sessionId, ...o });
  /** Watches `u`; the endings it got, in order. */
  const follow = (credentials: ReturnType<typeof make>, u: AuthUser) => {
    const endings: CredentialEnd[] = [];
    const stop = credentials.watch(u, (why) => endings.push(why));
    return { endings, stop };
  };

  beforeEach(() => {
    clock = new ManualClock();
    revokedInDb = new Set();
  });

  it('ends a credential at its expiry, within a tick, and nothing that has not expired', async () => {
    const credentials = make();
    const soon = follow(credentials, user('s1', { expiresAt: clock.now() + 5_500 }));
    const later = follow(credentials, user('s2', { expiresAt: clock.now() + 60_000 }));
    const never = follow(credentials, user('s3'));
    await clock.advance(5_000);
    assert.deepEqual(soon.endings, []);
    await clock.advance(1_000);
    assert.deepEqual([soon.endings, later.endings, never.endings], [['expired'], [], []]);
    assert.equal(credentials.size, 2);
    credentials.stop();
  });

  it('ends what a revocation names: one credential, or all of the user (null), once', () => {
    const credentials = make();
    const [a, a2, b] = [follow(credentials, user('a')), follow(credentials, user('a')), follow(credentials, user('b'))];
    const otherUser = follow(credentials, user('c', { id: 'u2' }));
    credentials.revoke('u1', 'a');
    assert.deepEqual([a.endings, a2.endings, b.endings], [['revoked'], ['revoked'], []]);
    credentials.revoke('u1', null);
    credentials.revoke('u1', null);
    assert.deepEqual([a.endings, b.endings, otherUser.endings], [['revoked'], ['revoked'], []]);
    credentials.stop();
  });

  it('forgets a socket that stopped watching', () => {
    const credentials = make();
    const a = follow(credentials, user('a', { expiresAt: clock.now() + 1000 }));
    a.stop();
    credentials.revoke('u1', null);
    assert.deepEqual(a.endings, []);
    assert.equal(credentials.size, 0);
    assert.equal(clock.pending, 0, 'no timer runs for nothing');
  });

  it('reads every watched credential again when revocations reach the node again (those sent meanwhile were lost)', async () => {
    const credentials = make();
    const [a, b] = [follow(credentials, user('a')), follow(credentials, user('b'))];
    credentials.setTrusted(false);
    revokedInDb.add('a');
    credentials.setTrusted(true);
    await settle();
    assert.deepEqual([a.endings, b.endings], [['revoked'], []]);
    credentials.stop();
  });

  it('reads a credential watched just after its user had one revoked (it may have authenticated before the revocation)', async () => {
    const credentials = make();
    credentials.revoke('u1', 'a');
    revokedInDb.add('a');
    const late = follow(credentials, user('a'));
    const fresh = follow(credentials, user('b'));
    await settle();
    assert.deepEqual([late.endings, fresh.endings], [['revoked'], []]);
    credentials.stop();
  });

  it('checks a reconnection: expired on the clock, or revoked in the database', async () => {
    const credentials = make();
    assert.equal(await credentials.check(user('a', { expiresAt: clock.now() + 1 })), true);
    assert.equal(await credentials.check(user('a', { expiresAt: clock.now() })), false);
    revokedInDb.add('a');
    assert.equal(await credentials.check(user('a')), false);
  });
});

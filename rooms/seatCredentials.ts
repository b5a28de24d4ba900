import type { Client, Room } from '@colyseus/core';
import type { AuthUser } from '../src/auth/scopes.ts';
import { roomRefusal } from '../src/gateway/index.ts';
import { CREDENTIAL_ENDED, type CredentialEnd, type LiveCredentials } from '../src/services/liveCredentials.ts';

/** Close code of a room socket whose token ended (revoked or expired): join again with a valid one. */
export const CLOSE_CREDENTIAL_ENDED = 4401;

type AnyRoom = Pick<Room, 'allowReconnection'> & { clients: Iterable<Client> };
type Held = { user: AuthUser; stop: () => void; ended: boolean; reconnection?: ReturnType<AnyRoom['allowReconnection']> };

/**
 * DESIGN 2.12 in a room: a client that joined with a token is watched while it is in the room or
 * its seat waits for a reconnection. When the credential ends (revoked on any node, or expired:
 * src/services/liveCredentials.ts) the client is sent `error UNAUTHORIZED` and closed 4401, and
 * its seat waits for no reconnection (one already waiting is given up); a reconnection
 * (`client.reconnect`) checks the credential again and is refused when it has ended. A client is
 * known by its `userData`, which Colyseus hands on to the client object of a reconnection.
 */
export class SeatCredentials {
  private readonly held = new Map<object, Held>();

  constructor(
    private readonly room: AnyRoom,
    private readonly credentials: () => Pick<LiveCredentials, 'watch' | 'check'>,
  ) {}

  /** At join, once `client.userData` is set: follows the credential the client joined with (none: an anonymous client). */
  follow(client: Client, user: AuthUser | undefined): void {
    const key = client.userData as object | undefined;
    if (!user || !key) return;
    const held: Held = { user, ended: false, stop: () => {} };
    this.held.set(key, held);
    held.stop = this.credentials().watch(user, (why) => this.end(key, held, why));
  }

  /** onDrop: the seat waits `seconds` for a reconnection, unless its credential ended. */
  async waitForReconnection(client: Client, seconds: number): Promise<void> {
    const held = this.held.get(client.userData as object);
    if (held?.ended) return;
    const reconnection = this.room.allowReconnection(client, seconds);
    if (held) held.reconnection = reconnection;
    await reconnection.catch(() => {});
    if (held) held.reconnection = undefined;
  }

  /** onReconnect, first: refuses (throws UNAUTHORIZED) a reconnection whose credential has ended meanwhile. */
  async recheck(client: Client): Promise<void> {
    const held = this.held.get(client.userData as object);
    if (!held) return;
    if (!held.ended && (await this.credentials().check(held.user).catch(() => true))) return;
    held.ended = true;
    throw roomRefusal('UNAUTHORIZED', CREDENTIAL_ENDED.revoked);
  }

  /** onLeave: the client is gone for good. */
  forget(client: Client): void {
    const key = client.userData as object | undefined;
    const held = key && this.held.get(key);
    if (!held) return;
    held.stop();
    this.held.delete(key);
  }

  /** onDispose: nothing of the room stays watched. */
  forgetAll(): void {
    for (const held of this.held.values()) held.stop();
    this.held.clear();
  }

  private end(key: object, held: Held, why: CredentialEnd): void {
    held.ended = true;
    held.reconnection?.reject(new Error('credential ended'));
    for (const client of this.room.clients) {
      if (client.userData !== key) continue;
      // `error` first, so that the client knows why before the close (4401) arrives.
      (client as Client<{ messages: { error: { code: string; message: string } } }>).send('error', { code: 'UNAUTHORIZED', message: CREDENTIAL_ENDED[why] });
      client.leave(CLOSE_CREDENTIAL_ENDED, why === 'expired' ? 'token expired' : 'token revoked');
    }
  }
}

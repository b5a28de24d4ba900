import type { AuthUser } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';

/** A socket or an HTTP stream, as the caps count it: its places are given back when it closes. */
type Counted = { readonly open: boolean; onClose(f: () => void): void };

/**
 * How many sockets one address may hold open on a node (the stream's, the realtime channel's, the
 * HTTP streams and the rooms' together), and one user (the stream's and the realtime channel's).
 */
export type SocketCapLimits = { perAddress: number; perUser: number };

export const DEFAULT_SOCKET_CAPS: SocketCapLimits = { perAddress: 50, perUser: 20 };

/**
 * Counts this node's open sockets by client address and by user. Each may hold 100 channels and
 * a share of the node's memory, so one address or one account must not open them without end.
 * The counts are this node's: behind a balancer spreading sockets over N nodes, a user may hold
 * up to N × `perUser`.
 */
export class SocketCaps {
  private readonly byAddress = new Map<string, number>();
  private readonly byUser = new Map<string, number>();
  /** Per connection, the users it counts for (the places to give back when it closes). */
  private readonly places = new WeakMap<Counted, Map<string, () => void>>();

  constructor(readonly limits: SocketCapLimits) {}

  /** Takes a place for a socket of `address`: the way to give it back, or undefined when the address is at its cap. */
  admitAddress(address: string): (() => void) | undefined {
    return take(this.byAddress, address, this.limits.perAddress);
  }

  /**
   * Counts `connection` as one of `userId`'s sockets until it closes, once however many of its
   * channels that user's tokens open: RATE_LIMIT_EXCEEDED when the user already holds the cap.
   */
  admitUser(connection: Counted, userId: string): AppError | undefined {
    let mine = this.places.get(connection);
    if (mine?.has(userId) || !connection.open) return undefined;
    const release = take(this.byUser, userId, this.limits.perUser);
    if (!release) return new AppError('RATE_LIMIT_EXCEEDED', `At most ${this.limits.perUser} sockets per user; close one first`);
    if (!mine) {
      const places = (mine = new Map());
      this.places.set(connection, places);
      connection.onClose(() => {
        for (const r of places.values()) r();
        this.places.delete(connection);
      });
    }
    mine.set(userId, release);
    return undefined;
  }

  /** `authenticate` for one connection: the token's user, the connection counted as theirs (else RATE_LIMIT_EXCEEDED). */
  authenticateFor(connection: Counted, authenticate: (token: string) => Promise<AuthUser>): (token: string) => Promise<AuthUser> {
    return async (token) => {
      const user = await authenticate(token);
      const over = this.admitUser(connection, user.id);
      if (over) throw over;
      return user;
    };
  }

  overAddress(): AppError {
    return new AppError('RATE_LIMIT_EXCEEDED', `At most ${this.limits.perAddress} sockets per address; close one first`);
  }
}

function take(counts: Map<string, number>, key: string, cap: number): (() => void) | undefined {
  const n = counts.get(key) ?? 0;
  if (n >= cap) return undefined;
  counts.set(key, n + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const left = (counts.get(key) ?? 1) - 1;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  };
}

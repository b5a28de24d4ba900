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

  constructor(readonly limits: SocketCapLimits) {}

  /** Takes a place for a socket of `address`: the way to give it back, or undefined when the address is at its cap. */
  admitAddress(address: string): (() => void) | undefined {
    return take(this.byAddress, address, this.limits.perAddress);
  }

  /** Takes a place for a socket that authenticated as `userId`, as `admitAddress` does. */
  admitUser(userId: string): (() => void) | undefined {
    return take(this.byUser, userId, this.limits.perUser);
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

// Who may start a game export (DESIGN 2.12), and when: one at a time per caller, at most
// `perAddress` at once from one client address (callers with tokens included) and `perNode` at
// once on this node. The caller's slot is held in this process (a Set) and, when the service runs
// with Redis, in Redis too, so that a caller's second export is refused on any node: SET NX with a
// lifetime, renewed while the export runs, deleted by its holder at the end. A node that dies
// leaves its slots to lapse after SLOT_TTL_MS. The address and node counts are this node's, like
// the socket caps: each export's reading and formatting runs on the node that serves it.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../time.ts';
import { Timers } from './timers.ts';

const SLOT_TTL_MS = 30_000;
const RENEW_MS = 10_000;
// Deletes or renews the slot only while it is still this holder's (a lapsed one may be another's).
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;

export type ExportLimits = { perNode: number; perAddress: number };
/** Which limit refused an export: the caller's own one at a time, the address's, or the node's. */
export type ExportRefusal = 'caller' | 'address' | 'node';

export type ExportSlots = {
  /** Takes a slot for an export of `caller` from `address`: its release, or the limit that refuses it. */
  take(caller: string, address: string): Promise<{ release: () => Promise<void> } | { refused: ExportRefusal }>;
};

/** The slot's renewal runs on `clock`, the service's, as every lease does. */
export function createExportSlots(redis: Redis | undefined, limits: ExportLimits, clock: Clock): ExportSlots {
  const callers = new Set<string>();
  const addresses = new Map<string, number>();
  let running = 0;

  const leave = (caller: string, address: string) => {
    callers.delete(caller);
    running--;
    const n = (addresses.get(address) ?? 1) - 1;
    if (n > 0) addresses.set(address, n);
    else addresses.delete(address);
  };

  /** The caller's slot across the cluster (Redis), once this node has counted the export. */
  async function holdInRedis(caller: string, address: string, r: Redis): Promise<{ release: () => Promise<void> } | { refused: ExportRefusal }> {
    const key = `export:slot:${caller}`;
    const holder = randomBytes(12).toString('hex');
    try {
      if ((await r.set(key, holder, 'PX', SLOT_TTL_MS, 'NX')) !== 'OK') {
        leave(caller, address);
        return { refused: 'caller' };
      }
    } catch (error) {
      leave(caller, address);
      throw error;
    }
    const renewal = new Timers<'renew'>(clock);
    renewal.every('renew', RENEW_MS, () => void r.eval(RENEW, 1, key, holder, SLOT_TTL_MS).catch(() => {}));
    return {
      release: async () => {
        renewal.clearAll();
        leave(caller, address);
        await r.eval(RELEASE, 1, key, holder).catch(() => {});
      },
    };
  }

  return {
    async take(caller, address) {
      // Counted at once, before any await: exports that arrive together cannot all take the last place.
      if (callers.has(caller)) return { refused: 'caller' };
      if (running >= limits.perNode) return { refused: 'node' };
      if ((addresses.get(address) ?? 0) >= limits.perAddress) return { refused: 'address' };
      callers.add(caller);
      running++;
      addresses.set(address, (addresses.get(address) ?? 0) + 1);
      if (!redis) return { release: async () => leave(caller, address) };
      return holdInRedis(caller, address, redis);
    },
  };
}

// One export at a time per caller (DESIGN 2.12). A slot is held in this process (a Set) and, when
// the service runs with Redis, in Redis too, so that a caller's second export is refused on any
// node: SET NX with a lifetime, renewed while the export runs, deleted by its holder at the end.
// A node that dies leaves its slots to lapse after SLOT_TTL_MS.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

const SLOT_TTL_MS = 30_000;
const RENEW_MS = 10_000;
// Deletes or renews the slot only while it is still this holder's (a lapsed one may be another's).
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;

export type ExportSlots = {
  /** Takes the caller's slot: its release, or undefined when the caller already exports. */
  take(caller: string): Promise<(() => Promise<void>) | undefined>;
};

export function createExportSlots(redis: Redis | undefined): ExportSlots {
  const local = new Set<string>();
  return {
    async take(caller) {
      if (local.has(caller)) return undefined;
      local.add(caller);
      if (!redis) {
        return async () => void local.delete(caller);
      }
      const key = `export:slot:${caller}`;
      const holder = randomBytes(12).toString('hex');
      try {
        if ((await redis.set(key, holder, 'PX', SLOT_TTL_MS, 'NX')) !== 'OK') {
          local.delete(caller);
          return undefined;
        }
      } catch (error) {
        local.delete(caller);
        throw error;
      }
      const renewal = setInterval(() => void redis.eval(RENEW, 1, key, holder, SLOT_TTL_MS).catch(() => {}), RENEW_MS);
      renewal.unref();
      return async () => {
        clearInterval(renewal);
        local.delete(caller);
        await redis.eval(RELEASE, 1, key, holder).catch(() => {});
      };
    },
  };
}

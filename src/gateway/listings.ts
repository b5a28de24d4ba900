import { matchMaker, type IRoomCache } from '@colyseus/core';
import { RedisDriver } from '@colyseus/redis-driver';
import type { Redis } from 'ioredis';

/** RedisDriver's hash of room listings (room id → listing JSON). */
const LISTINGS = 'roomcaches';

// Writes the listing unless the room id is listed by another process.
const SET_OWN = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local ok, listing = pcall(cjson.decode, current)
  if ok and listing.processId ~= ARGV[3] then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;

// Removes the listing only if this process listed it.
const REMOVE_OWN = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
local ok, listing = pcall(cjson.decode, current)
if ok and listing.processId ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], ARGV[1])`;

/**
 * Colyseus's RedisDriver, except that a room only changes or removes its own listing. A game's
 * room id is the game's id, so after a failover two processes can briefly hold a room of the same
 * id: the new owner's, and the old one's, fenced out (its node was paused past the lease, or cut
 * off) and closing. RedisDriver keys listings by room id alone, so the old room's last updates
 * and its removal on dispose would overwrite or delete the new owner's listing, leaving the game
 * unreachable by id (a join or REST call would find no room, and no lease to create one). A new
 * room's first listing (`persist(…, true)`) still replaces whatever was there: it holds the lease.
 */
export class OwnListingsDriver extends RedisDriver {
  constructor(private readonly redis: Redis) {
    super(redis);
  }

  override async persist(room: IRoomCache, create = false): Promise<boolean> {
    if (create) return super.persist(room, create);
    return this.setOwn(room);
  }

  override async update(room: IRoomCache, operations: Partial<{ $set: Partial<IRoomCache>; $inc: Partial<IRoomCache> }>): Promise<boolean> {
    const fields = room as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(operations.$set ?? {})) fields[field] = value;
    for (const [field, by] of Object.entries(operations.$inc ?? {})) fields[field] = (fields[field] as number) + (by as number);
    return this.setOwn(room);
  }

  override async remove(roomId: string): Promise<boolean> {
    return (await this.redis.eval(REMOVE_OWN, 1, LISTINGS, roomId, matchMaker.processId)) === 1;
  }

  private async setOwn(room: IRoomCache): Promise<boolean> {
    if (!room.roomId) return false;
    return (await this.redis.eval(SET_OWN, 1, LISTINGS, room.roomId, JSON.stringify(room), room.processId)) === 1;
  }
}

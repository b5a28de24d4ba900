import { Room, type AuthContext, type Client } from '@colyseus/core';
import { z } from 'zod';
import { requireScope, type AuthUser } from '../src/auth/scopes.ts';
import type { AppContext } from '../src/context.ts';
import { poolId, type PoolKey } from '../src/domain/pairing.ts';
import { validateTimeControl } from '../src/domain/timeControl.ts';
import { AppError } from '../src/errors.ts';
import { reserveGameSeat, ROOM_REFUSED, roomRefusal } from '../src/gateway/index.ts';
import { fail } from '../src/result.ts';
import { assertMaySeek, PoolRetired, SeekPoolActor, type ApiSeek, type Pairing } from '../src/services/seekPoolActor.ts';
import type { LiveCredentials } from '../src/services/liveCredentials.ts';
import { reservedSeatCount } from './colyseusInternals.ts';
import { refuseUnknownMessage, type SeekPoolServerMessages } from './messages.ts';
import { SeatCredentials } from './seatCredentials.ts';

type SeekerData = { user: AuthUser; seekId?: string };
type SeekerClient = Client<{ userData: SeekerData; auth: { user: AuthUser }; messages: SeekPoolServerMessages }>;

export type SeekPoolRoomDeps = {
  ctx: AppContext;
  authenticate: (token: string) => Promise<AuthUser>;
  hostId: () => string;
  /** DESIGN 2.12: a seeker's socket (and its seek) lasts no longer than its credential. */
  credentials: Pick<LiveCredentials, 'watch' | 'check'>;
};

/** The pool's identity, as creators and joiners pass it (filterBy keeps one room per pool). */
export const PoolOptions = z.object({
  time_control: z.enum(['bullet', 'blitz', 'rapid', 'classical']),
  initial_time: z.number().int(),
  increment: z.number().int(),
  rated: z.boolean(),
});
const JoinOptions = z.object({ color: z.enum(['white', 'black', 'random']).default('random') });

/**
 * The pool named by join or create options, or VALIDATION_ERROR: only the time controls a game may
 * be created with (DESIGN 2.4) name a pool. All four options are required, because filterBy
 * matches only the options a joiner gives: without them any open pool would do.
 */
function parsePoolKey(options: unknown): PoolKey {
  const parsed = PoolOptions.safeParse(options);
  if (!parsed.success) {
    throw new AppError('VALIDATION_ERROR', 'Name the pool: time_control, initial_time, increment (integers) and rated (boolean)');
  }
  const tc = validateTimeControl(parsed.data);
  if (!tc.ok) {
    const details = Object.fromEntries(Object.entries(tc.error).map(([field, message]) => [field, [message]]));
    throw new AppError('VALIDATION_ERROR', 'Invalid time control', details);
  }
  return { timeControl: tc.value.time_control, initialTime: tc.value.initial_time, increment: tc.value.increment, rated: parsed.data.rated };
}

/**
 * One seek pool: the actor that pairs seekers of one time control. REST seekers reach it
 * through the gateway (`apiSeek`); realtime seekers join it with their token and get a seat in
 * the game's room when paired (`paired` message). Leaving the room cancels a waiting seek. A
 * pool with no seek and no socket goes after SEEK_POOL_IDLE_SECONDS (src/services/seekPoolActor.ts).
 */
export class SeekPoolRoom extends Room<{ client: SeekerClient }> {
  static deps: SeekPoolRoomDeps;
  pool!: SeekPoolActor;
  override autoDispose = false;
  override patchRate = 10_000;
  // Seekers send nothing after joining; anything beyond a trickle is a flood.
  override maxMessagesPerSecond = 20;
  private seekers = new Map<string, SeekerClient>();
  private readonly seats = new SeatCredentials(this, () => SeekPoolRoom.deps.credentials);

  /**
   * Runs at /matchmake, before a room is found or created: only a caller who may seek right now
   * (a live session, a valid pool, within the limits, no open seek or game) can make a pool
   * exist. A socket seek counts against the same per-user limit as a REST one (`matchmaking`),
   * and against a per-address one (`seekAddress`), so many accounts on one address cannot
   * multiply pools either; a refused token counts against the address.
   */
  static override async onAuth(token: string, options: { token?: unknown }, context: AuthContext): Promise<{ user: AuthUser }> {
    const { ctx, authenticate } = SeekPoolRoom.deps;
    const address = `a:${context?.ip ?? 'unknown'}`;
    await ctx.limits.take('seekAddress', address);
    const bearer = token || options?.token;
    if (typeof bearer !== 'string' || !bearer) throw new AppError('UNAUTHORIZED', 'A seek needs an access token');
    const user = await authenticate(bearer);
    requireScope(user, 'games:play');
    await ctx.limits.take('matchmaking', `u:${user.id}`);
    const key = parsePoolKey(options);
    await assertMaySeek(ctx.pool, user.id, key.timeControl);
    return { user };
  }

  override async onCreate(options: unknown): Promise<void> {
    let key: PoolKey;
    try {
      key = parsePoolKey(options);
    } catch {
      throw roomRefusal(ROOM_REFUSED.NOT_ACTIVE, 'not a valid pool');
    }
    this.roomId = poolId(key);
    const { ctx, hostId } = SeekPoolRoom.deps;
    const pool = await SeekPoolActor.open(ctx, key, hostId(), {
      paired: (p) => void this.seatPaired(p),
      lost: () => void this.disconnect(),
      mayRetire: () => this.mayRetire(),
      retired: () => void this.disconnect(),
    });
    if (pool === 'lease_held') throw roomRefusal(ROOM_REFUSED.LEASE_HELD);
    this.pool = pool;
    this.onMessage('*', refuseUnknownMessage);
  }

  override async onJoin(client: SeekerClient, options: unknown, auth: { user: AuthUser }): Promise<void> {
    client.userData = { user: auth.user };
    this.seats.follow(client, auth.user);
    this.pool.touch();
    const parsed = JoinOptions.safeParse(options ?? {});
    const color = parsed.success ? parsed.data.color : 'random';
    const reply = (await this.apiSeek(auth.user.id, color)) ?? fail('SERVICE_UNAVAILABLE', 'The pool closed as you joined; join it again');
    // Thrown, the refusal reaches the joiner as the join's error (a message sent before leaving is lost).
    if (!reply.ok) throw roomRefusal(reply.error.code, reply.error.message);
    const seek = reply.value;
    if (seek.status === 'pending') {
      client.userData.seekId = seek.seekId;
      this.seekers.set(seek.seekId, client);
      client.send('seeking', { seek_id: seek.seekId, expires_at: seek.expiresAt.toISOString() });
    } else {
      await this.sendSeat(client, seek.gameId);
    }
  }

  override async onLeave(client: SeekerClient): Promise<void> {
    this.seats.forget(client);
    this.pool.touch();
    const seekId = client.userData?.seekId;
    if (seekId && this.seekers.get(seekId) === client) {
      this.seekers.delete(seekId);
      await this.pool.cancel(seekId);
    }
  }

  override async onDispose(): Promise<void> {
    this.seats.forgetAll();
    await this.pool?.close();
  }

  /**
   * REST entry point (the gateway's allow-list). Undefined when this pool retired before the seek
   * got its turn: the gateway then finds or creates the pool's next room and asks there.
   */
  readonly apiSeek: ApiSeek = async (userId, color) => {
    try {
      return await this.pool.seek(userId, color);
    } catch (err) {
      if (err instanceof PoolRetired) return undefined;
      SeekPoolRoom.deps.ctx.log.warn({ err }, 'seek failed');
      return fail('SERVICE_UNAVAILABLE', 'Could not place the seek; retry');
    }
  };

  /**
   * The idle pool may go when no socket is in the room or holds a seat on its way in; it is
   * locked first, so the matchmaker seats nobody else here meanwhile.
   */
  private async mayRetire(): Promise<boolean> {
    if (this.hasSockets()) return false;
    await this.lock();
    if (!this.hasSockets()) return true;
    await this.unlock();
    return false;
  }

  private hasSockets(): boolean {
    // A seat reserved and not taken yet is a seeker on its way in.
    return this.clients.length > 0 || reservedSeatCount(this) > 0;
  }

  /** A waiting realtime seeker was paired (by a newcomer or a widened window): give them a seat. */
  private async seatPaired(p: Pairing): Promise<void> {
    for (const seekId of p.seekIds) {
      const client = this.seekers.get(seekId);
      if (!client) continue;
      this.seekers.delete(seekId);
      if (client.userData) client.userData.seekId = undefined;
      await this.sendSeat(client, p.gameId);
    }
  }

  private async sendSeat(client: SeekerClient, gameId: string): Promise<void> {
    try {
      const reservation = await reserveGameSeat(gameId, client.userData!.user);
      client.send('paired', { game_id: gameId, reservation });
    } catch (err) {
      // The game exists and is theirs all the same: they can join it by id.
      client.send('paired', { game_id: gameId, reservation: null });
      SeekPoolRoom.deps.ctx.log.warn({ err, gameId }, 'could not reserve a seat for a paired seeker');
    }
  }
}

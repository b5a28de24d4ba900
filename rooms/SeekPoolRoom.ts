import { Room, type Client } from '@colyseus/core';
import { z } from 'zod';
import type { AppContext, AuthUser } from '../src/context.ts';
import { poolId, type PoolKey } from '../src/domain/pairing.ts';
import { validateTimeControl } from '../src/domain/timeControl.ts';
import { reserveGameSeat, ROOM_REFUSED, type RoomReply } from '../src/gateway/index.ts';
import { SeekPool, type Pairing, type SeekResult } from '../src/services/seekPool.ts';

type SeekerData = { user: AuthUser; seekId?: string };
type SeekerClient = Client<{ userData: SeekerData; auth: { user: AuthUser } }>;

export type SeekPoolRoomDeps = { ctx: AppContext; authenticate: (token: string) => Promise<AuthUser>; hostId: () => string };

/** The pool's identity, as creators and joiners pass it (filterBy keeps one room per pool). */
export const PoolOptions = z.object({
  time_control: z.enum(['bullet', 'blitz', 'rapid', 'classical']),
  initial_time: z.number().int(),
  increment: z.number().int(),
  rated: z.boolean(),
});
const JoinOptions = z.object({ color: z.enum(['white', 'black', 'random']).default('random') });

/**
 * One seek pool: the actor that pairs seekers of one time control. REST seekers reach it
 * through the gateway (`apiSeek`); realtime seekers join it with their token and get a seat in
 * the game's room when paired (`paired` message). Leaving the room cancels a waiting seek.
 */
export class SeekPoolRoom extends Room {
  static deps: SeekPoolRoomDeps;
  pool!: SeekPool;
  override autoDispose = false;
  override patchRate = 10_000;
  // Seekers send nothing after joining; anything beyond a trickle is a flood.
  override maxMessagesPerSecond = 20;
  private seekers = new Map<string, SeekerClient>();

  static override async onAuth(token: string, options: { token?: string }): Promise<{ user: AuthUser }> {
    const bearer = token || options?.token;
    if (!bearer) throw new Error('UNAUTHORIZED: a seek needs an access token');
    // filterBy matches only the options a joiner gives: without all four, any open pool would do.
    if (!PoolOptions.safeParse(options).success) throw new Error('VALIDATION_ERROR: name the pool (time_control, initial_time, increment, rated)');
    return { user: await SeekPoolRoom.deps.authenticate(bearer) };
  }

  override async onCreate(options: unknown): Promise<void> {
    const parsed = PoolOptions.safeParse(options);
    const tc = parsed.success && validateTimeControl(parsed.data);
    if (!parsed.success || !tc || !tc.ok) throw new Error(`${ROOM_REFUSED.NOT_ACTIVE}: not a valid pool`);
    const key: PoolKey = {
      timeControl: parsed.data.time_control,
      initialTime: parsed.data.initial_time,
      increment: parsed.data.increment,
      rated: parsed.data.rated,
    };
    this.roomId = poolId(key);
    const { ctx, hostId } = SeekPoolRoom.deps;
    const pool = await SeekPool.open(ctx, key, hostId());
    if (pool === 'lease_held') throw new Error(ROOM_REFUSED.LEASE_HELD);
    this.pool = pool;
    pool.onPaired = (p) => void this.seatPaired(p);
    pool.onLost = () => void this.disconnect();
    this.onMessage('*', (client, type) => {
      client.send('error', { code: 'VALIDATION_ERROR', message: `Unknown message type ${String(type).slice(0, 40)}` });
    });
  }

  override async onJoin(client: SeekerClient, options: unknown, auth: { user: AuthUser }): Promise<void> {
    client.userData = { user: auth.user };
    const parsed = JoinOptions.safeParse(options ?? {});
    const color = parsed.success ? parsed.data.color : 'random';
    const reply = await this.apiSeek(auth.user.id, color);
    // Thrown, the refusal reaches the joiner as the join's error (a message sent before leaving is lost).
    if (!reply.ok) throw new Error(`${reply.code}: ${reply.message}`);
    if (reply.data.status === 'pending') {
      client.userData.seekId = reply.data.seekId;
      this.seekers.set(reply.data.seekId, client);
      client.send('seeking', { seek_id: reply.data.seekId, expires_at: reply.data.expiresAt.toISOString() });
    } else {
      await this.sendSeat(client, reply.data.gameId);
    }
  }

  override async onLeave(client: SeekerClient): Promise<void> {
    const seekId = client.userData?.seekId;
    if (seekId && this.seekers.get(seekId) === client) {
      this.seekers.delete(seekId);
      await this.pool.cancel(seekId);
    }
  }

  override async onDispose(): Promise<void> {
    await this.pool?.close();
  }

  /** REST entry point (the gateway's allow-list). */
  async apiSeek(userId: string, color: 'white' | 'black' | 'random'): Promise<RoomReply<SeekResult>> {
    try {
      return await this.pool.seek(userId, color);
    } catch (err) {
      SeekPoolRoom.deps.ctx.log.warn({ err }, 'seek failed');
      return { ok: false, code: 'SERVICE_UNAVAILABLE', message: 'Could not place the seek; retry' };
    }
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

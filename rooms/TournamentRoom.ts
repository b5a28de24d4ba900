import { Room } from '@colyseus/core';
import type { AppContext } from '../src/context.ts';
import type { Pool } from '../src/db/pool.ts';
import { parseId } from '../src/domain/ids.ts';
import { openGame, ROOM_REFUSED, roomRefusal } from '../src/gateway/index.ts';
import { TournamentActor, type TournamentObserver } from '../src/services/tournamentActor.ts';

export type TournamentRoomDeps = { ctx: AppContext; hostId: () => string; pool?: Pool; observe?: TournamentObserver };

/**
 * One running arena: the room that hosts its actor (src/services/tournamentActor.ts), found and
 * leased like a game's (room id = tournament id), created by the sweeper when the tournament is
 * due or its host died, or by the join that brings its second player: an arena with fewer than
 * two players and no game to count has none (src/services/tournamentSchedule.ts starts and
 * finishes it). Nobody joins it: players follow a tournament on the realtime channel
 * `tournament:<id>` and their own `user:<id>`, and play in the games' rooms.
 */
export class TournamentRoom extends Room {
  static deps: TournamentRoomDeps;
  actor!: TournamentActor;
  override autoDispose = false;
  // No state to sync: patches would be empty.
  override patchRate = 60_000;
  override maxClients = 0;

  static override async onAuth(): Promise<never> {
    throw roomRefusal('NOT_FOUND', 'A tournament is followed on the realtime channel tournament:<id>, not joined');
  }

  override async onCreate(options: { tournamentId?: string }): Promise<void> {
    // Keyed by the tournament's own (lower-case) id, like a game's room.
    const tournamentId = parseId(options.tournamentId);
    if (!tournamentId || tournamentId !== options.tournamentId) throw roomRefusal(ROOM_REFUSED.NOT_ACTIVE);
    this.roomId = tournamentId;
    const { ctx, hostId, pool, observe } = TournamentRoom.deps;
    // An actor that ends while it opens is refused below; only a hosted one's end closes the room.
    const leave = () => void (this.actor && this.disconnect());
    const actor = await TournamentActor.open(ctx, tournamentId, hostId(), { openGame, pool, observe }, { lost: leave, finished: leave });
    if (actor === 'not_active') throw roomRefusal(ROOM_REFUSED.NOT_ACTIVE);
    if (actor === 'lease_held') throw roomRefusal(ROOM_REFUSED.LEASE_HELD);
    this.actor = actor;
  }

  override async onDispose(): Promise<void> {
    await this.actor?.close();
  }
}

// Rehydration: a live game rebuilt from PostgreSQL by the node that just took its lease (a first
// open, a failover, a game handed back). The moves replayed on a fresh board, clocks resumed after
// the time no node hosted the game, the draw offers and takeback proposals, and the answers to keyed moves.
import { ChessClock } from '../domain/clock.ts';
import { DAY_MS } from '../domain/timeControl.ts';
import { ChessGame, COLORS, type Color, type Move, type PositionFlags } from '../domain/game.ts';
import { moveReply, type LiveGameState } from '../domain/gameDecider.ts';
import type { MoveAnswer, Seat } from '../domain/liveGameViews.ts';
import type { Config } from '../config.ts';
import type { GameRecord, PlayerRecord } from '../db/games.ts';
import * as store from '../db/liveGames.ts';
import { foldTail } from '../db/liveTail.ts';
import type { Pool } from '../db/pool.ts';
import { ok, type Result } from '../result.ts';
import { LiveGameFacts } from './liveGameDetail.ts';

/** What rehydration reads through (the node's LiveGameHost). */
export type RehydrationDeps = {
  readonly pool: Pool;
  readonly config: Pick<Config, 'firstMoveMs' | 'drawOfferTtlMs'> & Partial<Pick<Config, 'claimMs'>>;
  seats(record: GameRecord): Promise<{ seats: { white: Seat; black: Seat }; players: { white: PlayerRecord; black: PlayerRecord } }>;
};

export type Rehydrated = {
  state: LiveGameState;
  /** The lease's epoch, which fences every write of this node. */
  epoch: number;
  facts: LiveGameFacts;
  /** The answers to the last keyed moves, for retries: the actor remembers them as its own. */
  answered: { key: string; fingerprint: string; answer: Result<MoveAnswer, never> }[];
};

/**
 * Rebuilds the game whose lease `leased` is (its row as the lease took it) as of `now`, and saves
 * the resumed clocks; 'lease_held' when that write found the lease gone. `remembered`: how many
 * of the last moves' command keys are kept.
 */
export async function rehydrate(host: RehydrationDeps, leased: store.LeasedGame, now: number, remembered: number): Promise<Rehydrated | 'lease_held'> {
  const [moves, { seats, players }, offers, takebacks] = await Promise.all([
    store.loadMoves(host.pool, leased.id),
    host.seats(leased),
    store.loadDrawOffers(host.pool, leased.id),
    store.loadTakebacks(host.pool, leased.id),
  ]);
  // The row's snapshot lags the moves (migration 017): the moves after it say where the game stands.
  const record = foldTail(leased, moves);
  const last = moves.at(-1);
  if (last && last.ply > leased.moveCount && (!record.hostedAt || last.playedAt > record.hostedAt)) record.hostedAt = last.playedAt;
  const game = new ChessGame();
  // Moves made by a keyed command are remembered, so a retry reaching this node after a
  // failover is answered with its move instead of being refused as out of turn.
  const keyed: { key: string; move: Move; position: PositionFlags; uci: string; ply: number }[] = [];
  for (const [i, m] of moves.entries()) {
    const played = game.play({ from: m.uci.slice(0, 2), to: m.uci.slice(2, 4), promotion: m.uci[4] ?? null });
    if (!played.ok) throw new Error(`game ${leased.id}: stored move ${m.uci} is illegal (${played.error.code})`);
    if (m.commandKey && moves.length - i <= remembered) {
      const { move, position, uci } = played.value;
      keyed.push({ key: m.commandKey, move, position, uci, ply: i + 1 });
    }
  }
  const quotas = record.roomState as { whiteQuotaMs?: number; blackQuotaMs?: number };
  const config =
    record.daysPerMove === null
      ? { initialMs: record.initialTime * 1000, incrementMs: record.increment * 1000 }
      : { initialMs: record.daysPerMove * DAY_MS, incrementMs: 0, perMove: true };
  const { clock, firstMoveDeadline } = ChessClock.resume(
    config,
    {
      whiteMs: record.whiteTimeMs,
      blackMs: record.blackTimeMs,
      sideToMove: game.turn,
      turnStartedAt: record.clockRunning ? (record.turnStartedAt?.getTime() ?? null) : null,
      hostedAt: record.hostedAt?.getTime() ?? null,
      firstMoveDeadline: record.firstMoveDeadline?.getTime() ?? null,
      firstMoveMs: host.config.firstMoveMs,
      plies: game.moveCount,
      whiteQuotaMs: quotas.whiteQuotaMs,
      blackQuotaMs: quotas.blackQuotaMs,
    },
    now,
  );
  const resumed = clock.snapshot();
  const resumedOk = await store.saveResumedClocks(host.pool, leased.id, record.hostEpoch, {
    whiteMs: resumed.whiteMs,
    blackMs: resumed.blackMs,
    turnStartedAt: clock.running ? new Date(clock.turnStart!) : null,
    firstMoveDeadline: firstMoveDeadline === null ? null : new Date(firstMoveDeadline),
    hostedAt: new Date(now),
  });
  if (!resumedOk) return 'lease_held';
  const state: LiveGameState = {
    id: leased.id,
    white: seats.white,
    black: seats.black,
    rules: { firstMoveMs: host.config.firstMoveMs, drawOfferTtlMs: host.config.drawOfferTtlMs, claimMs: host.config.claimMs },
    game,
    clock,
    status: 'active',
    ending: null,
    abortReason: null,
    ratingChanges: { white: 0, black: 0 },
    firstMoveDeadline,
    offers: offers.map((o) => ({ id: o.id, offeredBy: o.offeredBy, ply: o.ply, expiresAt: o.expiresAt.getTime(), status: o.status })),
    takebacks: takebacks.map((t) => ({ ...t, expiresAt: t.expiresAt.getTime() })),
    arena: record.tournamentId !== null,
    eventSeq: record.eventSeq,
    ...presenceAfterRebuild(record.roomState, now),
  };
  const facts = LiveGameFacts.fromRecord(record, players, moves.map((m) => m.clockMs));
  const answered = keyed.map((k) => {
    const mover = k.ply % 2 === 1 ? state.white.id : state.black.id;
    return { key: k.key, fingerprint: `move:${mover}:${k.uci}`, answer: ok(moveReply(state, k.move, k.position, now)) };
  });
  return { state, epoch: record.hostEpoch, facts, answered };
}

/**
 * DESIGN 2.11 (claim) across a takeover: a player who had joined the game's room before (as the
 * moves' room state recorded it) and has no client in the rebuilt room counts as gone since the
 * rebuild at the latest; one who never joined (a REST client) stays unclaimable.
 */
function presenceAfterRebuild(roomState: Record<string, unknown>, now: number): Pick<LiveGameState, 'presence' | 'joinedSeats'> {
  const recorded = Array.isArray(roomState.joined) ? (roomState.joined as unknown[]) : [];
  const joinedSeats = COLORS.filter((c) => recorded.includes(c));
  if (joinedSeats.length === 0) return {};
  const seat = (color: Color) => (joinedSeats.includes(color) ? { joined: true, goneSince: now } : { joined: false, goneSince: null });
  return { presence: { white: seat('white'), black: seat('black') }, joinedSeats };
}

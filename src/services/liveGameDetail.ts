// A live game's detail view from its actor, without reading PostgreSQL: the same input the
// repository gives formatGameDetail (src/services/gameViews.ts), built from the rules' state and
// the few row facts the actor keeps for it. test/services/liveGameDetail.test.ts holds both
// paths to the same JSON.
import type { GameRecord, PlayerRecord } from '../db/games.ts';
import type { LiveGameState, Write } from '../domain/gameDecider.ts';
import type { DrawOffer } from '../domain/liveGameViews.ts';
import type { DetailInput } from './gameViews.ts';

/** Row facts that do not change while the game is active. */
type FixedFacts = Pick<
  GameRecord,
  'createdBy' | 'timeControl' | 'initialTime' | 'increment' | 'daysPerMove' | 'rated' | 'whiteRating' | 'blackRating' | 'expiresAt'
  | 'createdAt' | 'startedAt' | 'tournamentId' | 'rematchOf'
>;

/**
 * What the detail view shows that the rules do not hold: copied from the row when the game is
 * opened, then kept up to date by the writes that change it in the row (moves: last_move_at;
 * draw offers, takebacks: updated_at), with the times those writes store. Per move only a number is kept
 * (the mover's clock): a live game's memory counts, the rest of a move is in its ChessGame.
 */
export class LiveGameFacts {
  private constructor(
    private readonly fixed: FixedFacts,
    readonly white: PlayerRecord,
    readonly black: PlayerRecord,
    /** The mover's clock after each move (ms), by ply − 1. */
    private readonly moveClocks: number[],
    private updatedAt: number,
    private lastMoveAt: number | null,
  ) {}

  static fromRecord(r: GameRecord, players: { white: PlayerRecord; black: PlayerRecord }, moveClocks: number[]): LiveGameFacts {
    const fixed: FixedFacts = {
      createdBy: r.createdBy,
      timeControl: r.timeControl,
      initialTime: r.initialTime,
      increment: r.increment,
      daysPerMove: r.daysPerMove,
      rated: r.rated,
      whiteRating: r.whiteRating,
      blackRating: r.blackRating,
      expiresAt: r.expiresAt,
      createdAt: r.createdAt,
      startedAt: r.startedAt,
      tournamentId: r.tournamentId,
      rematchOf: r.rematchOf ?? null,
    };
    return new LiveGameFacts(fixed, players.white, players.black, moveClocks, r.updatedAt.getTime(), r.lastMoveAt?.getTime() ?? null);
  }

  /** A write landed at `at` (the time it stored): the row changed as it did. */
  written(write: Write, at: number): void {
    switch (write.kind) {
      case 'move':
        this.moveClocks.push(write.move.clockMs);
        this.lastMoveAt = at;
        return;
      case 'open_offer':
      case 'close_offer':
      case 'open_takeback':
      case 'close_takeback':
        this.updatedAt = at;
        return;
      case 'take_back':
        // The board last changed then: the row's last_move_at says the takeback's time too.
        this.moveClocks.length = write.toPly;
        this.updatedAt = at;
        this.lastMoveAt = at;
        return;
      case 'finish':
        // The game leaves the live read path (only active games take it).
        return;
    }
  }

  /** The detail of `live` as of `now`, as the repository would give it (src/db/games.ts findGameDetail). */
  detail(live: { readonly state: LiveGameState; readonly drawOffer: DrawOffer | null }, now: number): DetailInput {
    const s = live.state;
    const snap = s.clock.snapshot();
    const turnStart = s.clock.turnStart;
    const f = this.fixed;
    const pending = live.drawOffer;
    return {
      game: {
        id: s.id,
        white: this.white,
        black: this.black,
        whiteId: s.white.id,
        blackId: s.black.id,
        createdBy: f.createdBy,
        status: 'active',
        result: null,
        winner: null,
        termination: null,
        abortReason: null,
        timeControl: f.timeControl,
        initialTime: f.initialTime,
        increment: f.increment,
        daysPerMove: f.daysPerMove,
        rated: f.rated,
        fen: s.game.fen,
        pgn: s.game.movetext,
        moveCount: s.game.moveCount,
        // As stored: the clocks as of the start of the running turn, which the view charges up to now.
        whiteTimeMs: snap.whiteMs,
        blackTimeMs: snap.blackMs,
        clockRunning: s.clock.running,
        turnStartedAt: turnStart === null ? null : new Date(turnStart),
        whiteRating: f.whiteRating,
        blackRating: f.blackRating,
        whiteRatingChange: null,
        blackRatingChange: null,
        eventSeq: s.eventSeq,
        expiresAt: f.expiresAt,
        createdAt: f.createdAt,
        // The repository reports the later of updated_at and last_move_at (migration 016).
        updatedAt: new Date(Math.max(this.updatedAt, this.lastMoveAt ?? this.updatedAt)),
        startedAt: f.startedAt,
        lastMoveAt: this.lastMoveAt === null ? null : new Date(this.lastMoveAt),
        tournamentId: f.tournamentId,
        rematchOf: f.rematchOf,
      },
      moves: s.game.sanList.map((san, i) => ({ ply: i + 1, san, clockMs: this.moveClocks[i] })),
      // An offer past its deadline is lapsing (its timer closes it): the repository leaves it out too.
      drawOffer:
        pending && pending.expiresAt > now
          ? { id: pending.id, offeredBy: pending.offeredBy, status: 'pending', expiresAt: new Date(pending.expiresAt) }
          : undefined,
    };
  }
}

// Arena scoring, as Lichess scores its arenas (DESIGN 2.10). Pure: the tournament actor folds
// each counted game into the two players' records with `scoreGame`, in the order games end.
import type { Color } from './game.ts';

export type ArenaOutcome = 'win' | 'draw' | 'loss';

/** A player's record in one arena: what the standings show, and what scoring needs. */
export type ArenaRecord = {
  score: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
  /** Consecutive wins up to now. */
  streak: number;
  /** Sum of the opponents' ratings at each counted game's start. */
  opponentRatingSum: number;
};

export const EMPTY_RECORD: ArenaRecord = { score: 0, games: 0, wins: 0, draws: 0, losses: 0, streak: 0, opponentRatingSum: 0 };

/** Two wins in a row and a player is on fire: the next games score double until one is not a win. */
export const FIRE_AFTER_WINS = 2;
const POINTS: Record<ArenaOutcome, number> = { win: 2, draw: 1, loss: 0 };

export const onFire = (r: Pick<ArenaRecord, 'streak'>) => r.streak >= FIRE_AFTER_WINS;

/** The points a game scores: win 2, draw 1, loss 0, doubled while the player is on fire. */
export function pointsFor(r: Pick<ArenaRecord, 'streak'>, outcome: ArenaOutcome): number {
  return POINTS[outcome] * (onFire(r) ? 2 : 1);
}

/**
 * The record after one more counted game. Anything but a win (a draw on fire too, which still
 * scores 2) puts the fire out.
 */
export function scoreGame(r: ArenaRecord, outcome: ArenaOutcome, opponentRating: number): { record: ArenaRecord; points: number } {
  const points = pointsFor(r, outcome);
  return {
    points,
    record: {
      score: r.score + points,
      games: r.games + 1,
      wins: r.wins + (outcome === 'win' ? 1 : 0),
      draws: r.draws + (outcome === 'draw' ? 1 : 0),
      losses: r.losses + (outcome === 'loss' ? 1 : 0),
      streak: outcome === 'win' ? r.streak + 1 : 0,
      opponentRatingSum: r.opponentRatingSum + opponentRating,
    },
  };
}

/** round(mean opponent rating + 500 × (wins − losses) / games); null before the first game. */
export function performanceRating(r: Pick<ArenaRecord, 'games' | 'wins' | 'losses' | 'opponentRatingSum'>): number | null {
  if (r.games === 0) return null;
  return Math.round((r.opponentRatingSum + 500 * (r.wins - r.losses)) / r.games);
}

/** How a finished game went for the player of `color` (winner null: a draw). */
export function outcomeFor(winner: Color | null, color: Color): ArenaOutcome {
  if (winner === null) return 'draw';
  return winner === color ? 'win' : 'loss';
}

/**
 * Who failed to move in a game aborted for want of a first move: White when no move was made,
 * else Black (the deadline applies to each side's first move only).
 */
export const didNotMove = (moveCount: number): Color => (moveCount === 0 ? 'white' : 'black');

/** What the standings are ordered by. */
export type Ranked = { userId: string; score: number; performance: number | null; joinedAt: number };

/**
 * Standings order: score, then performance (none after any number), then earlier join (then the
 * user id, so the order is total). Ranks are 1..n in this order; ties get distinct ranks.
 */
export function compareStandings(a: Ranked, b: Ranked): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.performance !== b.performance) {
    if (a.performance === null) return 1;
    if (b.performance === null) return -1;
    return b.performance - a.performance;
  }
  if (a.joinedAt !== b.joinedAt) return a.joinedAt - b.joinedAt;
  return a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0;
}

/** One counted game as the standings see it: the players, the winner, the ratings at its start. */
export type CountedGame = {
  whiteId: string;
  blackId: string;
  winner: Color | null;
  whiteRating: number;
  blackRating: number;
};

/**
 * Standings recomputed from scratch: every counted game folded in the order the games ended.
 * The actor keeps the rows up to date game by game; this is what they must always equal.
 */
export function recompute(players: readonly string[], games: readonly CountedGame[]): Map<string, ArenaRecord> {
  const records = new Map(players.map((id) => [id, EMPTY_RECORD]));
  for (const g of games) {
    const white = records.get(g.whiteId) ?? EMPTY_RECORD;
    const black = records.get(g.blackId) ?? EMPTY_RECORD;
    records.set(g.whiteId, scoreGame(white, outcomeFor(g.winner, 'white'), g.blackRating).record);
    records.set(g.blackId, scoreGame(black, outcomeFor(g.winner, 'black'), g.whiteRating).record);
  }
  return records;
}

/** A game that ended, as counting sees it. */
export type EndedGame = CountedGame & {
  gameId: string;
  /** When it ended: both players wait for their next game from then. */
  endedAt: number;
  /** Aborted (it scores nothing); `nonMover` let the first-move deadline pass, when that was why. */
  aborted: { nonMover: Color | null } | null;
};

/** The outcome of counting a batch of ended games. */
export type Counting = {
  /** The records of the players whose games were counted, and since when they wait. */
  records: Map<string, ArenaRecord & { waitingSince: number }>;
  /** Each game's points, White's and Black's (null: it scored nothing, aborted). */
  points: Array<{ gameId: string; white: number | null; black: number | null }>;
  /** Players to withdraw: they did not make their first move. */
  withdraw: string[];
};

/**
 * Folds ended games, in the order they ended, into the players' records: what the actor writes
 * in the one transaction that marks them counted. A game whose player has no record (cannot
 * happen while the tournament runs: a record is only deleted before the start) scores nothing.
 */
export function countEnded(records: ReadonlyMap<string, ArenaRecord>, games: readonly EndedGame[]): Counting {
  const out: Counting = { records: new Map(), points: [], withdraw: [] };
  const current = (id: string) => out.records.get(id) ?? records.get(id);
  for (const g of games) {
    const white = current(g.whiteId);
    const black = current(g.blackId);
    if (!white || !black || g.aborted) {
      out.points.push({ gameId: g.gameId, white: null, black: null });
      if (g.aborted?.nonMover) out.withdraw.push(g.aborted.nonMover === 'white' ? g.whiteId : g.blackId);
      if (white) out.records.set(g.whiteId, { ...white, waitingSince: g.endedAt });
      if (black) out.records.set(g.blackId, { ...black, waitingSince: g.endedAt });
      continue;
    }
    const w = scoreGame(white, outcomeFor(g.winner, 'white'), g.blackRating);
    const b = scoreGame(black, outcomeFor(g.winner, 'black'), g.whiteRating);
    out.records.set(g.whiteId, { ...w.record, waitingSince: g.endedAt });
    out.records.set(g.blackId, { ...b.record, waitingSince: g.endedAt });
    out.points.push({ gameId: g.gameId, white: w.points, black: b.points });
  }
  return out;
}

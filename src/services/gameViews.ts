// What the REST API shows of a game: the interface's list and detail views (spec 2.1-2.6) and
// the full PGN export, built from repository records. Pure: the caller passes `now`.

import { z } from 'zod';
import type { DrawOfferRecord, GameRecord, GameWithPlayers, MoveRecord, PlayerRecord, RematchRecord } from '../db/games.ts';
import { COLORS, RESULTS, TERMINATIONS, type Color } from '../domain/game.ts';
import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import type { GameAnalysis } from '../domain/gameAnalysis.ts';
import type { Opening } from '../domain/openings.ts';
import { formatEval, formatPgn } from '../domain/pgn.ts';
import { DRAW_OFFER_STATUSES, GAME_STATUSES } from '../domain/statuses.ts';
import { TIME_CONTROLS } from '../domain/timeControl.ts';
import { defaultAvatarUrl } from './users.ts';

export const ABORT_REASONS = ['expired', 'declined', 'cancelled', 'no_first_move', 'aborted'] as const;
/** Which way a pending game points, seen by the caller: created by them or sent to them. */
export const PENDING_DIRECTIONS = ['incoming', 'outgoing'] as const;
export type PendingDirection = (typeof PENDING_DIRECTIONS)[number];

/**
 * `schema` or null. Not `.nullable()`: the OpenAPI document names these shapes (Player, DrawOffer…),
 * and a union keeps the name for the shape and the null beside it (`anyOf: [$ref, null]`).
 */
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC' });
const clockSeconds = z.number().meta({ description: 'seconds, millisecond precision' });

export const PlayerView = z.object({
  id: z.uuid(),
  username: z.string(),
  rating: z.number().int().meta({ description: "rating in the game's category when it started (current rating while pending)" }),
  avatar_url: z.string(),
  country: z.string().nullable(),
  title: z.literal('BOT').optional().meta({ description: 'BOT for a bot account (the computer included), absent otherwise' }),
});
export type PlayerView = z.infer<typeof PlayerView>;
export const ListPlayerView = PlayerView.omit({ country: true });
export type ListPlayerView = z.infer<typeof ListPlayerView>;

export const MoveRowView = z.object({
  number: z.number().int(),
  white: z.string(),
  black: z.string().nullable(),
  white_time: clockSeconds,
  black_time: clockSeconds.nullable(),
});
export type MoveRowView = z.infer<typeof MoveRowView>;

export const DrawOfferView = z.object({
  id: z.uuid(),
  offered_by: z.uuid(),
  status: z.enum(DRAW_OFFER_STATUSES),
  expires_at: isoTime,
});
export type DrawOfferView = z.infer<typeof DrawOfferView>;

export const REMATCH_STATUSES = ['pending', 'accepted', 'declined', 'cancelled', 'expired'] as const;
export const RematchView = z.object({
  game_id: z.uuid().meta({ description: 'the rematch: a challenge, then a game of its own once accepted' }),
  offered_by: z.uuid(),
  status: z.enum(REMATCH_STATUSES),
});
export type RematchView = z.infer<typeof RematchView>;
export const TakebackView = z.object({
  id: z.uuid(),
  offered_by: z.uuid(),
  plies: z.union([z.literal(1), z.literal(2)]).meta({ description: "1: the proposer's last move; 2: their last move and the reply" }),
  status: z.enum(DRAW_OFFER_STATUSES),
  expires_at: isoTime,
});
export type TakebackView = z.infer<typeof TakebackView>;

export const RatingChanges = z.object({ white: z.number().int(), black: z.number().int() });
export type RatingChanges = z.infer<typeof RatingChanges>;

/** A game's time control, as the list and the detail both show it. */
const timeControlFields = {
  time_control: z.enum(TIME_CONTROLS),
  initial_time: z.number().int().meta({ description: '0 for a correspondence game' }),
  increment: z.number().int().meta({ description: '0 for a correspondence game' }),
  days_per_move: z.number().int().nullable().meta({ description: 'correspondence games: the days each move may take; null otherwise' }),
};

export const GameListItem = z.object({
  id: z.uuid(),
  // A seek waiting for an opponent (listed with status=pending) has one seat empty.
  white_player: orNull(ListPlayerView),
  black_player: orNull(ListPlayerView),
  status: z.enum(GAME_STATUSES),
  ...timeControlFields,
  current_turn: z.enum(COLORS),
  move_count: z.number().int().meta({ description: 'half-moves played' }),
  fen: z.string(),
  pgn: z.string().meta({ description: 'PGN movetext' }),
  white_time_remaining: clockSeconds,
  black_time_remaining: clockSeconds,
  created_at: isoTime,
  updated_at: isoTime,
  // Beyond the interface's list view: a list of games is read to show who won (a player's games,
  // a web app's "my games"), which would otherwise take one GET /games/{id} per row.
  result: z.enum(RESULTS).nullable().meta({ description: 'as in the detail view: null until the game is finished' }),
  winner: z.enum(COLORS).nullable(),
  tournament_id: z.uuid().nullable().meta({ description: 'the arena that paired the game, else null' }),
  direction: z.enum(PENDING_DIRECTIONS).optional().meta({
    description:
      'pending games only (status=pending), absent on every other: outgoing when the caller created the game ' +
      '(a challenge sent, their own open seek), incoming for a challenge sent to the caller',
  }),
});
export type GameListItem = z.infer<typeof GameListItem>;

export const GameDetail = z.object({
  id: z.uuid(),
  white_player: orNull(PlayerView),
  black_player: orNull(PlayerView),
  status: z.enum(GAME_STATUSES),
  result: z.enum(RESULTS).nullable(),
  winner: z.enum(COLORS).nullable(),
  termination: z.enum(TERMINATIONS).nullable(),
  ...timeControlFields,
  rated: z.boolean(),
  current_turn: z.enum(COLORS),
  move_count: z.number().int(),
  fen: z.string(),
  pgn: z.string(),
  white_time_remaining: clockSeconds,
  black_time_remaining: clockSeconds,
  moves: z.array(MoveRowView),
  last_move_at: isoTime.nullable(),
  created_at: isoTime,
  updated_at: isoTime,
  abort_reason: z.enum(ABORT_REASONS).nullable(),
  rating_changes: orNull(RatingChanges).meta({ description: 'set once the game is finished (0/0 when unrated)' }),
  draw_offer: orNull(DrawOfferView),
  expires_at: isoTime.nullable().meta({ description: 'when a pending game lapses; null otherwise' }),
  tournament_id: z.uuid().nullable().meta({ description: 'the arena that paired the game, else null' }),
  rematch_of: z.uuid().nullable().meta({ description: 'the finished game this one is a rematch of (DESIGN 2.11), else null' }),
  rematch: orNull(RematchView).meta({ description: 'a finished game: the rematch asked for after it, else null' }),
});
export type GameDetail = z.infer<typeof GameDetail>;

export const PendingGameView = z.object({
  id: z.uuid(),
  status: z.literal('pending'),
  expires_at: isoTime,
  invite_url: z.string(),
});
export type PendingGameView = z.infer<typeof PendingGameView>;
/** POST /games/{id}/rematch: the pending challenge, which names the game it is a rematch of. */
export const PendingRematchView = PendingGameView.extend({ rematch_of: z.uuid() });
export type PendingRematchView = z.infer<typeof PendingRematchView>;

// What the live room answers (src/services/gameActor.ts); REST passes it on unchanged.
export const MoveView = z.object({
  from: z.string(),
  to: z.string(),
  san: z.string(),
  piece: z.string(),
  captured: z.string().nullable(),
  promotion: z.string().nullable(),
  flags: z.string(),
});
export const MoveResult = z.object({
  move: MoveView,
  game: z.object({
    status: z.enum(GAME_STATUSES),
    fen: z.string(),
    current_turn: z.enum(COLORS),
    move_count: z.number().int(),
    white_time_remaining: clockSeconds,
    black_time_remaining: clockSeconds,
    in_check: z.boolean(),
    in_checkmate: z.boolean(),
    in_stalemate: z.boolean(),
    in_draw: z.boolean(),
  }),
});
export const GameEndResult = z.object({
  status: z.enum(['finished', 'abandoned']),
  result: z.enum(RESULTS).nullable(),
  winner: z.enum(COLORS).nullable(),
  termination: z.enum(TERMINATIONS).nullable(),
  rating_changes: RatingChanges,
});
export const DrawOfferResult = z.object({
  draw_offer: DrawOfferView,
  // Present when the offer accepted the opponent's pending one and so ended the game.
  ...GameEndResult.partial().shape,
});
export const DrawAnswerResult = z.union([
  GameEndResult,
  z.object({ draw_offer: DrawOfferView, status: z.literal('active') }),
]);

export const TakebackOfferResult = z.object({ takeback: TakebackView });
export const TakebackAnswerResult = z.object({
  takeback: TakebackView,
  game: z
    .object({
      status: z.literal('active'),
      fen: z.string(),
      current_turn: z.enum(COLORS),
      move_count: z.number().int(),
      white_time_remaining: clockSeconds,
      black_time_remaining: clockSeconds,
    })
    .optional()
    .meta({ description: 'accepted only: the game as the takeback leaves it' }),
});

/** What a live game answers each player command with: REST's `data`, the socket's `<command>:ok`. */
export type CommandAnswers = {
  move: z.infer<typeof MoveResult>;
  resign: z.infer<typeof GameEndResult>;
  offer_draw: z.infer<typeof DrawOfferResult>;
  answer_draw: z.infer<typeof DrawAnswerResult>;
  abort: z.infer<typeof GameEndResult>;
  claim: z.infer<typeof GameEndResult>;
  offer_takeback: z.infer<typeof TakebackOfferResult>;
  answer_takeback: z.infer<typeof TakebackAnswerResult>;
  /** A player's chat message as the game hears it (src/services/gameCommands.ts `noteChat`): nothing to answer. */
  chat: null;
};

// ---- formatting --------------------------------------------------------------------------

export type ViewEnv = { publicUrl: string; now: number };

/** Seconds with millisecond precision, the unit of every clock field of the API. */
export const toSeconds = (ms: number) => Math.round(ms) / 1000;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const sideToMove = (fen: string): Color => (fen.split(' ')[1] === 'b' ? 'black' : 'white');

export const inviteUrl = (publicUrl: string, gameId: string) => `${publicUrl}/play/${gameId}`;

/**
 * Clocks as of `now` (ms): the stored values are as of the start of the current turn, so the
 * side to move is charged the time since, while its clock runs.
 */
export function liveClocks(
  g: Pick<GameRecord, 'whiteTimeMs' | 'blackTimeMs' | 'status' | 'clockRunning' | 'turnStartedAt' | 'fen'>,
  now: number,
): Record<Color, number> {
  const clocks = { white: g.whiteTimeMs, black: g.blackTimeMs };
  if (g.status === 'active' && g.clockRunning && g.turnStartedAt) {
    const turn = sideToMove(g.fen);
    clocks[turn] = Math.max(0, clocks[turn] - Math.max(0, now - g.turnStartedAt.getTime()));
  }
  return clocks;
}

/**
 * Ratings shown for the players: at game start once seated in an active game, the current
 * rating of the category while the game is pending (`current`, by user id).
 */
function ratingOf(g: DetailGame, color: Color, current: ReadonlyMap<string, number> | undefined): number {
  const stored = color === 'white' ? g.whiteRating : g.blackRating;
  const id = color === 'white' ? g.whiteId : g.blackId;
  if (g.status !== 'pending' && stored !== null) return stored;
  return (id ? current?.get(id) : undefined) ?? stored ?? DEFAULT_GLICKO.rating;
}

function formatPlayer(p: PlayerRecord | null, rating: number, publicUrl: string): PlayerView | null {
  if (!p) return null;
  return {
    id: p.id,
    username: p.username,
    rating,
    avatar_url: p.avatarUrl || defaultAvatarUrl(publicUrl, p.id),
    country: p.country ?? null,
    ...(p.bot ? { title: 'BOT' as const } : {}),
  };
}

function withoutCountry(p: PlayerView | null): ListPlayerView | null {
  if (!p) return null;
  const { country: _country, ...rest } = p;
  return rest;
}

/** Game moves (by ply) → rows of the move table, White and Black side by side. */
export function formatMoveRows(moves: readonly DetailMove[]): MoveRowView[] {
  const rows: MoveRowView[] = [];
  for (const m of moves) {
    const index = Math.floor((m.ply - 1) / 2);
    if (m.ply % 2 === 1) {
      rows[index] = { number: index + 1, white: m.san, black: null, white_time: toSeconds(m.clockMs), black_time: null };
    } else if (rows[index]) {
      rows[index].black = m.san;
      rows[index].black_time = toSeconds(m.clockMs);
    }
  }
  return rows.filter(Boolean);
}

export function formatDrawOffer(o: DetailDrawOffer): DrawOfferView {
  return { id: o.id, offered_by: o.offeredBy, status: o.status, expires_at: o.expiresAt.toISOString() };
}

/** A game's time control as the list and the detail show it (timeControlFields). */
const formatTimeControl = (g: Pick<GameRecord, 'timeControl' | 'initialTime' | 'increment' | 'daysPerMove'>) => ({
  time_control: g.timeControl,
  initial_time: g.initialTime,
  increment: g.increment,
  days_per_move: g.daysPerMove,
});

/**
 * A list row as `viewerId` sees it; `ratings` are the current ratings (by user id) in the game's
 * category, shown while the game is pending.
 */
export function formatGameListItem(
  g: GameWithPlayers,
  env: ViewEnv,
  viewerId: string,
  ratings?: ReadonlyMap<string, number>,
): GameListItem {
  const clocks = liveClocks(g, env.now);
  const direction: PendingDirection | undefined =
    g.status === 'pending' ? (g.createdBy === viewerId ? 'outgoing' : 'incoming') : undefined;
  return {
    id: g.id,
    white_player: withoutCountry(formatPlayer(g.white, ratingOf(g, 'white', ratings), env.publicUrl)),
    black_player: withoutCountry(formatPlayer(g.black, ratingOf(g, 'black', ratings), env.publicUrl)),
    status: g.status,
    ...formatTimeControl(g),
    current_turn: sideToMove(g.fen),
    move_count: g.moveCount,
    fen: g.fen,
    pgn: g.pgn,
    white_time_remaining: toSeconds(clocks.white),
    black_time_remaining: toSeconds(clocks.black),
    created_at: g.createdAt.toISOString(),
    updated_at: g.updatedAt.toISOString(),
    result: g.result,
    winner: g.winner,
    tournament_id: g.tournamentId ?? null,
    ...(direction ? { direction } : {}),
  };
}

/**
 * What the detail view and the PGN export read of a game: a repository record, or the live game's
 * own copy (src/services/liveGameDetail.ts), which must be the same for the same game.
 */
export type DetailGame = Pick<
  GameWithPlayers,
  | 'id' | 'white' | 'black' | 'whiteId' | 'blackId' | 'createdBy' | 'status' | 'result' | 'winner' | 'termination'
  | 'abortReason' | 'timeControl' | 'initialTime' | 'increment' | 'daysPerMove' | 'rated' | 'fen' | 'pgn' | 'moveCount'
  | 'whiteTimeMs' | 'blackTimeMs' | 'clockRunning' | 'turnStartedAt' | 'whiteRating' | 'blackRating'
  | 'whiteRatingChange' | 'blackRatingChange' | 'eventSeq' | 'expiresAt' | 'createdAt' | 'updatedAt' | 'startedAt'
  | 'lastMoveAt' | 'tournamentId' | 'rematchOf'
>;
export type DetailMove = Pick<MoveRecord, 'ply' | 'san' | 'clockMs'>;
export type DetailDrawOffer = Pick<DrawOfferRecord, 'id' | 'offeredBy' | 'status' | 'expiresAt'>;

export type DetailInput = {
  game: DetailGame;
  moves: readonly DetailMove[];
  drawOffer: DetailDrawOffer | undefined;
  /** A finished game's rematch (the repository's read only: a live game has none). */
  rematch?: RematchRecord;
  /** Current category ratings by user id; used while the game is pending. */
  ratings?: ReadonlyMap<string, number>;
};

export function formatGameDetail({ game: g, moves, drawOffer, rematch, ratings }: DetailInput, env: ViewEnv): GameDetail {
  const clocks = liveClocks(g, env.now);
  return {
    id: g.id,
    white_player: formatPlayer(g.white, ratingOf(g, 'white', ratings), env.publicUrl),
    black_player: formatPlayer(g.black, ratingOf(g, 'black', ratings), env.publicUrl),
    status: g.status,
    result: g.result,
    winner: g.winner,
    termination: g.termination as GameDetail['termination'],
    ...formatTimeControl(g),
    rated: g.rated,
    current_turn: sideToMove(g.fen),
    move_count: g.moveCount,
    fen: g.fen,
    pgn: g.pgn,
    white_time_remaining: toSeconds(clocks.white),
    black_time_remaining: toSeconds(clocks.black),
    moves: formatMoveRows(moves),
    last_move_at: iso(g.lastMoveAt),
    created_at: g.createdAt.toISOString(),
    updated_at: g.updatedAt.toISOString(),
    abort_reason: g.abortReason as GameDetail['abort_reason'],
    rating_changes:
      g.status === 'finished' ? { white: g.whiteRatingChange ?? 0, black: g.blackRatingChange ?? 0 } : null,
    draw_offer: g.status === 'active' && drawOffer ? formatDrawOffer(drawOffer) : null,
    expires_at: g.status === 'pending' ? iso(g.expiresAt) : null,
    tournament_id: g.tournamentId ?? null,
    rematch_of: g.rematchOf ?? null,
    rematch: rematch ? formatRematch(rematch, env.now) : null,
  };
}

/** How a rematch stands, from its game: pending until answered or lapsed; accepted once it started. */
export function formatRematch(r: RematchRecord, now: number): RematchView {
  const lapsed = (r.status === 'pending' && r.expiresAt !== null && r.expiresAt.getTime() <= now) || r.abortReason === 'expired';
  const status: RematchView['status'] = lapsed
    ? 'expired'
    : r.status === 'pending'
      ? 'pending'
      : r.abortReason === 'declined' || r.abortReason === 'cancelled'
        ? r.abortReason
        : 'accepted';
  return { game_id: r.gameId, offered_by: r.offeredBy, status };
}

export function formatPendingGame(g: GameRecord, publicUrl: string): PendingGameView {
  return { id: g.id, status: 'pending', expires_at: g.expiresAt!.toISOString(), invite_url: inviteUrl(publicUrl, g.id) };
}

/** PGN's Termination tag: the game's ending, or the standard words for games without one. */
function pgnTermination(g: DetailGame): string {
  if (g.termination) return g.termination;
  return g.status === 'abandoned' ? 'abandoned' : 'unterminated';
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/**
 * What a PGN export adds beyond the game (GET /games/{id}/pgn and the export take the same
 * options, DESIGN 2.12): clock comments, the analysis's evaluations, the opening's tags.
 */
export type PgnExtras = {
  /** `[%clk]` after each move (default true). */
  clocks?: boolean;
  /** The game's analysis when done: `[%eval]` after each move. */
  analysis?: GameAnalysis | null;
  /** The game's opening: `ECO` and `Opening` tags. */
  opening?: Opening | null;
};

/** The analysis's evaluation after each ply (index 0 = White's first move), formatted for `[%eval]`. */
export function pgnEvals(analysis: GameAnalysis): (string | null)[] {
  const evals: (string | null)[] = [];
  for (const row of analysis.moves) {
    for (const move of [row.white, row.black]) {
      if (move) evals.push(formatEval(move.evaluation, move.mate));
    }
  }
  return evals;
}

/** A game as its PGN needs it: the SAN and the mover's clock after each ply, in ply order. */
export type PgnGame = Pick<DetailInput, 'game' | 'ratings'> & { sans: readonly string[]; clocks: readonly number[] };

/** A game's moves as PgnGame wants them. */
export const pgnLine = (moves: readonly DetailMove[]) => ({ sans: moves.map((m) => m.san), clocks: moves.map((m) => m.clockMs) });

/** The full PGN export: Seven Tag Roster, ratings, time control, opening, termination and comments. */
export function formatGamePgn({ game: g, sans, clocks, ratings }: PgnGame, publicUrl: string, extras: PgnExtras = {}): string {
  const finishedRated = g.status === 'finished' && g.rated;
  const tags: Record<string, string> = {};
  if (finishedRated && g.whiteRatingChange !== null && g.blackRatingChange !== null) {
    tags.WhiteRatingDiff = signed(g.whiteRatingChange);
    tags.BlackRatingDiff = signed(g.blackRatingChange);
  }
  // PGN's "moves/seconds" form: one move in the period, for correspondence.
  const perMove = g.daysPerMove !== null ? `1/${g.daysPerMove * 86_400}` : null;
  if (perMove) tags.TimeControl = perMove;
  if (extras.opening) {
    tags.ECO = extras.opening.eco;
    tags.Opening = extras.opening.name;
  }
  const seated = (color: Color) => (color === 'white' ? g.whiteId : g.blackId) !== null;
  return formatPgn({
    event: `${g.rated ? 'Rated' : 'Casual'} ${g.timeControl} game`,
    site: inviteUrl(publicUrl, g.id),
    date: g.startedAt ?? g.createdAt,
    white: g.white?.username ?? '?',
    black: g.black?.username ?? '?',
    result: g.result ?? '*',
    whiteElo: seated('white') ? ratingOf(g, 'white', ratings) : null,
    blackElo: seated('black') ? ratingOf(g, 'black', ratings) : null,
    initialTime: perMove ? undefined : g.initialTime,
    increment: perMove ? undefined : g.increment,
    termination: pgnTermination(g),
    tags,
    sanList: sans,
    clocks: extras.clocks === false ? undefined : clocks,
    evals: extras.analysis ? pgnEvals(extras.analysis) : undefined,
  });
}

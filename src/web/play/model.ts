// One shape for a game on the page, whichever way it arrives: a player's room state (Colyseus),
// or a spectator's realtime channel messages (the stream's `state`, `move`, `time_update`,
// `draw_offer`, `game_end`).

import { Chess } from 'chess.js';
import type { ChannelMessage } from '../realtime.ts';
import type { Color, DrawOffer, GameDetail, GameEndResult, GameStatus, RatingChanges, Rematch, Takeback, TimeControl } from '../types/api.ts';
import { remainingMs, type ClockState } from './clock.ts';

export type Side = { id: string; username: string; rating: number; connected?: boolean };

export type GameModel = {
  id: string;
  status: GameStatus;
  fen: string;
  turn: Color;
  sans: string[];
  lastMove?: { from: string; to: string };
  white?: Side;
  black?: Side;
  clock: ClockState;
  drawOffer?: { id: string; offeredBy: string };
  result?: string | null;
  winner?: Color | null;
  termination?: string | null;
  abortReason?: string | null;
  ratingChanges?: RatingChanges | null;
  /** `days`: a correspondence game's days per move (its initial and increment are 0). */
  timeControl: { initial: number; increment: number; category: TimeControl; rated: boolean; days?: number | null };
  /** The arena that paired the game, if one did. */
  tournamentId?: string | null;
  /** A finished game's rematch, once someone asked. */
  rematch?: Rematch | null;
  /** The pending takeback proposal. */
  takebackOffer?: { id: string; offeredBy: string; plies: number };
  /** From when (server ms) each side's opponent may claim the game, that side having left; 0 while it is there. */
  claimableAt: { white: number; black: number };
  /**
   * When (server ms) the side to move must have made its first move, or the game is aborted; 0
   * when there is none to show. Only the room's state carries it (a player's page).
   */
  firstMoveDeadline: number;
};

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** The last move's squares, found by replaying the game (the detail lists SAN only). */
function lastMoveOf(sans: string[]): { from: string; to: string } | undefined {
  if (!sans.length) return undefined;
  const chess = new Chess();
  try {
    for (const san of sans) chess.move(san);
  } catch {
    return undefined;
  }
  const last = chess.history({ verbose: true }).at(-1);
  return last ? { from: last.from, to: last.to } : undefined;
}

const side = (p: GameDetail['white_player']): Side | undefined => (p ? { id: p.id, username: p.username, rating: p.rating } : undefined);

/** A game detail (the channel's `state`, or GET /games/{id}) as seen at server time `ts`. */
export function fromDetail(g: GameDetail, ts: number): GameModel {
  const sans = g.moves.flatMap((row) => (row.black ? [row.white, row.black] : [row.white]));
  return {
    id: g.id,
    status: g.status,
    fen: g.fen || START,
    turn: g.current_turn,
    sans,
    lastMove: lastMoveOf(sans),
    white: side(g.white_player),
    black: side(g.black_player),
    // Clocks start with Black's first move (DESIGN 2.4).
    clock: {
      whiteMs: g.white_time_remaining * 1000,
      blackMs: g.black_time_remaining * 1000,
      running: g.status === 'active' && g.move_count >= 2,
      turn: g.current_turn,
      since: ts,
    },
    drawOffer: g.draw_offer?.status === 'pending' ? { id: g.draw_offer.id, offeredBy: g.draw_offer.offered_by } : undefined,
    result: g.result,
    winner: g.winner,
    termination: g.termination,
    abortReason: g.abort_reason,
    ratingChanges: g.rating_changes,
    timeControl: { initial: g.initial_time, increment: g.increment, category: g.time_control, rated: g.rated, days: g.days_per_move },
    tournamentId: g.tournament_id,
    rematch: g.rematch,
    claimableAt: { white: 0, black: 0 },
    firstMoveDeadline: 0,
  };
}

type Times = { white: number; black: number };

/** A channel message applied to the game; `state` replaces it. */
export function applyChannel(game: GameModel, m: ChannelMessage): GameModel {
  const ts = typeof m.ts === 'number' ? m.ts : Date.now();
  const withTimes = (g: GameModel, times: Times | undefined): GameModel =>
    times ? { ...g, clock: { ...g.clock, whiteMs: times.white * 1000, blackMs: times.black * 1000, since: ts, turn: g.turn } } : g;
  switch (m.type) {
    case 'state':
      return fromDetail(m.game as GameDetail, ts);
    case 'move': {
      const move = m.move as { from: string; to: string; san: string; ply: number; fen: string; current_turn: Color };
      const next: GameModel = {
        ...game,
        fen: move.fen,
        turn: move.current_turn,
        sans: [...game.sans.slice(0, move.ply - 1), move.san],
        lastMove: { from: move.from, to: move.to },
        clock: { ...game.clock, running: game.status === 'active' && move.ply >= 2 },
      };
      return withTimes(next, m.times as Times | undefined);
    }
    case 'time_update':
      return withTimes(game, m.times as Times | undefined);
    case 'draw_offer': {
      const offer = m.draw_offer as DrawOffer;
      return { ...game, drawOffer: offer.status === 'pending' ? { id: offer.id, offeredBy: offer.offered_by } : undefined };
    }
    case 'takeback_offer': {
      const t = m.takeback as Takeback;
      return { ...game, takebackOffer: t.status === 'pending' ? { id: t.id, offeredBy: t.offered_by, plies: t.plies } : undefined };
    }
    case 'takeback':
      return withTimes(takeBack(game, m as unknown as TakebackEvent), m.times as Times | undefined);
    case 'opponent_gone':
      return { ...game, claimableAt: { ...game.claimableAt, [m.color as Color]: Date.parse(String(m.claimable_at)) } };
    case 'opponent_back':
      return { ...game, claimableAt: { ...game.claimableAt, [m.color as Color]: 0 } };
    case 'rematch_offer':
      return { ...game, rematch: { game_id: String(m.game_id), offered_by: String(m.offered_by), status: 'pending' } };
    case 'game_end': {
      const r = m.result as Omit<GameEndResult, 'status'>;
      return endGame(game, { status: m.status as GameStatus, abort_reason: (m.abort_reason as string | null) ?? null, ...r }, ts);
    }
    default:
      return game; // unknown types are ignored (DESIGN 2.6)
  }
}

export type TakebackEvent = { plies: number; fen: string; move_count: number; current_turn: Color };

/** An accepted takeback (the channel's `takeback`): the moves after `move_count` leave. */
export function takeBack(game: GameModel, e: TakebackEvent): GameModel {
  const sans = game.sans.slice(0, e.move_count);
  return {
    ...game,
    fen: e.fen,
    turn: e.current_turn,
    sans,
    lastMove: lastMoveOf(sans),
    takebackOffer: undefined,
    clock: { ...game.clock, turn: e.current_turn },
  };
}

/**
 * The end of the game (a room's or the channel's `game_end`) at server time `ts`: the running
 * clock stops where it stood then (a flag shows 0:00, a claim the time the absent player had).
 */
export function endGame(
  game: GameModel,
  e: { status: GameStatus; abort_reason?: string | null; result: string | null; winner: Color | null; termination: string | null; rating_changes?: RatingChanges | null },
  ts: number,
): GameModel {
  const stopped = { whiteMs: remainingMs(game.clock, 'white', ts), blackMs: remainingMs(game.clock, 'black', ts) };
  return {
    ...game,
    status: e.status,
    result: e.result,
    winner: e.winner,
    termination: e.termination,
    abortReason: e.abort_reason ?? null,
    ratingChanges: e.rating_changes ?? game.ratingChanges,
    drawOffer: undefined,
    takebackOffer: undefined,
    claimableAt: { white: 0, black: 0 },
    firstMoveDeadline: 0,
    clock: { ...game.clock, ...stopped, running: false, since: ts },
  };
}

/** What the room's state says (rooms/schema/GameState.ts, decoded by the SDK). */
export type RoomState = {
  status: string;
  fen: string;
  turn: string;
  moves: Iterable<string>;
  lastMove: { from: string; to: string; san: string };
  white: { id: string; username: string; rating: number; connected: boolean; remainingMs: number; claimableAt: number };
  black: { id: string; username: string; rating: number; connected: boolean; remainingMs: number; claimableAt: number };
  clockRunning: boolean;
  turnStartedAt: number;
  drawOffer: { id: string; offeredBy: string; expiresAt: number };
  takebackOffer: { id: string; offeredBy: string; plies: number; expiresAt: number };
  result: string;
  winner: string;
  termination: string;
  firstMoveDeadline: number;
};

export function fromRoom(game: GameModel, s: RoomState): GameModel {
  const seat = (p: RoomState['white']): Side => ({ id: p.id, username: p.username, rating: p.rating, connected: p.connected });
  const finished = s.status === 'finished' || s.status === 'abandoned';
  return {
    ...game,
    status: s.status as GameStatus,
    fen: s.fen,
    turn: s.turn as Color,
    sans: [...s.moves],
    lastMove: s.lastMove?.from ? { from: s.lastMove.from, to: s.lastMove.to } : undefined,
    white: seat(s.white),
    black: seat(s.black),
    clock: { whiteMs: s.white.remainingMs, blackMs: s.black.remainingMs, running: s.clockRunning, turn: s.turn as Color, since: s.turnStartedAt },
    drawOffer: s.drawOffer?.id ? { id: s.drawOffer.id, offeredBy: s.drawOffer.offeredBy } : undefined,
    takebackOffer: s.takebackOffer?.id ? { id: s.takebackOffer.id, offeredBy: s.takebackOffer.offeredBy, plies: s.takebackOffer.plies } : undefined,
    claimableAt: { white: s.white.claimableAt ?? 0, black: s.black.claimableAt ?? 0 },
    firstMoveDeadline: s.status === 'active' ? (s.firstMoveDeadline ?? 0) : 0,
    ...(finished
      ? { result: s.result || null, winner: (s.winner || null) as Color | null, termination: s.termination === 'aborted' ? null : s.termination || null }
      : {}),
  };
}

export const colorOf = (game: GameModel, userId: string | undefined): Color | undefined =>
  !userId ? undefined : game.white?.id === userId ? 'white' : game.black?.id === userId ? 'black' : undefined;

const TERMINATION_TEXT: Record<string, string> = {
  checkmate: 'checkmate',
  resignation: 'resignation',
  timeout: 'time',
  agreement: 'agreement',
  stalemate: 'stalemate',
  repetition: 'threefold repetition',
  fifty_moves: 'the fifty-move rule',
  insufficient_material: 'insufficient material',
};

/**
 * A `timeout` that no flag decided: claimed against a player who left the game (DESIGN 2.11).
 * The API says `timeout` for both; a flag leaves the flagged side at 0, a claim both clocks as
 * they were.
 */
export function claimedAgainstAbsent(game: GameModel): boolean {
  if (game.status !== 'finished' || game.termination !== 'timeout' || game.timeControl.category === 'correspondence') return false;
  return game.clock.whiteMs > 0 && game.clock.blackMs > 0;
}

const colorName = (c: Color) => (c === 'white' ? 'White' : 'Black');

/** "White wins by checkmate", "Draw by agreement", "Game aborted: no first move", "White wins: Black left the game". */
export function describeEnd(game: GameModel): string {
  if (game.status === 'abandoned') {
    // `aborted`: a player's abort before both first moves; else the reason (no first move, …).
    return `Game aborted${game.abortReason && game.abortReason !== 'aborted' ? `: ${game.abortReason.replaceAll('_', ' ')}` : ''}`;
  }
  if (claimedAgainstAbsent(game)) {
    if (game.winner) return `${colorName(game.winner)} wins: ${colorName(game.winner === 'white' ? 'black' : 'white')} left the game`;
    return 'Draw: claimed after a player left the game';
  }
  const how = game.termination ? ` by ${TERMINATION_TEXT[game.termination] ?? game.termination.replaceAll('_', ' ')}` : '';
  if (game.winner) return `${game.winner === 'white' ? 'White' : 'Black'} wins${how}`;
  return `Draw${how}`;
}

/**
 * What a message of the user's channel means for the rematch of game `gameId`: the rematch as it
 * now stands, or the new game to go to (it started), or nothing.
 */
export function rematchNews(m: ChannelMessage, gameId: string, current: Rematch | null | undefined): { rematch: Rematch } | { start: string } | undefined {
  if (m.type === 'rematch_offer' && m.rematch_of === gameId) {
    return { rematch: { game_id: String(m.game_id), offered_by: (m.from as { id: string }).id, status: 'pending' } };
  }
  if (!current || m.game_id !== current.game_id) return undefined;
  if (m.type === 'game_started') return { start: current.game_id };
  const status = ({ challenge_declined: 'declined', challenge_cancelled: 'cancelled', challenge_expired: 'expired' } as const)[m.type as string];
  return status ? { rematch: { ...current, status } } : undefined;
}

import { schema, t, type SchemaType } from '@colyseus/schema';

export const PlayerState = schema(
  {
    id: t.string(),
    username: t.string(),
    rating: t.int32(),
    connected: t.boolean(),
    /** Remaining time (ms) at the start of the current turn; count down locally from turnStartedAt. */
    remainingMs: t.int32(),
    /** DESIGN 2.11: the player had joined and has no client here; the opponent may claim from then (Unix ms), else 0. */
    claimableAt: t.float64(),
  },
  'PlayerState',
);
export type PlayerState = SchemaType<typeof PlayerState>;

export const LastMoveState = schema({ from: t.string(), to: t.string(), san: t.string() }, 'LastMoveState');
export type LastMoveState = SchemaType<typeof LastMoveState>;

export const DrawOfferState = schema(
  { id: t.string(), offeredBy: t.string(), expiresAt: t.float64() },
  'DrawOfferState',
);
export type DrawOfferState = SchemaType<typeof DrawOfferState>;

/** The pending takeback proposal; empty strings and zeros when none. */
export const TakebackOfferState = schema(
  { id: t.string(), offeredBy: t.string(), plies: t.uint8(), expiresAt: t.float64() },
  'TakebackOfferState',
);
export type TakebackOfferState = SchemaType<typeof TakebackOfferState>;

export const GameState = schema(
  {
    gameId: t.string(),
    status: t.string(),
    fen: t.string(),
    turn: t.string(),
    moves: t.array('string'),
    lastMove: LastMoveState,
    white: PlayerState,
    black: PlayerState,
    clockRunning: t.boolean(),
    /** Server time (Unix ms) when the current turn began; 0 while the clock does not run. */
    turnStartedAt: t.float64(),
    drawOffer: DrawOfferState,
    result: t.string(),
    winner: t.string(),
    termination: t.string(),
    /** Per-game event number: the `v` of the latest event. */
    eventSeq: t.uint32(),
    takebackOffer: TakebackOfferState,
    /** Server time (Unix ms) by which the side to move must make its first move, else the game is aborted; 0 once both moved (and in correspondence). */
    firstMoveDeadline: t.float64(),
  },
  'GameState',
);
export type GameState = SchemaType<typeof GameState>;

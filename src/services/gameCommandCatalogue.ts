// The game commands a player sends, each declared once (STYLE 15): the payload its socket message
// carries, and the live game's command (src/services/gameActor.ts CommandInput) it becomes, whose
// type names its answer (CommandAnswers: REST's `data`, the socket's `<name>:ok`). Every surface is
// an adapter of this record: the game room registers one handler per entry (rooms/GameRoom.ts),
// REST takes its bodies from the payloads (src/http/routes/games.ts) and hands the room the
// command `actorCommand` makes (src/services/gameCommands.ts). A new command is one entry here and
// its rule in the decider (src/domain/gameDecider.ts).
import { z } from 'zod';
import { CLAIM_RESULTS } from '../domain/gameDecider.ts';
import { oneOf } from '../util/zod.ts';
import type { CommandInput } from './gameActor.ts';
import type { CommandAnswers } from './gameViews.ts';

const square = z.string({ error: 'must be a square such as e4' }).regex(/^[a-h][1-8]$/, 'must be a square such as e4');
const accept = z.boolean({ error: 'must be a boolean' });
/**
 * A socket message's own field (REST has none): an `id`, echoed in the command's answer, which also
 * makes a command resent after a reconnect safe (its key).
 */
export const requestId = z.union([z.string().max(64), z.number().int()]).optional();

/** One command: its socket payload, and the live game's command made of it for the player `userId`. */
const entry = <P extends z.ZodObject, C extends CommandInput>(payload: P, toCommand: (userId: string, payload: z.infer<P>) => C) => ({
  payload,
  toCommand,
});

/**
 * Keyed by the socket message's name (DESIGN 2.11's, which REST's paths follow). A REST body is
 * the payload without the socket's own fields (`id`, a move's `lag`) and the ids its path carries.
 */
export const GAME_COMMANDS = {
  move: entry(
    z.object({
      from: square,
      to: square,
      promotion: oneOf(['q', 'r', 'b', 'n']).nullable().optional().meta({ description: 'required when a pawn reaches the last rank' }),
      /** The client's measured network lag (ms), compensated within Lichess's quota. */
      lag: z.number().min(0).max(60_000).optional(),
      id: requestId,
    }),
    (userId, m) => ({ type: 'move', userId, from: m.from, to: m.to, promotion: m.promotion ?? null, lagMs: m.lag }),
  ),
  resign: entry(z.object({ id: requestId }), (userId) => ({ type: 'resign', userId })),
  offer_draw: entry(z.object({ id: requestId }), (userId) => ({ type: 'offer_draw', userId })),
  answer_draw: entry(z.object({ offer_id: z.string().max(64), accept, id: requestId }), (userId, m) => (
    { type: 'answer_draw', userId, offerId: m.offer_id, accept: m.accept }
  )),
  abort: entry(z.object({ id: requestId }), (userId) => ({ type: 'abort', userId })),
  claim: entry(
    z.object({
      result: oneOf(CLAIM_RESULTS).meta({ description: 'win: the claimant wins on time; draw: the game is drawn' }),
      id: requestId,
    }),
    (userId, m) => ({ type: 'claim', userId, result: m.result }),
  ),
  takeback: entry(z.object({ id: requestId }), (userId) => ({ type: 'offer_takeback', userId })),
  answer_takeback: entry(z.object({ takeback_id: z.string().max(64), accept, id: requestId }), (userId, m) => (
    { type: 'answer_takeback', userId, takebackId: m.takeback_id, accept: m.accept }
  )),
};

type Catalogue = typeof GAME_COMMANDS;
export type GameCommandName = keyof Catalogue;
export const GAME_COMMAND_NAMES = Object.keys(GAME_COMMANDS) as GameCommandName[];
/** What the socket message `N` carries (REST's body and path ids together, and the socket's own fields). */
export type CommandPayload<N extends GameCommandName> = z.infer<Catalogue[N]['payload']>;
/** The live game's command the message `N` becomes. */
export type ActorCommandOf<N extends GameCommandName> = ReturnType<Catalogue[N]['toCommand']>;
/** What the live game answers the message `N` with: REST's `data`, the socket's `<N>:ok`. */
export type AnswerOf<N extends GameCommandName> = CommandAnswers[ActorCommandOf<N>['type']];

/** The catalogue as its names' types read it, so that a generic name finds its own entry. */
const byName: {
  [N in GameCommandName]: {
    payload: z.ZodType<CommandPayload<N>>;
    toCommand: (userId: string, payload: CommandPayload<N>) => ActorCommandOf<N>;
  };
} = GAME_COMMANDS;

/** The schema of the message `name`'s payload. */
export const payloadSchema = <N extends GameCommandName>(name: N): z.ZodType<CommandPayload<N>> => byName[name].payload;

/**
 * The live game's command the player `userId`'s message `name` asks for, timed from `receivedAt`
 * (ms, when the service read it) when given.
 */
export function actorCommand<N extends GameCommandName>(name: N, userId: string, payload: CommandPayload<N>, receivedAt?: number): ActorCommandOf<N> {
  const command = byName[name].toCommand(userId, payload);
  const timed: CommandInput = command; // the same object: no copy of a command per move
  if (receivedAt !== undefined) timed.receivedAt = receivedAt;
  return command;
}

import { z } from 'zod';

/** Messages a player sends to a GameRoom. Each may carry an `id`, echoed in the answer. */
const square = z.string().regex(/^[a-h][1-8]$/, 'must be a square like e4');
const requestId = z.union([z.string().max(64), z.number().int()]).optional();

export const MoveMessage = z.object({
  from: square,
  to: square,
  promotion: z.enum(['q', 'r', 'b', 'n']).nullish(),
  /** The client's measured network lag (ms), compensated within Lichess's quota. */
  lag: z.number().min(0).max(60_000).optional(),
  id: requestId,
});
export type MoveMessage = z.infer<typeof MoveMessage>;

export const BareMessage = z.object({ id: requestId }).optional();

export const AnswerDrawMessage = z.object({
  offer_id: z.string().max(64),
  accept: z.boolean(),
  id: requestId,
});
export type AnswerDrawMessage = z.infer<typeof AnswerDrawMessage>;

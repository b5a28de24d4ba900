// The shapes Lichess's clients read, written as this project's own schemas from Lichess's
// published OpenAPI (lichess-org/api, doc/specs/schemas: Variant, Speed, GameStatusName,
// ChallengeUser, GameEventPlayer). The builders of the answers return these types, so a shape that
// drifts from them does not compile. Area-specific shapes live beside their routes.
import { z } from 'zod';
import type { Termination } from '../domain/game.ts';
import type { GameStatus } from '../domain/statuses.ts';
import type { TimeControl } from '../domain/timeControl.ts';

/** Only standard chess is played here (a challenge of another variant is refused). */
export const Variant = z.object({ key: z.literal('standard'), name: z.literal('Standard'), short: z.literal('Std') });
export type Variant = z.infer<typeof Variant>;
export const STANDARD: Variant = { key: 'standard', name: 'Standard', short: 'Std' };

export const SPEEDS = ['ultraBullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence'] as const;
export const Speed = z.enum(SPEEDS);
export type Speed = z.infer<typeof Speed>;

/**
 * A game's speed as Lichess names it. This service's categories are Lichess's bands (by
 * `initial + 40 × increment` seconds), but for ultra-bullet (under 30 s), which it files as bullet.
 */
export function speedOf(g: { timeControl: TimeControl; initialTime: number; increment: number }): Speed {
  if (g.timeControl === 'bullet' && g.initialTime + 40 * g.increment < 30) return 'ultraBullet';
  return g.timeControl;
}

/** Lichess's perf names ("Blitz", "Correspondence"), as `perf.name` carries them. */
export const perfName = (speed: Speed): string => (speed === 'ultraBullet' ? 'UltraBullet' : speed.charAt(0).toUpperCase() + speed.slice(1));

export const GAME_STATUS_NAMES = [
  'created',
  'started',
  'aborted',
  'mate',
  'resign',
  'stalemate',
  'timeout',
  'draw',
  'outoftime',
  'cheat',
  'noStart',
  'unknownFinish',
  'insufficientMaterialClaim',
  'variantEnd',
] as const;
export const GameStatusName = z.enum(GAME_STATUS_NAMES);
export type GameStatusName = z.infer<typeof GameStatusName>;

/**
 * A game's status as Lichess names it. A `timeout` of this service is a flag (Lichess's
 * `outoftime`) unless it was claimed against a player who left (Lichess's `timeout`): `claimed`
 * says which (src/domain/gameDecider.ts keeps both clocks on a claim).
 */
export function statusName(g: { status: GameStatus; termination: Termination | null; abortReason?: string | null }, claimed = false): GameStatusName {
  switch (g.status) {
    case 'pending':
      return 'created';
    case 'active':
      return 'started';
    case 'abandoned':
      return g.abortReason === 'no_first_move' ? 'noStart' : 'aborted';
    case 'finished':
      switch (g.termination) {
        case 'checkmate':
          return 'mate';
        case 'resignation':
          return 'resign';
        case 'timeout':
          return claimed ? 'timeout' : 'outoftime';
        case 'stalemate':
          return 'stalemate';
        case 'agreement':
        case 'repetition':
        case 'fifty_moves':
        case 'insufficient_material':
          return 'draw';
        default:
          return 'unknownFinish';
      }
  }
}

/** A user's Lichess id: the lower-cased username (DESIGN 2.13). */
export const lichessId = (username: string) => username.toLowerCase();

/** A player as Lichess's game and challenge events name them. */
export const LichessPlayer = z.object({
  id: z.string(),
  name: z.string(),
  title: z.string().nullable(),
  rating: z.number().int(),
  provisional: z.boolean().optional(),
});
export type LichessPlayer = z.infer<typeof LichessPlayer>;

/** `{"ok": true}`: the answer of a command that succeeded. */
export const Ok = z.object({ ok: z.literal(true) });

import assert from 'node:assert/strict';
import type { Move as ChessJsMove } from 'chess.js';
import type { PlayedMove } from '../../src/domain/fastMove.ts';

/** The fast path played exactly what chess.js's public move() did, field by field. */
export function assertSameAsPublicMove(played: PlayedMove, publicMove: ChessJsMove): void {
  assert.deepEqual(
    { ...played, captured: played.captured ?? null, promotion: played.promotion ?? null },
    {
      color: publicMove.color,
      from: publicMove.from,
      to: publicMove.to,
      san: publicMove.san,
      piece: publicMove.piece,
      captured: publicMove.captured ?? null,
      promotion: publicMove.promotion ?? null,
      flags: publicMove.flags,
      after: publicMove.after,
    },
  );
}

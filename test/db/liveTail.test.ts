import assert from 'node:assert/strict';
import type { GameRecord } from '../../src/db/games.ts';
import { foldTail, type TailMove } from '../../src/db/liveTail.ts';
import { ChessGame } from '../../src/domain/game.ts';
import { movetextSuffix } from '../../src/domain/pgn.ts';

const T = Date.UTC(2026, 10, 25, 12);
/** An active game's row as a snapshot after 1. e4 e5 (the clocks running from T). */
const snapshot = (o: Partial<GameRecord> = {}): GameRecord =>
  ({
    id: 'g',
    status: 'active',
    fen: 'after e5',
    pgn: '1. e4 e5',
    moveCount: 2,
    whiteTimeMs: 300_000,
    blackTimeMs: 299_000,
    clockRunning: true,
    turnStartedAt: new Date(T),
    firstMoveDeadline: null,
    eventSeq: 2,
    updatedAt: new Date(T - 60_000),
    lastMoveAt: new Date(T),
    ...o,
  }) as GameRecord;

const move = (ply: number, san: string, at: number): TailMove => ({
  ply,
  san,
  fen: `after ${san}`,
  whiteMs: 300_000 - ply,
  blackMs: 299_000 - ply,
  eventSeq: ply + 1,
  playedAt: new Date(at),
  createdAt: new Date(at + 1),
});

describe('folding the moves after a live game row snapshot', () => {
  it('shows the game after the moves: position, movetext, count, clocks, event number, last change', () => {
    const folded = foldTail(snapshot(), [move(3, 'Nf3', T + 2000), move(4, 'Nc6', T + 5000)]);
    assert.deepEqual(
      [folded.fen, folded.pgn, folded.moveCount, folded.whiteTimeMs, folded.blackTimeMs, folded.eventSeq],
      ['after Nc6', '1. e4 e5 2. Nf3 Nc6', 4, 300_000 - 4, 299_000 - 4, 5],
    );
    assert.equal(folded.turnStartedAt?.getTime(), T + 5000);
    assert.equal(folded.lastMoveAt?.getTime(), T + 5001);
    assert.equal(folded.updatedAt.getTime(), T + 5001);
  });

  it('keeps clocks a takeover booked after the last move, and an event number that is ahead', () => {
    // A new owner resumed the game at T + 9000 with the outage charged to nobody.
    const resumed = snapshot({ turnStartedAt: new Date(T + 9000), whiteTimeMs: 1234, eventSeq: 9 });
    const folded = foldTail(resumed, [move(3, 'Nf3', T + 2000)]);
    assert.deepEqual([folded.moveCount, folded.whiteTimeMs, folded.turnStartedAt?.getTime(), folded.eventSeq], [3, 1234, T + 9000, 9]);
  });

  it('ignores moves the snapshot already holds, and games that are not active', () => {
    const game = snapshot();
    assert.equal(foldTail(game, [move(2, 'e5', T)]), game);
    const finished = snapshot({ status: 'finished' });
    assert.equal(foldTail(finished, [move(3, 'Nf3', T + 2000)]), finished);
  });

  it('writes the movetext as the game itself does, ply after ply', () => {
    const game = new ChessGame();
    let text = '';
    for (const [ply, uci] of ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1b5', 'a7a6', 'b5a4', 'g8f6'].entries()) {
      const played = game.play({ from: uci.slice(0, 2), to: uci.slice(2, 4) });
      assert.ok(played.ok);
      text += movetextSuffix(ply + 1, played.value.move.san, text !== '');
      assert.equal(text, game.movetext);
    }
  });
});

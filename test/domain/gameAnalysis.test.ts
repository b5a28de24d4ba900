import assert from 'node:assert/strict';
import { winPercent } from '../../src/domain/accuracy.ts';
import { buildAnalysis, replayGame, settledScore, whiteScore, type PositionEval } from '../../src/domain/gameAnalysis.ts';

const moves = (...pairs: Array<[string, string]>) => pairs.map(([san, uci]) => ({ san, uci }));

describe('game analysis (pure)', () => {
  it("turns the engine's side-to-move score into White's point of view", () => {
    assert.deepEqual(whiteScore({ cp: 35 }, 'w'), { cp: 35 });
    assert.deepEqual(whiteScore({ cp: 35 }, 'b'), { cp: -35 });
    // mate 2 for the side to move: it mates; mate -3: it is mated.
    assert.deepEqual(whiteScore({ mate: 2 }, 'b'), { mate: 2, winner: 'black' });
    assert.deepEqual(whiteScore({ mate: -3 }, 'b'), { mate: 3, winner: 'white' });
    assert.deepEqual(whiteScore({ mate: -1 }, 'w'), { mate: 1, winner: 'black' });
    assert.deepEqual(whiteScore({ mate: 0 }, 'w'), { mate: 0, winner: 'black' }, 'mate 0: the side to move is mated');
  });

  it('settles checkmate, stalemate and bare kings without an engine, and leaves other positions to it', () => {
    assert.deepEqual(settledScore('r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4'), { mate: 0, winner: 'white' });
    assert.deepEqual(settledScore('7k/5Q2/6K1/8/8/8/8/8 b - - 0 1'), { cp: 0 }, 'stalemate');
    assert.deepEqual(settledScore('8/8/4k3/8/8/3K4/8/8 w - - 0 1'), { cp: 0 }, 'insufficient material');
    assert.equal(settledScore('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'), undefined);
  });

  it('judges each move by its mover\'s Win% drop and names the best move in SAN', () => {
    const game = moves(['e4', 'e2e4'], ['f6', 'f7f6'], ['d4', 'd2d4'], ['g5', 'g7g5']);
    const replay = replayGame(game);
    assert.equal(replay.fens.length, 5);
    const evals: PositionEval[] = [
      { score: { cp: 20 }, best: 'e2e4' }, // White plays the engine's move: best
      { score: { cp: 30 }, best: 'e7e5' }, // Black's f6 drops 30 → 80 cp
      { score: { cp: 80 }, best: 'd2d4' },
      { score: { cp: 90 }, best: 'b8c6' }, // Black's g5 allows mate in one
      { score: { mate: 1, winner: 'white' }, best: 'd1h5' },
    ];
    const a = buildAnalysis({ gameId: 'g', replay, evals, engine: 'E', depth: 9, analyzedAt: new Date(0), opening: null });
    assert.equal(a.moves.length, 2);
    const [first, second] = a.moves;
    assert.deepEqual(first.white, { san: 'e4', evaluation: 0.3, mate: null, best_move: 'e4', classification: 'best' });
    // Black's Win% before f6: 100 − W(30); after: 100 − W(80). Drop = W(80) − W(30).
    const drop = winPercent({ cp: 80 }) - winPercent({ cp: 30 });
    assert.ok(drop > 2 && drop < 5, `drop ${drop}`);
    assert.deepEqual(first.black, { san: 'f6', evaluation: 0.8, mate: null, best_move: 'e5', classification: 'good' });
    assert.equal(second.white!.classification, 'best');
    assert.deepEqual(second.black, { san: 'g5', evaluation: 100, mate: 1, best_move: 'Nc6', classification: 'blunder' });
    assert.deepEqual(a.blunders, { white: 0, black: 1 });
    assert.deepEqual(a.mistakes, { white: 0, black: 0 });
    assert.equal(a.accuracy.white, 100);
    assert.ok(a.accuracy.black! < 60);
    assert.equal(a.analyzed_at, '1970-01-01T00:00:00.000Z');
  });

  it('leaves black null in the last row when White made the last move', () => {
    const replay = replayGame(moves(['e4', 'e2e4']));
    const evals: PositionEval[] = [{ score: { cp: 20 }, best: 'e2e4' }, { score: { cp: 25 }, best: 'c7c5' }];
    const a = buildAnalysis({ gameId: 'g', replay, evals, engine: 'E', depth: 1, analyzedAt: new Date(0), opening: null });
    assert.deepEqual(a.moves.map((m) => [m.move_number, m.white?.san, m.black]), [[1, 'e4', null]]);
    assert.equal(a.accuracy.black, null);
  });

  it('refuses findings that do not cover every position', () => {
    const replay = replayGame(moves(['e4', 'e2e4']));
    assert.throws(() =>
      buildAnalysis({ gameId: 'g', replay, evals: [{ score: { cp: 0 }, best: null }], engine: 'E', depth: 1, analyzedAt: new Date(0), opening: null }),
    );
  });
});

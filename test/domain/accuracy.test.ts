import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MOVE_CLASSES,
  classifyMove,
  evaluationOf,
  gameAccuracy,
  moveAccuracy,
  winPercent,
} from '../../src/domain/accuracy.ts';

const close = (actual: number | null, expected: number, delta = 1e-9) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= delta, `${actual} is not ${expected} ± ${delta}`);

// Move accuracy for a Win% drop d: 103.1668100711649·e^(−0.04354415386753951·d) − 3.166924740191411.
//   d = 5:  e^−0.2177208 = 0.8043500 → 82.98222 − 3.16692 = 79.81530
//   d = 10: e^−0.4354415 = 0.6469789 → 66.74675 − 3.16692 = 63.57983
//   d = 15: e^−0.6531623 = 0.5203975 → 53.68775 − 3.16692 = 50.52083
//   d = 20: e^−0.8708831 = 0.4185817 → 43.18374 − 3.16692 = 40.01682
//   d = 40: e^−1.7417662 = 0.1752107 → 18.07593 − 3.16692 = 14.90900
const ACC = { 5: 79.81529992041436, 10: 63.57982845372067, 15: 50.52082682528332, 20: 40.016818741417126, 40: 14.909002002130045 };

describe('accuracy', () => {
  describe('winPercent', () => {
    it('gives an equal position 50%', () => {
      assert.equal(winPercent({ cp: 0 }), 50);
    });

    it('gives White about 59.1% for a one-pawn advantage', () => {
      // e^−0.368208 = 0.691973; 2 / 1.691973 − 1 = 0.182052; 50 + 50 · 0.182052 = 59.1026
      close(winPercent({ cp: 100 }), 59.10258971916129);
    });

    it('is symmetric between White and Black', () => {
      close(winPercent({ cp: -100 }), 100 - 59.10258971916129);
    });

    it('caps centipawns at ±1000', () => {
      // e^−3.68208 = 0.025171; 2 / 1.025171 − 1 = 0.950895; 50 + 50 · 0.950895 = 97.5447
      close(winPercent({ cp: 1000 }), 97.54474363414323);
      assert.equal(winPercent({ cp: 5000 }), winPercent({ cp: 1000 }));
      assert.equal(winPercent({ cp: -5000 }), winPercent({ cp: -1000 }));
    });

    it('scores a forced mate as the capped evaluation for the mating side', () => {
      assert.equal(winPercent({ mate: 3, winner: 'white' }), winPercent({ cp: 1000 }));
      assert.equal(winPercent({ mate: 3, winner: 'black' }), winPercent({ cp: -1000 }));
    });

    it('scores a position where Black is already checkmated as won for White', () => {
      assert.equal(winPercent({ mate: 0, winner: 'white' }), winPercent({ cp: 1000 }));
    });
  });

  describe('moveAccuracy', () => {
    it('is 100 when the move keeps the Win%', () => {
      assert.equal(moveAccuracy(50, 50), 100);
    });

    it('is 100 when the move raises the Win%', () => {
      assert.equal(moveAccuracy(40, 55), 100);
    });

    it('is just under 100 for a vanishing drop, as the curve meets 100 only in the limit', () => {
      // 103.1668100711649 − 3.166924740191411 = 99.99988533
      close(moveAccuracy(50, 50 - 1e-9), 99.99988532648119, 1e-6);
    });

    it('follows the fitted curve for drops of 5, 10, 20 and 40', () => {
      close(moveAccuracy(60, 55), ACC[5], 1e-9);
      close(moveAccuracy(50, 40), ACC[10], 1e-9);
      close(moveAccuracy(50, 30), ACC[20], 1e-9);
      close(moveAccuracy(90, 50), ACC[40], 1e-9);
    });

    it('does not add lila\'s +1 uncertainty bonus', () => {
      assert.ok(moveAccuracy(50, 40) < 64);
    });

    it('never goes below 0', () => {
      // d = 100: 103.1668 · e^−4.354415 = 1.3257 → 1.3257 − 3.1669 < 0 → 0
      assert.equal(moveAccuracy(100, 0), 0);
    });
  });

  describe('classifyMove', () => {
    it("calls the engine's own choice best whatever the drop", () => {
      assert.equal(classifyMove(30, true), 'best');
    });

    it('puts each boundary in the worse class', () => {
      assert.equal(classifyMove(1.999, false), 'excellent');
      assert.equal(classifyMove(2, false), 'good');
      assert.equal(classifyMove(4.999, false), 'good');
      assert.equal(classifyMove(5, false), 'inaccuracy');
      assert.equal(classifyMove(9.999, false), 'inaccuracy');
      assert.equal(classifyMove(10, false), 'mistake');
      assert.equal(classifyMove(14.999, false), 'mistake');
      assert.equal(classifyMove(15, false), 'blunder');
    });

    it('calls a move that gains Win% but is not the best excellent', () => {
      assert.equal(classifyMove(-3, false), 'excellent');
    });

    it('lists the classes from best to worst', () => {
      assert.deepEqual([...MOVE_CLASSES], ['best', 'excellent', 'good', 'inaccuracy', 'mistake', 'blunder']);
    });
  });

  describe('gameAccuracy', () => {
    it('gives no accuracy to either side of a game without moves', () => {
      assert.deepEqual(gameAccuracy([50]), { white: null, black: null });
      assert.deepEqual(gameAccuracy([]), { white: null, black: null });
    });

    it('gives Black no accuracy when only White moved', () => {
      // One move: its weighted mean and harmonic mean are both its own accuracy.
      const accuracy = gameAccuracy([50, 40]);
      close(accuracy.white, ACC[10]);
      assert.equal(accuracy.black, null);
    });

    it('gives 100 to both sides when no move loses anything', () => {
      assert.deepEqual(gameAccuracy([50, 50, 50]), { white: 100, black: 100 });
    });

    it('weights each move by the standard deviation of its window of Win%', () => {
      // 4 plies → window 2, one window per move: [50,40] [40,45] [45,25] [25,35].
      // Population std devs: 5, 2.5, 10, 5.
      // White: ply 0 drops 10 (weight 5), ply 2 drops 20 (weight 10).
      //   weighted (5·63.5798 + 10·40.0168) / 15 = 47.8712; harmonic 2 / (1/63.5798 + 1/40.0168) = 49.1186
      //   → (47.8712 + 49.1186) / 2 = 48.4949
      // Black (its Win% is 100 − White's): ply 1 drops 60 → 55 = 5 (weight 2.5), ply 3 drops 75 → 65 = 10
      // (weight 5). weighted (2.5·79.8153 + 5·63.5798) / 7.5 = 68.9917; harmonic 70.7785 → 69.8851
      const accuracy = gameAccuracy([50, 40, 45, 25, 35]);
      close(accuracy.white, 48.494890527005055);
      close(accuracy.black, 69.88505542672738);
    });

    it('caps a weight at 12', () => {
      // Windows [50,10] (std 20 → 12) and [10,5] (std 2.5). White drops 40 then 5.
      //   weighted (12·14.9090 + 2.5·79.8153) / 14.5 = 26.0997; harmonic 2 / (1/14.9090 + 1/79.8153) = 25.1248
      //   → 25.6123 (with an uncapped weight of 20 it would be 23.62)
      close(gameAccuracy([50, 10, 10, 5, 5]).white, 25.61229152557989);
    });

    it('counts an accuracy under 1 as 1 in the harmonic mean', () => {
      // White drops 100 → accuracy 0: weighted mean 0, harmonic 1 / (1 / max(1, 0)) = 1 → 0.5
      assert.deepEqual(gameAccuracy([100, 0, 0]), { white: 0.5, black: 100 });
    });

    it('gives the first moves copies of the first window in a long game', () => {
      // 30 plies → window 3; the weights are [first window] + 29 sliding windows, so ply i (i ≥ 1) has
      // the window around it [p(i−1), p(i), p(i+1)].
      // Win%: 50, then 40 up to ply 28 where White drops to 25, then Black takes it to 20.
      //   ply 0 (drop 10): window [50,40,40], std √(200/9) = 4.7140
      //   ply 28 (drop 15): window [40,40,25], std √50 = 7.0711 (the window after it would give 8.50)
      //   the other 13 White moves keep 40: accuracy 100, weight 0.5
      //   weighted (4.7140·63.5798 + 7.0711·50.5208 + 6.5·100) / 18.2851 = 71.4764
      //   harmonic 15 / (1/63.5798 + 1/50.5208 + 13/100) = 90.6224 → 81.0494
      const winPercents = [50, 40, ...Array<number>(27).fill(40), 25, 20];
      assert.equal(winPercents.length, 31);
      const accuracy = gameAccuracy(winPercents);
      close(accuracy.white, 81.0493854507308);
      assert.equal(accuracy.black, 100);
    });

    // lila's modules/analyse/src/test/AccuracyPercentTest.scala, with its start position Cp 15 as
    // index 0. Its tolerances hold without the +1 bonus.
    describe("matches lila's own examples", () => {
      const fromCps = (cps: number[]) => gameAccuracy([15, ...cps].map((cp) => winPercent({ cp })));
      const expectNear = (cps: number[], white: [number, number], black: [number, number]) => {
        const accuracy = fromCps(cps);
        close(accuracy.white, white[0], white[1]);
        close(accuracy.black, black[0], black[1]);
      };
      const repeat = (times: number, plies: number[]) => Array.from({ length: times }, () => plies).flat();

      it('two good moves', () => expectNear([15, 15], [100, 1], [100, 1]));
      it('White blunders on the first move', () => expectNear([-900, -900], [10, 5], [100, 1]));
      it('Black blunders on the first move', () => expectNear([15, 900], [100, 1], [10, 5]));
      it('both blunder on the first move', () => expectNear([-900, 0], [10, 5], [10, 5]));
      it('20 perfect moves', () => expectNear(repeat(20, [15]), [100, 1], [100, 1]));
      it('20 perfect moves and a White blunder', () => expectNear([...repeat(20, [15]), -900], [50, 5], [100, 1]));
      it('21 perfect moves and a Black blunder', () => expectNear([...repeat(21, [15]), 900], [100, 1], [50, 5]));
      it('5 average moves each', () => expectNear(repeat(5, [-50, 15]), [76, 8], [76, 8]));
      it('50 average moves each', () => expectNear(repeat(50, [-50, 15]), [76, 8], [76, 8]));
      it('50 mediocre moves each', () => expectNear(repeat(50, [-135, 15]), [54, 8], [54, 8]));
      it('50 terrible moves each', () => expectNear(repeat(50, [-435, 15]), [20, 8], [20, 8]));
    });

    it('keeps both sides within 0..100 for any game', () => {
      const winPercents = fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { maxLength: 120 });
      fc.assert(
        fc.property(winPercents, (game) => {
          const { white, black } = gameAccuracy(game);
          for (const side of [white, black]) if (side !== null) assert.ok(side >= 0 && side <= 100, `${side}`);
          assert.equal(white === null, game.length < 2);
          assert.equal(black === null, game.length < 3);
        }),
      );
    });
  });

  describe('properties', () => {
    const percent = fc.double({ min: 0, max: 100, noNaN: true });

    it('keeps a move accuracy within 0..100', () => {
      fc.assert(fc.property(percent, percent, (before, after) => {
        const accuracy = moveAccuracy(before, after);
        assert.ok(accuracy >= 0 && accuracy <= 100);
      }));
    });

    it('never rewards a bigger drop with a higher accuracy', () => {
      fc.assert(fc.property(percent, percent, percent, (before, a, b) => {
        const [small, big] = a <= b ? [a, b] : [b, a];
        assert.ok(moveAccuracy(before, before - small) >= moveAccuracy(before, before - big));
      }));
    });

    it("gives White's and Black's Win% a sum of 100", () => {
      fc.assert(fc.property(fc.integer({ min: -3000, max: 3000 }), (cp) => {
        close(winPercent({ cp }) + winPercent({ cp: -cp }), 100, 1e-9);
      }));
    });
  });

  describe('evaluationOf', () => {
    it('gives centipawns as pawns rounded to two decimals', () => {
      assert.deepEqual(evaluationOf({ cp: 34 }), { evaluation: 0.34, mate: null });
      assert.deepEqual(evaluationOf({ cp: -1234 }), { evaluation: -12.34, mate: null });
      assert.deepEqual(evaluationOf({ cp: 33.3333 }), { evaluation: 0.33, mate: null });
    });

    it('never answers minus zero', () => {
      assert.ok(Object.is(evaluationOf({ cp: -0.4 }).evaluation, 0));
    });

    it('caps the evaluation at ±100 pawns', () => {
      assert.deepEqual(evaluationOf({ cp: 12345 }), { evaluation: 100, mate: null });
      assert.deepEqual(evaluationOf({ cp: -12345 }), { evaluation: -100, mate: null });
    });

    it('gives a forced mate as ±100 with moves to mate signed by the mating side', () => {
      assert.deepEqual(evaluationOf({ mate: 3, winner: 'white' }), { evaluation: 100, mate: 3 });
      assert.deepEqual(evaluationOf({ mate: 2, winner: 'black' }), { evaluation: -100, mate: -2 });
    });

    it('gives an already mated position mate 0', () => {
      assert.deepEqual(evaluationOf({ mate: 0, winner: 'black' }), { evaluation: -100, mate: 0 });
      assert.ok(Object.is(evaluationOf({ mate: 0, winner: 'black' }).mate, 0));
    });
  });
});

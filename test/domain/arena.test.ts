import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compareStandings,
  countEnded,
  didNotMove,
  EMPTY_RECORD,
  outcomeFor,
  performanceRating,
  pointsFor,
  recompute,
  scoreGame,
  type ArenaOutcome,
  type ArenaRecord,
  type CountedGame,
  type EndedGame,
} from '../../src/domain/arena.ts';

/** The record after `outcomes` in order, every opponent rated 1500. */
const after = (outcomes: ArenaOutcome[]): { record: ArenaRecord; points: number[] } => {
  let record = EMPTY_RECORD;
  const points: number[] = [];
  for (const o of outcomes) {
    const scored = scoreGame(record, o, 1500);
    record = scored.record;
    points.push(scored.points);
  }
  return { record, points };
};

describe('arena scoring (Lichess rules)', () => {
  it('scores a win 2, a draw 1 and a loss 0 while not on fire', () => {
    assert.deepEqual(after(['win', 'loss', 'draw', 'loss', 'draw']).points, [2, 0, 1, 0, 1]);
  });

  it('sets a player on fire after two wins in a row: the third win scores 4', () => {
    const { points, record } = after(['win', 'win', 'win', 'win']);
    assert.deepEqual(points, [2, 2, 4, 4]);
    assert.equal(record.score, 12);
    assert.equal(record.streak, 4);
  });

  it('scores a draw on fire 2 and puts the fire out: the next win scores 2 again', () => {
    const { points, record } = after(['win', 'win', 'draw', 'win', 'win', 'win']);
    assert.deepEqual(points, [2, 2, 2, 2, 2, 4]);
    assert.equal(record.score, 14);
  });

  it('scores a loss on fire 0 and puts the fire out', () => {
    const { points, record } = after(['win', 'win', 'win', 'loss', 'win']);
    assert.deepEqual(points, [2, 2, 4, 0, 2]);
    assert.equal(record.streak, 1);
  });

  it('needs the two wins in a row: win, draw, win is not on fire', () => {
    assert.deepEqual(after(['win', 'draw', 'win', 'win']).points, [2, 1, 2, 2]);
    assert.equal(pointsFor({ streak: 1 }, 'win'), 2);
    assert.equal(pointsFor({ streak: 2 }, 'draw'), 2);
  });

  it('counts games, wins, draws, losses and the opponents’ ratings', () => {
    let r = scoreGame(EMPTY_RECORD, 'win', 1600).record;
    r = scoreGame(r, 'draw', 1400).record;
    r = scoreGame(r, 'loss', 1700).record;
    assert.deepEqual(r, { score: 3, games: 3, wins: 1, draws: 1, losses: 1, streak: 0, opponentRatingSum: 4700 });
  });

  it('computes performance as round(mean opponent rating + 500 × (wins − losses) / games), null before a game', () => {
    assert.equal(performanceRating(EMPTY_RECORD), null);
    // Two wins against 1600 and 1700, one loss against 1500: 1600 + 500 × 1 / 3 = 1766.67.
    assert.equal(performanceRating({ games: 3, wins: 2, losses: 1, opponentRatingSum: 4800 }), 1767);
    assert.equal(performanceRating({ games: 1, wins: 0, losses: 1, opponentRatingSum: 1500 }), 1000);
    assert.equal(performanceRating({ games: 2, wins: 0, losses: 0, opponentRatingSum: 3001 }), 1501);
  });

  it('reads a game’s outcome for each colour; a null winner is a draw for both', () => {
    assert.equal(outcomeFor('white', 'white'), 'win');
    assert.equal(outcomeFor('white', 'black'), 'loss');
    assert.equal(outcomeFor(null, 'black'), 'draw');
  });

  it('blames White for an abort without moves, Black for one after White’s first move', () => {
    assert.equal(didNotMove(0), 'white');
    assert.equal(didNotMove(1), 'black');
  });

  it('ranks by score, then performance (none after any number), then earlier join', () => {
    const rows = [
      { userId: 'late-perf', score: 4, performance: 1800, joinedAt: 30 },
      { userId: 'none', score: 4, performance: null, joinedAt: 0 },
      { userId: 'top', score: 6, performance: 1200, joinedAt: 50 },
      { userId: 'early-perf', score: 4, performance: 1800, joinedAt: 10 },
      { userId: 'low-perf', score: 4, performance: 900, joinedAt: 1 },
    ];
    assert.deepEqual(rows.sort(compareStandings).map((r) => r.userId), ['top', 'early-perf', 'late-perf', 'low-perf', 'none']);
  });

  it('recomputes standings from the counted games in order: a fire streak across games, opponents by colour', () => {
    const games: CountedGame[] = [
      { whiteId: 'a', blackId: 'b', winner: 'white', whiteRating: 1500, blackRating: 1600 },
      { whiteId: 'c', blackId: 'a', winner: 'black', whiteRating: 1700, blackRating: 1510 },
      { whiteId: 'a', blackId: 'b', winner: null, whiteRating: 1520, blackRating: 1590 },
    ];
    const r = recompute(['a', 'b', 'c', 'd'], games);
    assert.deepEqual(r.get('a'), { score: 6, games: 3, wins: 2, draws: 1, losses: 0, streak: 0, opponentRatingSum: 4890 });
    assert.deepEqual(r.get('b'), { score: 1, games: 2, wins: 0, draws: 1, losses: 1, streak: 0, opponentRatingSum: 3020 });
    assert.deepEqual(r.get('d'), EMPTY_RECORD);
  });

  it('keeps the score equal to the sum of the points scored, whatever the sequence (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<ArenaOutcome>('win', 'draw', 'loss'), { maxLength: 60 }), (outcomes) => {
        const { record, points } = after(outcomes);
        assert.equal(record.score, points.reduce((a, b) => a + b, 0));
        assert.equal(record.games, record.wins + record.draws + record.losses);
        // The streak is the run of wins at the end.
        const lastNonWin = Math.max(outcomes.lastIndexOf('draw'), outcomes.lastIndexOf('loss'));
        assert.equal(record.streak, outcomes.length - 1 - lastNonWin);
      }),
    );
  });

  describe('counting a batch of ended games', () => {
    const game = (o: Partial<EndedGame> & { gameId: string }): EndedGame => ({
      whiteId: 'a', blackId: 'b', winner: 'white', whiteRating: 1500, blackRating: 1500, endedAt: 1000, aborted: null, ...o,
    });

    it('folds several games of one player in the order they ended: the fire carries from one to the next', () => {
      const records = new Map([['a', { ...EMPTY_RECORD, streak: 1, score: 2, games: 1, wins: 1 }], ['b', EMPTY_RECORD], ['c', EMPTY_RECORD]]);
      const counting = countEnded(records, [
        game({ gameId: 'g1', endedAt: 10 }),
        game({ gameId: 'g2', blackId: 'c', endedAt: 20 }),
      ]);
      assert.deepEqual(counting.points, [{ gameId: 'g1', white: 2, black: 0 }, { gameId: 'g2', white: 4, black: 0 }]);
      assert.deepEqual({ ...counting.records.get('a') }, { score: 8, games: 3, wins: 3, draws: 0, losses: 0, streak: 3, opponentRatingSum: 3000, waitingSince: 20 });
      assert.deepEqual(counting.withdraw, []);
    });

    it('scores an aborted game nothing, leaves both records as they were, and withdraws who did not move', () => {
      const records = new Map([['a', { ...EMPTY_RECORD, streak: 2 }], ['b', EMPTY_RECORD]]);
      const counting = countEnded(records, [game({ gameId: 'g', aborted: { nonMover: 'black' }, endedAt: 99 })]);
      assert.deepEqual(counting.points, [{ gameId: 'g', white: null, black: null }]);
      assert.deepEqual(counting.withdraw, ['b']);
      assert.deepEqual(counting.records.get('a'), { ...EMPTY_RECORD, streak: 2, waitingSince: 99 });
    });

    it('withdraws nobody for an abort with another reason', () => {
      const counting = countEnded(new Map([['a', EMPTY_RECORD], ['b', EMPTY_RECORD]]), [game({ gameId: 'g', aborted: { nonMover: null } })]);
      assert.deepEqual(counting.withdraw, []);
    });
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Chess } from 'chess.js';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { DEFAULT_GLICKO, rateGame, type Glicko } from '../../src/domain/glicko2.ts';
import { judgeAttempt, judgeLine, PROVISIONAL_DEVIATION, rateAttempt } from '../../src/domain/puzzleAttempt.ts';
import { parsePuzzleRecord, type PuzzleData } from '../../src/domain/puzzles.ts';
import { BUNDLED_PUZZLES } from '../../src/services/puzzleImport.ts';

const SAMPLE: PuzzleData[] = (parse(readFileSync(BUNDLED_PUZZLES), { columns: true }) as any[])
  .map(parsePuzzleRecord)
  .flatMap((p) => (p.ok ? [p.value] : []));
const puzzle = (id: string) => SAMPLE.find((p) => p.id === id)!;
const judge = (p: PuzzleData, moves: string[]) => judgeAttempt(p.fen, p.solution, moves);
/** The solver's moves of the solution: every other one, from the first. */
const solverMoves = (p: PuzzleData) => p.solution.filter((_, i) => i % 2 === 0);

describe('judging a puzzle attempt', () => {
  // 002X3: g2a8 c7b8 a8b8, mate in 2. 00Lvv: h5e8 d7d8 d1d8, where e8d8 mates as well.
  // 001KR: f1f8 mates in one, and so does d1d8.
  it('is correct when the solver plays the whole solution', () => {
    assert.deepEqual(judge(puzzle('002X3'), ['g2a8', 'a8b8']), { ok: true, value: true });
    assert.deepEqual(judge(puzzle('001KR'), ['f1f8']), { ok: true, value: true });
  });

  it('solves every puzzle of the sample with its own solution', () => {
    for (const p of SAMPLE) assert.deepEqual(judge(p, solverMoves(p)), { ok: true, value: true }, p.id);
  });

  it('accepts another move that mates (Lichess: any mate is correct), first or last', () => {
    assert.deepEqual(judge(puzzle('001KR'), ['d1d8']), { ok: true, value: true });
    assert.deepEqual(judge(puzzle('00Lvv'), ['h5e8', 'e8d8']), { ok: true, value: true });
  });

  it('is wrong when a legal move leaves the solution without mating, and looks no further', () => {
    // g2g3 is legal and no mate: wrong, and the illegal move after it is never played.
    assert.deepEqual(judge(puzzle('002X3'), ['g2g3', 'h1h8']), { ok: true, value: false });
    assert.deepEqual(judge(puzzle('002X3'), ['g2a8', 'a8a7']), { ok: true, value: false });
  });

  it('is wrong when the line stops before the end', () => {
    assert.deepEqual(judge(puzzle('002X3'), ['g2a8']), { ok: true, value: false });
  });

  it('refuses an illegal move, naming its place in the list', () => {
    assert.deepEqual(judge(puzzle('002X3'), ['g2h8']), { ok: false, error: { field: 'moves.0', message: 'g2h8 is not a legal move in the position' } });
    // After g2a8 c7b8 the queen on a8 cannot pass the pawn on a4 to reach a1.
    assert.deepEqual(judge(puzzle('002X3'), ['g2a8', 'a8a1']), { ok: false, error: { field: 'moves.1', message: 'a8a1 is not a legal move in the position' } });
  });

  it('refuses no moves, and more moves than the solver plays in the solution', () => {
    for (const moves of [[], ['g2a8', 'a8b8', 'b8a8']]) {
      const verdict = judge(puzzle('002X3'), moves);
      assert.ok(!verdict.ok && verdict.error.field === 'moves', JSON.stringify(verdict));
    }
  });

  it('reads promotions strictly, as UCI: a missing piece is illegal, another piece is another move', () => {
    const fen = '8/4P1k1/8/8/8/8/8/4K3 w - - 0 1';
    assert.deepEqual(judgeAttempt(fen, ['e7e8q'], ['e7e8q']), { ok: true, value: true });
    assert.deepEqual(judgeAttempt(fen, ['e7e8q'], ['e7e8n']), { ok: true, value: false });
    assert.equal(judgeAttempt(fen, ['e7e8q'], ['e7e8']).ok, false);
    assert.equal(judgeAttempt(fen, ['e7e8q'], ['e1e2q']).ok, false);
  });

  it('never throws, whatever UCI moves it is given', () => {
    const square = fc.tuple(fc.constantFrom(...'abcdefgh'), fc.constantFrom(...'12345678')).map(([f, r]) => f + r);
    const uci = fc.tuple(square, square, fc.constantFrom('', 'q', 'r', 'b', 'n')).map(([a, b, p]) => a + b + p);
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLE.slice(0, 200)), fc.array(uci, { minLength: 0, maxLength: 4 }), (p, moves) => {
        const verdict = judge(p, moves);
        assert.ok(verdict.ok ? typeof verdict.value === 'boolean' : /^moves(\.\d+)?$/.test(verdict.error.field));
      }),
      { numRuns: 500 },
    );
  });

  it('accepts as correct exactly the legal first moves that mate, on mate-in-one puzzles', () => {
    for (const p of SAMPLE.filter((q) => q.themes.includes('mateIn1')).slice(0, 60)) {
      const chess = new Chess(p.fen);
      for (const m of chess.moves({ verbose: true })) {
        chess.move(m);
        const mates = chess.isCheckmate();
        chess.undo();
        assert.deepEqual(judge(p, [m.lan]), { ok: true, value: mates || m.lan === p.solution[0] }, `${p.id} ${m.lan}`);
      }
    }
  });
});

describe('judging a line move by move (a step)', () => {
  const line = (p: PuzzleData, moves: string[]) => judgeLine(p.fen, p.solution, moves);

  it("goes on with the solution's next reply while every move is the solution's", () => {
    assert.deepEqual(line(puzzle('002X3'), ['g2a8']), { ok: true, value: { status: 'continue', reply: 'c7b8' } });
    for (const p of SAMPLE) {
      const moves = solverMoves(p);
      for (let n = 1; n < moves.length; n++) {
        assert.deepEqual(line(p, moves.slice(0, n)), { ok: true, value: { status: 'continue', reply: p.solution[2 * n - 1] } }, p.id);
      }
      assert.deepEqual(line(p, moves), { ok: true, value: { status: 'solved' } }, p.id);
    }
  });

  it('ends at the first move off the solution: solved if it mates, else failed', () => {
    assert.deepEqual(line(puzzle('00Lvv'), ['h5e8', 'e8d8']), { ok: true, value: { status: 'solved' } });
    assert.deepEqual(line(puzzle('002X3'), ['g2a8', 'a8a7']), { ok: true, value: { status: 'failed' } });
    assert.deepEqual(line(puzzle('002X3'), ['g2g3', 'h1h8']), { ok: true, value: { status: 'failed' } });
  });

  it('agrees with the attempt on every list: solved is correct, and an attempt that stops short is wrong', () => {
    const square = fc.tuple(fc.constantFrom(...'abcdefgh'), fc.constantFrom(...'12345678')).map(([f, r]) => f + r);
    const uci = fc.tuple(square, square, fc.constantFrom('', 'q', 'n')).map(([a, b, p]) => a + b + p);
    const moves = (p: PuzzleData) => fc.array(fc.oneof(uci, fc.constantFrom(...solverMoves(p))), { minLength: 0, maxLength: 4 });
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLE.slice(0, 300)).chain((p) => fc.tuple(fc.constant(p), moves(p))), ([p, m]) => {
        const stepped = line(p, m);
        const attempted = judge(p, m);
        if (!stepped.ok) return assert.deepEqual(attempted, stepped);
        assert.deepEqual(attempted, { ok: true, value: stepped.value.status === 'solved' });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('rating an attempt', () => {
  const puzzleRating = { rating: 1500, deviation: 80, volatility: 0.09 };

  it('moves a new solver up and the puzzle down when it is solved, with the change as players see it', () => {
    const rated = rateAttempt(DEFAULT_GLICKO, puzzleRating, true);
    assert.ok(rated.user.rating > 1500 && rated.puzzle.rating < 1500);
    assert.equal(rated.userChange, Math.round(rated.user.rating) - 1500);
    assert.ok(rated.user.deviation < 500);
  });

  it('moves a new solver down and the puzzle up when it is failed', () => {
    const rated = rateAttempt(DEFAULT_GLICKO, puzzleRating, false);
    assert.ok(rated.user.rating < 1500 && rated.puzzle.rating > 1500);
    assert.ok(rated.userChange < 0);
  });

  it('moves an established puzzle less than a new solver', () => {
    const rated = rateAttempt(DEFAULT_GLICKO, puzzleRating, true);
    assert.ok(Math.abs(rated.puzzle.rating - 1500) < Math.abs(rated.user.rating - 1500));
  });

  describe('while the solver’s rating is provisional', () => {
    const at = (rating: number, deviation = 80): Glicko => ({ rating, deviation, volatility: 0.09 });
    /** Glicko-2 as it stands, the solver as white. */
    const plain = (user: Glicko, puzzle: Glicko, correct: boolean) => rateGame(user, puzzle, correct ? 1 : 0);

    it('gains from solving a far harder puzzle only what solving one at their own level gives', () => {
      const rated = rateAttempt(DEFAULT_GLICKO, at(2787, 92), true);
      const ownLevel = plain(DEFAULT_GLICKO, at(1500, 92), true);
      assert.equal(rated.userChange, ownLevel.changes.white);
      assert.deepEqual(rated.user, ownLevel.white);
      assert.ok(plain(DEFAULT_GLICKO, at(2787, 92), true).changes.white > 1000);
    });

    it('loses from failing a far easier puzzle only what failing one at their own level costs', () => {
      const user = at(1900, 300);
      assert.deepEqual(rateAttempt(user, at(1000), false).user, plain(user, at(1900), false).white);
    });

    it('is rated by Glicko-2 as it stands when the result is no surprise: an easier solve, a harder failure', () => {
      const user = at(1700, 400);
      for (const [puzzle, correct] of [[at(1400), true], [at(1700), true], [at(2400), false], [at(1700), false]] as const) {
        assert.deepEqual(rateAttempt(user, puzzle, correct).user, plain(user, puzzle, correct).white);
      }
    });

    it('rates the puzzle by Glicko-2 as it stands, against the solver’s real rating', () => {
      for (const correct of [true, false]) {
        assert.deepEqual(rateAttempt(DEFAULT_GLICKO, at(2787, 92), correct).puzzle, plain(DEFAULT_GLICKO, at(2787, 92), correct).black);
      }
    });

    it('stops once the rating is established: Glicko-2 as it stands, whatever the puzzle', () => {
      const user = at(1500, PROVISIONAL_DEVIATION);
      for (const correct of [true, false]) {
        const puzzle = at(correct ? 2787 : 600, 92);
        assert.deepEqual(rateAttempt(user, puzzle, correct).user, plain(user, puzzle, correct).white);
      }
    });
  });
});

import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import fc from 'fast-check';
import { as } from '../helpers/games.ts';
import { personalToken } from '../helpers/credentials.ts';
import { api } from '../helpers/http.ts';
import { expectNo500 } from '../helpers/malformed.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// DESIGN 2.14 "Puzzles that answer": POST /puzzles/{id}/step, the attempt sent move by move.

const sql = async (text: string, params: unknown[] = []) => (await testService()).service.ctx.pool.query(text, params);
const step = (user: TestUser, id: string, body: unknown) => api('POST', `/v1/puzzles/${id}/step`, as(user, body));
const attempt = (user: TestUser, id: string, body: unknown) => api('POST', `/v1/puzzles/${id}/attempt`, as(user, body));
const me = async (user: TestUser) => (await api('GET', '/v1/users/me', as(user))).body.data;
/** What a user's attempts left behind: their attempt rows and their puzzle rating, exactly as stored. */
const traces = async (user: TestUser) => ({
  attempts: (await sql('SELECT puzzle_id, correct, rating_change, attempts, time_ms FROM puzzle_attempts WHERE user_id = $1 ORDER BY puzzle_id', [user.id])).rows,
  rating: (await sql(`SELECT rating, rd, volatility, games FROM user_ratings WHERE user_id = $1 AND category = 'puzzle'`, [user.id])).rows,
});
const NOTHING = { attempts: [], rating: [] };
const puzzleGlicko = async (id: string) =>
  (await sql('SELECT rating, rating_deviation, volatility, imported_plays + plays_here AS plays FROM puzzles WHERE id = $1', [id])).rows[0];
/** Puts a puzzle's rating back where it was, so two users' first attempts meet the same puzzle. */
const restoreGlicko = (id: string, g: { rating: number; rating_deviation: number; volatility: number }) =>
  sql('UPDATE puzzles SET rating = $2, rating_deviation = $3, volatility = $4 WHERE id = $1', [id, g.rating, g.rating_deviation, g.volatility]);

function assertError(res: { status: number; body: any; text: string }, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

// 002X3: mate in 2, 1. Qa8+ Qb8 2. Qxb8#. 00Gv1: mate in 3 (e6e1 d1e1 e7e1 g1f2 h3f1).
// 001KR: mate in 1 by f1f8, and d1d8 mates as well. 00Lvv: h5e8 d7d8 d1d8, where e8d8 mates too.
// 06fWI: a pawn race, four moves of White's, the last h7h8q (no mate).
const MATE_IN_2 = { id: '002X3', solution: ['g2a8', 'c7b8', 'a8b8'] };
const MATE_IN_3 = { id: '00Gv1', solution: ['e6e1', 'd1e1', 'e7e1', 'g1f2', 'h3f1'] };
const PROMOTION = { id: '06fWI', solution: ['h4h5', 'b4a4', 'h5h6', 'b5b4', 'h6h7', 'b4b3', 'h7h8q'] };
const solverMoves = (solution: readonly string[]) => solution.filter((_, i) => i % 2 === 0);
const ATTEMPT_KEYS = ['correct', 'first_attempt', 'puzzle_rating', 'rating_change', 'solution', 'user_rating'];

describe('POST /puzzles/{id}/step', () => {
  before(() => testService());

  it("answers each of the solution's moves with its next reply, and records nothing until the run ends", async () => {
    const user = await createUser();
    const moves = solverMoves(MATE_IN_3.solution);
    for (let n = 1; n < moves.length; n++) {
      const res = await step(user, MATE_IN_3.id, { moves: moves.slice(0, n) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, { status: 'continue', reply: MATE_IN_3.solution[2 * n - 1] });
    }
    assert.deepEqual(await traces(user), NOTHING);
    const end = await step(user, MATE_IN_3.id, { moves, time_ms: 12_000 });
    assert.equal(end.status, 200, end.text);
    const r = end.body.data;
    assert.deepEqual(Object.keys(r).sort(), ['status', ...ATTEMPT_KEYS].sort());
    assert.deepEqual([r.status, r.correct, r.first_attempt, r.solution], ['solved', true, true, MATE_IN_3.solution]);
    assert.ok(r.rating_change > 0, String(r.rating_change));
    assert.equal((await me(user)).puzzle_rating, r.user_rating);
    assert.equal(r.puzzle_rating, Math.round((await puzzleGlicko(MATE_IN_3.id)).rating));
    assert.deepEqual((await traces(user)).attempts, [{ puzzle_id: MATE_IN_3.id, correct: true, rating_change: r.rating_change, attempts: 1, time_ms: 12_000 }]);
  });

  it("fails the run at a wrong move, with the attempt's answer and the solution, rated as a failed first attempt", async () => {
    const user = await createUser();
    const before = await puzzleGlicko(MATE_IN_2.id);
    assert.equal((await step(user, MATE_IN_2.id, { moves: ['g2a8'] })).body.data.status, 'continue');
    const res = await step(user, MATE_IN_2.id, { moves: ['g2a8', 'a8a7'] });
    assert.equal(res.status, 200, res.text);
    const r = res.body.data;
    assert.deepEqual([r.status, r.correct, r.first_attempt, r.solution], ['failed', false, true, MATE_IN_2.solution]);
    assert.ok(r.rating_change < 0, String(r.rating_change));
    assert.equal((await me(user)).puzzle_rating, 1500 + r.rating_change);
    assert.ok((await puzzleGlicko(MATE_IN_2.id)).rating > before.rating);
  });

  it('rates the run that ends exactly as POST /attempt rates the same moves: solved, failed at once, failed later', async () => {
    const cases = [
      { id: MATE_IN_2.id, moves: solverMoves(MATE_IN_2.solution) },
      { id: MATE_IN_2.id, moves: ['g2g3'] },
      { id: MATE_IN_3.id, moves: ['e6e1', 'e7e2'] },
    ];
    for (const { id, moves } of cases) {
      const [stepper, attempter] = await Promise.all([createUser(), createUser()]);
      const start = await puzzleGlicko(id);
      for (let n = 1; n < moves.length; n++) assert.equal((await step(stepper, id, { moves: moves.slice(0, n) })).body.data.status, 'continue');
      const stepped = await step(stepper, id, { moves, time_ms: 5000 });
      const puzzleAfterStep = await puzzleGlicko(id);
      await restoreGlicko(id, start);
      const attempted = await attempt(attempter, id, { moves, time_ms: 5000 });
      assert.equal(attempted.status, 200, attempted.text);
      const { status, ...answer } = stepped.body.data;
      assert.equal(status, attempted.body.data.correct ? 'solved' : 'failed', `${id} ${moves}`);
      assert.deepEqual(answer, attempted.body.data, `${id} ${moves}`);
      const [a, b] = [await traces(stepper), await traces(attempter)];
      assert.deepEqual(a, b, `${id} ${moves}: the same rows`);
      const { plays: _a, ...ratedByStep } = puzzleAfterStep;
      const { plays: _b, ...ratedByAttempt } = await puzzleGlicko(id);
      assert.deepEqual(ratedByStep, ratedByAttempt, `${id} ${moves}: the puzzle rated alike`);
    }
  });

  it("solves with another mate (Lichess's rule, as /attempt), on the first move or a later one", async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const one = (await step(a, '001KR', { moves: ['d1d8'] })).body.data;
    assert.deepEqual([one.status, one.correct, one.solution], ['solved', true, ['f1f8']]);
    assert.equal((await step(b, '00Lvv', { moves: ['h5e8'] })).body.data.reply, 'd7d8');
    const two = (await step(b, '00Lvv', { moves: ['h5e8', 'e8d8'] })).body.data;
    assert.deepEqual([two.status, two.solution], ['solved', ['h5e8', 'd7d8', 'd1d8']]);
  });

  it('takes a promotion only with its piece: another piece fails the run, none is no move', async () => {
    const moves = solverMoves(PROMOTION.solution);
    const [user, other] = await Promise.all([createUser(), createUser()]);
    assert.deepEqual((await step(user, PROMOTION.id, { moves: moves.slice(0, 3) })).body.data, { status: 'continue', reply: 'b4b3' });
    const bare = await step(user, PROMOTION.id, { moves: [...moves.slice(0, 3), 'h7h8'] });
    assertError(bare, 400, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(bare.body.error.details), ['moves.3']);
    assert.equal((await step(user, PROMOTION.id, { moves })).body.data.status, 'solved');
    const knight = (await step(other, PROMOTION.id, { moves: [...moves.slice(0, 3), 'h7h8n'] })).body.data;
    assert.deepEqual([knight.status, knight.first_attempt], ['failed', true]);
  });

  it('reveals a reply only after the correct move before it: a wrong, illegal or missing move shows none', async () => {
    const user = await createUser();
    for (const body of [{ moves: [] }, {}, { moves: ['g2a7'] }, { moves: ['g2h8'] }, { moves: ['g2a8', 'a8a1'] }]) {
      const res = await step(user, MATE_IN_2.id, body);
      assertError(res, 400, 'VALIDATION_ERROR');
      assert.doesNotMatch(res.text, /c7b8|reply/, JSON.stringify(body));
    }
    assert.deepEqual(await traces(user), NOTHING);
    // A legal move that is not the solution's ends the run: the answer is the attempt's, no `reply`.
    const wrong = await step(user, MATE_IN_2.id, { moves: ['g2g3'] });
    assert.equal(wrong.body.data.status, 'failed');
    assert.equal('reply' in wrong.body.data, false);
  });

  it('answers continue only while every move so far is the solution’s, and then only with the next reply (random lines)', async function () {
    this.timeout(60_000);
    const solution = MATE_IN_3.solution;
    const { fen } = (await api('GET', `/v1/puzzles/${MATE_IN_3.id}`)).body.data;
    // At each turn the solution's move or another legal one (chosen by index), up to the solver's three moves.
    const line = fc.array(fc.tuple(fc.boolean(), fc.nat()), { minLength: 1, maxLength: 3 }).map((picks) => {
      const chess = new Chess(fen);
      const moves: string[] = [];
      for (const [i, [follow, k]] of picks.entries()) {
        const legal = chess.moves({ verbose: true }).map((m) => m.lan);
        const move = follow ? solution[2 * i] : legal[k % legal.length];
        moves.push(move);
        if (move !== solution[2 * i] || !solution[2 * i + 1]) break;
        chess.move(move);
        chess.move(solution[2 * i + 1]);
      }
      return moves;
    });
    let user = await createUser();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(line, async (moves) => {
        if (++sent % 40 === 0) user = await createUser();
        const res = await step(user, MATE_IN_3.id, { moves });
        assert.equal(res.status, 200, res.text);
        const onSolution = moves.every((m, i) => m === solution[2 * i]);
        if (onSolution && 2 * moves.length < solution.length) {
          assert.deepEqual(res.body.data, { status: 'continue', reply: solution[2 * moves.length - 1] });
        } else {
          assert.notEqual(res.body.data.status, 'continue', JSON.stringify(moves));
          assert.deepEqual(res.body.data.solution, solution);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('treats a run after the first that ended as practice: replies as before, not rated, counted', async () => {
    const user = await createUser();
    const failed = (await step(user, MATE_IN_2.id, { moves: ['g2g3'] })).body.data;
    const puzzleAfter = await puzzleGlicko(MATE_IN_2.id);
    assert.deepEqual((await step(user, MATE_IN_2.id, { moves: ['g2a8'] })).body.data, { status: 'continue', reply: 'c7b8' });
    const again = await step(user, MATE_IN_2.id, { moves: ['g2a8', 'a8b8'] });
    assert.deepEqual(again.body.data, {
      status: 'solved',
      correct: true,
      solution: MATE_IN_2.solution,
      first_attempt: false,
      rating_change: 0,
      user_rating: failed.user_rating,
      puzzle_rating: Math.round(puzzleAfter.rating),
    });
    assert.deepEqual(await puzzleGlicko(MATE_IN_2.id), puzzleAfter);
    const { attempts } = await traces(user);
    assert.deepEqual([attempts[0].correct, attempts[0].rating_change, attempts[0].attempts], [false, failed.rating_change, 2]);
    // /attempt and /step share the one first attempt: after a step's run, an attempt is not rated either.
    assert.deepEqual([(await attempt(user, MATE_IN_2.id, { moves: ['g2a8', 'a8b8'] })).body.data.first_attempt], [false]);
  });

  it('leaves a run that stops midway unrecorded: the next run that ends is the rated first attempt', async () => {
    const user = await createUser();
    await step(user, MATE_IN_3.id, { moves: ['e6e1'] });
    await step(user, MATE_IN_3.id, { moves: ['e6e1', 'e7e1'] });
    assert.deepEqual(await traces(user), NOTHING);
    const end = (await step(user, MATE_IN_3.id, { moves: ['e6e1', 'e7e1', 'h3f1'] })).body.data;
    assert.deepEqual([end.status, end.first_attempt, end.rating_change > 0], ['solved', true, true]);
  });

  it('after a first attempt by /attempt, is not rated', async () => {
    const user = await createUser();
    const first = (await attempt(user, MATE_IN_2.id, { moves: ['g2a8', 'a8b8'] })).body.data;
    const stepped = (await step(user, MATE_IN_2.id, { moves: ['g2g3'] })).body.data;
    assert.deepEqual([stepped.status, stepped.first_attempt, stepped.rating_change, stepped.user_rating], ['failed', false, 0, first.user_rating]);
  });

  it('rates exactly once when the ending step is sent many times at once', async () => {
    const user = await createUser();
    const answers = await Promise.all(Array.from({ length: 6 }, () => step(user, MATE_IN_2.id, { moves: ['g2a8', 'a8b8'] })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    assert.equal(answers.filter((a) => a.body.data.first_attempt).length, 1);
    const { attempts, rating } = await traces(user);
    assert.deepEqual([attempts.length, attempts[0].attempts, rating[0].games], [1, 6, 1]);
  });

  it('refuses malformed moves and times with 400 naming the field, and records nothing', async () => {
    const user = await createUser();
    const cases: Array<[unknown, string]> = [
      [{}, 'moves'],
      [{ moves: [] }, 'moves'],
      [{ moves: 'g2a8' }, 'moves'],
      [{ moves: null }, 'moves'],
      [{ moves: [42] }, 'moves.0'],
      [{ moves: ['G2A8'] }, 'moves.0'],
      [{ moves: ['g2a8', 'a8b9'] }, 'moves.1'],
      [{ moves: ['O-O'] }, 'moves.0'],
      [{ moves: ['x'.repeat(20_000)] }, 'moves.0'],
      // Past the end of this puzzle (two moves of the solver's), and past any puzzle.
      [{ moves: ['g2a8', 'a8b8', 'b8a8'] }, 'moves'],
      [{ moves: Array(31).fill('g2a8') }, 'moves'],
      [{ moves: ['g2a8'], time_ms: -1 }, 'time_ms'],
      [{ moves: ['g2a8'], time_ms: 1.5 }, 'time_ms'],
      [{ moves: ['g2a8'], time_ms: '5000' }, 'time_ms'],
    ];
    for (const [body, field] of cases) {
      const res = await step(user, MATE_IN_2.id, body);
      assertError(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(res.body.error.details), [field], `${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 300)}`);
    }
    assert.deepEqual(await traces(user), NOTHING);
  });

  it('answers every malformed body with a 4xx envelope and records nothing', async function () {
    this.timeout(60_000);
    const users: TestUser[] = [];
    await expectNo500('POST', `/v1/puzzles/${MATE_IN_2.id}/step`, {
      fields: ['moves', 'time_ms'],
      token: async () => {
        const u = await createUser();
        users.push(u);
        return u.accessToken;
      },
      runs: 60,
    });
    for (const u of users) assert.deepEqual(await traces(u), NOTHING);
  });

  it('answers 404 for unknown ids, 401 without a token, 403 to a personal token without puzzles:write', async () => {
    const user = await createUser();
    for (const id of ['zzzzz', 'abc', '002x3', 'a'.repeat(40)]) assertError(await step(user, id, { moves: ['g2a8'] }), 404, 'PUZZLE_NOT_FOUND');
    assertError(await api('POST', `/v1/puzzles/${MATE_IN_2.id}/step`, { body: { moves: ['g2a8'] } }), 401, 'UNAUTHORIZED');
    const reader = await personalToken(user, ['games:read']);
    const refused = await api('POST', `/v1/puzzles/${MATE_IN_2.id}/step`, { token: reader.token, ip: user.ip, body: { moves: ['g2a8'] } });
    assertError(refused, 403, 'MISSING_SCOPE');
    const writer = await personalToken(user, ['puzzles:write']);
    const allowed = await api('POST', `/v1/puzzles/${MATE_IN_2.id}/step`, { token: writer.token, ip: user.ip, body: { moves: ['g2a8'] } });
    assert.deepEqual(allowed.body.data, { status: 'continue', reply: 'c7b8' });
    assert.deepEqual(await traces(user), NOTHING);
  });

  it('counts steps as moves (100 a minute), apart from the write class', async () => {
    const user = await createUser();
    const res = await step(user, MATE_IN_2.id, { moves: ['g2a8'] });
    assert.equal(res.headers.get('x-ratelimit-limit'), '100');
    assert.equal((await attempt(user, MATE_IN_2.id, { moves: ['g2a8', 'a8b8'] })).headers.get('x-ratelimit-limit'), '30');
  });
});

import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { DEFAULT_GLICKO, rateGame } from '../../src/domain/glicko2.ts';
import { as } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { expectNo500 } from '../helpers/malformed.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const sql = async (text: string, params: unknown[] = []) => (await testService()).service.ctx.pool.query(text, params);
const attempt = (user: TestUser, id: string, body: unknown) => api('POST', `/v1/puzzles/${id}/attempt`, as(user, body));
const next = (user: TestUser) => api('GET', '/v1/puzzles/next', as(user));
const me = async (user: TestUser) => (await api('GET', '/v1/users/me', as(user))).body.data;
const puzzleRow = async (id: string) =>
  (await sql('SELECT rating, rating_deviation, imported_plays + plays_here AS plays FROM puzzles WHERE id = $1', [id])).rows[0];
const attemptRows = async (user: TestUser) =>
  (await sql('SELECT puzzle_id, correct, rating_change, attempts, time_ms FROM puzzle_attempts WHERE user_id = $1 ORDER BY first_at, puzzle_id', [user.id])).rows;
/** What the user's attempts left behind: their attempt rows and their puzzle-rating row. */
const traces = async (user: TestUser) => ({
  attempts: await attemptRows(user),
  rating: (await sql(`SELECT rating, games FROM user_ratings WHERE user_id = $1 AND category = 'puzzle'`, [user.id])).rows,
});

function assertError(res: { status: number; body: any; text: string }, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

// 002X3: mate in 2 (g2a8 c7b8 a8b8). 001KR: mate in 1 by f1f8, and d1d8 mates as well.
// 00Lvv: mate in 2 (h5e8 d7d8 d1d8), where e8d8 mates as well on the second move.
const MATE_IN_2 = { id: '002X3', solution: ['g2a8', 'c7b8', 'a8b8'], solve: ['g2a8', 'a8b8'] };
// 09KIV: the sample's hardest puzzle, rated 2787 when imported.
const HARDEST = '09KIV';

describe('puzzles: playing', () => {
  before(() => testService());

  describe('POST /puzzles/{id}/attempt', () => {
    it('rates a first solve: the user up, the puzzle down, in one go, and shows the solution', async () => {
      const user = await createUser();
      const before = await puzzleRow(MATE_IN_2.id);
      const res = await attempt(user, MATE_IN_2.id, { moves: MATE_IN_2.solve, time_ms: 8400 });
      assert.equal(res.status, 200, res.text);
      const r = res.body.data;
      assert.deepEqual(Object.keys(r).sort(), ['correct', 'first_attempt', 'puzzle_rating', 'rating_change', 'solution', 'user_rating']);
      assert.deepEqual([r.correct, r.first_attempt, r.solution], [true, true, MATE_IN_2.solution]);
      assert.ok(r.rating_change > 0, String(r.rating_change));
      assert.equal(r.user_rating, 1500 + r.rating_change);
      const after = await puzzleRow(MATE_IN_2.id);
      assert.ok(after.rating < before.rating);
      assert.equal(r.puzzle_rating, Math.round(after.rating));
      assert.equal(after.plays, before.plays + 1);
      assert.equal((await me(user)).puzzle_rating, r.user_rating);
      assert.equal((await api('GET', `/v1/users/${user.id}`, as(user))).body.data.puzzle_rating, r.user_rating);
      assert.equal((await api('GET', `/v1/puzzles/${MATE_IN_2.id}`, as(user))).body.data.rating, r.puzzle_rating);
      assert.deepEqual(await attemptRows(user), [{ puzzle_id: MATE_IN_2.id, correct: true, rating_change: r.rating_change, attempts: 1, time_ms: 8400 }]);
    });

    it('rates a first failure: the user down, the puzzle up', async () => {
      const user = await createUser();
      const before = await puzzleRow(MATE_IN_2.id);
      const res = await attempt(user, MATE_IN_2.id, { moves: ['g2g3'] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.data.correct, res.body.data.first_attempt, res.body.data.solution], [false, true, MATE_IN_2.solution]);
      assert.ok(res.body.data.rating_change < 0);
      assert.ok((await puzzleRow(MATE_IN_2.id)).rating > before.rating);
      assert.equal((await me(user)).puzzle_rating, 1500 + res.body.data.rating_change);
    });

    it('counts another mate as a solution (Lichess’s rule), on the first move or a later one', async () => {
      const [a, b] = await Promise.all([createUser(), createUser()]);
      const one = await attempt(a, '001KR', { moves: ['d1d8'] });
      assert.deepEqual([one.body.data.correct, one.body.data.solution], [true, ['f1f8']]);
      assert.ok(one.body.data.rating_change > 0);
      const two = await attempt(b, '00Lvv', { moves: ['h5e8', 'e8d8'] });
      assert.deepEqual([two.body.data.correct, two.body.data.solution], [true, ['h5e8', 'd7d8', 'd1d8']]);
    });

    it('is wrong when the line stops short, or leaves the solution with a move that does not mate', async () => {
      const user = await createUser();
      assert.equal((await attempt(user, MATE_IN_2.id, { moves: ['g2a8'] })).body.data.correct, false);
      const other = await createUser();
      assert.equal((await attempt(other, MATE_IN_2.id, { moves: ['g2a8', 'a8a7'] })).body.data.correct, false);
      // After a wrong move the rest is not looked at: an illegal move there is no 400.
      const third = await createUser();
      const res = await attempt(third, MATE_IN_2.id, { moves: ['g2g3', 'a8a1'] });
      assert.deepEqual([res.status, res.body.data?.correct, res.body.data?.first_attempt], [200, false, true], res.text);
    });

    it('lets a second account’s revealed solution earn a fresh solver no more than a solve at their own level', async () => {
      const revealer = await createUser();
      const shown = await attempt(revealer, HARDEST, { moves: ['a8b8'] });
      assert.deepEqual([shown.status, shown.body.data?.correct], [200, false], shown.text);
      const solver = await createUser();
      const puzzle = (await sql('SELECT rating, rating_deviation, volatility FROM puzzles WHERE id = $1', [HARDEST])).rows[0];
      assert.ok(puzzle.rating > 2700, String(puzzle.rating));
      const solverMoves = shown.body.data.solution.filter((_: string, i: number) => i % 2 === 0);
      const res = await attempt(solver, HARDEST, { moves: solverMoves });
      assert.deepEqual([res.status, res.body.data?.correct, res.body.data?.first_attempt], [200, true, true], res.text);
      // What a new player gains by solving a puzzle rated as they are, as uncertain as this one.
      const atOwnLevel = rateGame(DEFAULT_GLICKO, { rating: DEFAULT_GLICKO.rating, deviation: puzzle.rating_deviation, volatility: puzzle.volatility }, 1);
      assert.equal(res.body.data.rating_change, atOwnLevel.changes.white);
      assert.ok(res.body.data.rating_change < 300, String(res.body.data.rating_change));
      assert.equal((await me(solver)).puzzle_rating, 1500 + res.body.data.rating_change);
    });

    it('rates only the first attempt: later ones answer rating_change 0 and move no rating', async () => {
      const user = await createUser();
      const first = (await attempt(user, MATE_IN_2.id, { moves: ['g2g3'] })).body.data;
      const puzzleAfterFirst = await puzzleRow(MATE_IN_2.id);
      const again = await attempt(user, MATE_IN_2.id, { moves: MATE_IN_2.solve });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.data, {
        correct: true,
        solution: MATE_IN_2.solution,
        first_attempt: false,
        rating_change: 0,
        user_rating: first.user_rating,
        puzzle_rating: Math.round(puzzleAfterFirst.rating),
      });
      assert.deepEqual(await puzzleRow(MATE_IN_2.id), puzzleAfterFirst);
      assert.equal((await me(user)).puzzle_rating, first.user_rating);
      const rows = await attemptRows(user);
      assert.deepEqual([rows[0].correct, rows[0].rating_change, rows[0].attempts], [false, first.rating_change, 2]);
    });

    it('refuses an illegal move with 400 naming its place, records nothing, and leaves the first attempt to come', async () => {
      const user = await createUser();
      const before = await puzzleRow(MATE_IN_2.id);
      const res = await attempt(user, MATE_IN_2.id, { moves: ['g2a8', 'a8a1'] });
      assertError(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(res.body.error.details, { 'moves.1': ['a8a1 is not a legal move in the position'] });
      assert.deepEqual(await traces(user), { attempts: [], rating: [] });
      assert.deepEqual(await puzzleRow(MATE_IN_2.id), before);
      const later = await attempt(user, MATE_IN_2.id, { moves: MATE_IN_2.solve });
      assert.deepEqual([later.body.data.first_attempt, later.body.data.rating_change > 0], [true, true]);
    });

    it('refuses malformed moves and times with 400 naming the field, and records nothing', async () => {
      const user = await createUser();
      const cases: Array<[unknown, string]> = [
        [{}, 'moves'],
        [{ moves: [] }, 'moves'],
        [{ moves: 'g2a8' }, 'moves'],
        [{ moves: null }, 'moves'],
        [{ moves: { 0: 'g2a8' } }, 'moves'],
        [{ moves: [42] }, 'moves.0'],
        [{ moves: ['g2a8', 'a8b9'] }, 'moves.1'],
        [{ moves: ['G2A8'] }, 'moves.0'],
        [{ moves: ['g2a8 '] }, 'moves.0'],
        [{ moves: ['g2a8x'] }, 'moves.0'],
        [{ moves: ['O-O'] }, 'moves.0'],
        [{ moves: ['x'.repeat(20_000)] }, 'moves.0'],
        // More moves than the solver plays in this puzzle (two), and more than any puzzle has.
        [{ moves: ['g2a8', 'a8b8', 'b8a8'] }, 'moves'],
        [{ moves: Array(31).fill('g2a8') }, 'moves'],
        [{ moves: Array(5_000).fill('g2a8') }, 'moves'],
        [{ moves: MATE_IN_2.solve, time_ms: -1 }, 'time_ms'],
        [{ moves: MATE_IN_2.solve, time_ms: 86_400_001 }, 'time_ms'],
        [{ moves: MATE_IN_2.solve, time_ms: 1.5 }, 'time_ms'],
        [{ moves: MATE_IN_2.solve, time_ms: '5000' }, 'time_ms'],
        [{ moves: MATE_IN_2.solve, time_ms: null }, 'time_ms'],
      ];
      for (const [body, field] of cases) {
        const res = await attempt(user, MATE_IN_2.id, body);
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(Object.keys(res.body.error.details), [field], `${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 300)}`);
      }
      assert.deepEqual(await traces(user), { attempts: [], rating: [] });
    });

    it('answers every malformed body with a 4xx envelope and records nothing', async () => {
      const users: TestUser[] = [];
      await expectNo500('POST', `/v1/puzzles/${MATE_IN_2.id}/attempt`, {
        fields: ['moves', 'time_ms'],
        token: async () => {
          const u = await createUser();
          users.push(u);
          return u.accessToken;
        },
      });
      for (const u of users) assert.deepEqual(await traces(u), { attempts: [], rating: [] });
    });

    it('answers 404 PUZZLE_NOT_FOUND for unknown and malformed ids, and 401 without a token', async () => {
      const user = await createUser();
      for (const id of ['zzzzz', 'abc', '002x3', "x'%20OR%201=1", 'a'.repeat(40)]) {
        assertError(await attempt(user, id, { moves: ['g2a8'] }), 404, 'PUZZLE_NOT_FOUND');
      }
      assertError(await api('POST', `/v1/puzzles/${MATE_IN_2.id}/attempt`, { body: { moves: MATE_IN_2.solve } }), 401, 'UNAUTHORIZED');
      assert.deepEqual(await traces(user), { attempts: [], rating: [] });
    });

    it('rates exactly once when one user sends the same first attempt many times at once', async () => {
      const user = await createUser();
      const before = await puzzleRow(MATE_IN_2.id);
      const answers = await Promise.all(Array.from({ length: 8 }, () => attempt(user, MATE_IN_2.id, { moves: MATE_IN_2.solve })));
      for (const a of answers) assert.equal(a.status, 200, a.text);
      const firsts = answers.filter((a) => a.body.data.first_attempt);
      assert.equal(firsts.length, 1);
      assert.ok(firsts[0]!.body.data.rating_change > 0);
      for (const a of answers) if (a !== firsts[0]) assert.equal(a.body.data.rating_change, 0);
      assert.equal((await me(user)).puzzle_rating, firsts[0]!.body.data.user_rating);
      const { attempts, rating } = await traces(user);
      assert.deepEqual([attempts.length, attempts[0].attempts, rating[0].games], [1, 8, 1]);
      assert.equal((await puzzleRow(MATE_IN_2.id)).plays, before.plays + 1);
    });

    it('rates each of one user’s first attempts at different puzzles made at once, one after the other', async () => {
      const user = await createUser();
      const { rows } = await sql(`SELECT id, solution FROM puzzles WHERE 'mateIn1' = ANY (themes) ORDER BY id LIMIT 6`);
      const answers = await Promise.all(rows.map((p) => attempt(user, p.id, { moves: [p.solution[0]] })));
      for (const a of answers) assert.deepEqual([a.status, a.body.data.first_attempt, a.body.data.correct], [200, true, true], a.text);
      const { attempts, rating } = await traces(user);
      assert.equal(rating[0].games, 6);
      // Each was rated from the rating the one before left: the shown changes add up to the end result.
      const sum = attempts.reduce((s: number, a: { rating_change: number }) => s + a.rating_change, 0);
      assert.equal((await me(user)).puzzle_rating, 1500 + sum);
      assert.equal(new Set(answers.map((a) => a.body.data.user_rating)).size, 6);
    });

    it('rates every user once when many attempt one puzzle at once, and counts each play', async () => {
      const users = await Promise.all(Array.from({ length: 6 }, () => createUser()));
      const before = await puzzleRow('00Lvv');
      const answers = await Promise.all(users.map((u, i) => attempt(u, '00Lvv', { moves: i % 2 ? ['h5e8', 'd1d8'] : ['h5h6'] })));
      for (const a of answers) assert.deepEqual([a.status, a.body.data.first_attempt], [200, true], a.text);
      assert.equal((await puzzleRow('00Lvv')).plays, before.plays + 6);
    });
  });

  describe('GET /puzzles/next', () => {
    /** The least distance from the user's puzzle rating to a puzzle they have not attempted, by a full scan. */
    async function closestDistance(user: TestUser): Promise<number> {
      const { rows } = await sql(
        `SELECT min(abs(p.rating - coalesce((SELECT rating FROM user_ratings WHERE user_id = $1 AND category = 'puzzle'), 1500))) AS d
           FROM puzzles p WHERE NOT EXISTS (SELECT 1 FROM puzzle_attempts a WHERE a.user_id = $1 AND a.puzzle_id = p.id)`,
        [user.id],
      );
      return rows[0].d;
    }
    async function distanceOf(user: TestUser, puzzleId: string): Promise<number> {
      const { rows } = await sql(
        `SELECT abs(p.rating - coalesce((SELECT rating FROM user_ratings WHERE user_id = $1 AND category = 'puzzle'), 1500)) AS d
           FROM puzzles p WHERE p.id = $2`,
        [user.id, puzzleId],
      );
      return rows[0].d;
    }

    function wrongMove(fen: string, solutionMove: string): string {
      const chess = new Chess(fen);
      const move = chess.moves({ verbose: true }).find((m) => {
        chess.move(m);
        const mates = chess.isCheckmate();
        chess.undo();
        return m.lan !== solutionMove && !mates;
      });
      return move!.lan;
    }

    it('needs a token', async () => {
      assertError(await api('GET', '/v1/puzzles/next'), 401, 'UNAUTHORIZED');
    });

    it('gives a new player the puzzle rated closest to 1500', async () => {
      const user = await createUser();
      const res = await next(user);
      assert.equal(res.status, 200, res.text);
      assert.equal(await distanceOf(user, res.body.data.id), await closestDistance(user));
      assert.doesNotMatch(res.text, /solution/);
    });

    it('never repeats a puzzle the player attempted, and follows their rating as it moves', async () => {
      const user = await createUser();
      const seen: string[] = [];
      for (let round = 0; round < 12; round++) {
        const res = await next(user);
        assert.equal(res.status, 200, res.text);
        const { id } = res.body.data;
        assert.ok(!seen.includes(id), `${id} came again`);
        assert.equal(await distanceOf(user, id), await closestDistance(user), `round ${round}`);
        seen.push(id);
        // Solve two in three, fail the third with a legal move that neither follows the solution nor mates.
        const { fen, solution } = (await sql('SELECT fen, solution FROM puzzles WHERE id = $1', [id])).rows[0];
        const moves = round % 3 === 2 ? [wrongMove(fen, solution[0])] : solution.filter((_: string, i: number) => i % 2 === 0);
        const answer = await attempt(user, id, { moves });
        assert.deepEqual([answer.status, answer.body.data.correct], [200, round % 3 !== 2], answer.text);
      }
      assert.equal((await attemptRows(user)).length, 12);
    });

    it('answers 404 PUZZLE_NOT_FOUND once the player has attempted every puzzle', async () => {
      const user = await createUser();
      await sql(
        `INSERT INTO puzzle_attempts (user_id, puzzle_id, correct, rating_change, first_at, last_at)
         SELECT $1, id, true, 0, now(), now() FROM puzzles`,
        [user.id],
      );
      assertError(await next(user), 404, 'PUZZLE_NOT_FOUND');
    });
  });
});

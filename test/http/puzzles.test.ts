import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Chess } from 'chess.js';
import { dailyStartKey, utcDay } from '../../src/domain/puzzles.ts';
import { puzzleRoutes } from '../../src/http/routes/puzzles.ts';
import type { Services } from '../../src/services/index.ts';
import { BUNDLED_PUZZLES, importPuzzleFile } from '../../src/services/puzzleImport.ts';
import { createPuzzles, PUZZLE_COUNT_TTL_MS } from '../../src/services/puzzles.ts';
import { startApp } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { api, newIp } from '../helpers/http.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

const PUZZLE_KEYS = ['color', 'fen', 'game_url', 'id', 'last_move', 'opening_tags', 'plays', 'popularity', 'rating', 'rating_deviation', 'themes'];
/** Anonymous requests come from an address of their own (the read limit counts per address). */
const anonymous = () => ({ ip: newIp() });
const get = (url: string) => api('GET', url, anonymous());
const sql = async (text: string, params: unknown[] = []) => (await testService()).service.ctx.pool.query(text, params);
const SAMPLE_LINES = readFileSync(BUNDLED_PUZZLES, 'utf8').trimEnd().split('\n');

function assertError(res: { status: number; body: any; text: string }, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

function assertInvalid(res: { status: number; body: any; text: string }, field: string) {
  assertError(res, 400, 'VALIDATION_ERROR');
  assert.deepEqual(Object.keys(res.body.error.details), [field], res.text);
}

/** Imports CSV lines (copies of sample rows with new ids and values) into the shared database. */
async function importLines(lines: string[]): Promise<void> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'puzzles-http-')), 'p.csv');
  writeFileSync(file, [SAMPLE_LINES[0], ...lines].join('\n'));
  await importPuzzleFile((await testService()).service.ctx.pool, file, {});
}
/** A sample row (002X3: mate in 2) as a new puzzle with these values. */
const puzzleLine = (o: { id: string; rating?: number; popularity?: number; themes?: string }) => {
  const cols = SAMPLE_LINES.find((l) => l.startsWith('002X3,'))!.split(',');
  cols[0] = o.id;
  if (o.rating !== undefined) cols[3] = String(o.rating);
  if (o.popularity !== undefined) cols[5] = String(o.popularity);
  if (o.themes !== undefined) cols[7] = o.themes;
  return cols.join(',');
};
const randomId = () => Math.random().toString(36).slice(2, 9).padEnd(7, 'x');

describe('puzzles: reading', () => {
  before(() => testService());

  it('documents every puzzle route in the OpenAPI document, with its body, answers and errors', async () => {
    const { body: doc } = await get('/v1/openapi.json');
    const json = (op: any, status: string) => op.responses[status].content['application/json'].schema;
    const named = (schema: any) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
    const data = (op: any, status: string) => named(json(op, status).properties.data);
    const list = doc.paths['/puzzles'].get;
    assert.deepEqual(list.parameters.map((p: { name: string }) => p.name).sort(), ['limit', 'max_rating', 'min_rating', 'order', 'page', 'sort', 'theme']);
    assert.ok(json(list, '200').properties.pagination);
    assert.deepEqual(Object.keys(data(doc.paths['/puzzles/{id}'].get, '200').properties).sort(), PUZZLE_KEYS);
    assert.deepEqual(Object.keys(data(doc.paths['/puzzles/daily'].get, '200').properties).sort(), ['date', 'puzzle']);
    assert.ok(doc.paths['/puzzles/next'].get.responses['401'] && doc.paths['/puzzles/next'].get.responses['404']);
    const post = doc.paths['/puzzles/{id}/attempt'].post;
    const body = post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(body.properties).sort(), ['moves', 'time_ms']);
    assert.deepEqual(body.required, ['moves']);
    assert.deepEqual(Object.keys(data(post, '200').properties).sort(), ['correct', 'first_attempt', 'puzzle_rating', 'rating_change', 'solution', 'user_rating']);
    assert.ok(post.responses['400'] && post.responses['404']);
  });

  describe('GET /puzzles', () => {
    it('lists puzzles by rating, lowest first, 20 a page, with the total; the solution is never shown', async () => {
      const res = await get('/v1/puzzles');
      assert.equal(res.status, 200, res.text);
      const { rows } = await sql('SELECT count(*)::int AS n FROM puzzles');
      assert.deepEqual({ ...res.body.pagination, total_pages: 0, totalPages: 0 }, {
        page: 1, limit: 20, total: rows[0].n, total_pages: 0, totalPages: 0, hasNext: true, hasPrev: false,
      });
      assert.equal(res.body.pagination.total_pages, Math.ceil(rows[0].n / 20));
      assert.equal(res.body.data.length, 20);
      for (const p of res.body.data) assert.deepEqual(Object.keys(p).sort(), PUZZLE_KEYS);
      const ratings = res.body.data.map((p: { rating: number }) => p.rating);
      assert.deepEqual(ratings, [...ratings].sort((a, b) => a - b));
      assert.doesNotMatch(res.text, /solution/);
    });

    it('filters by theme and by rating bounds, which include the ratings shown', async () => {
      const theme = `probe${randomId()}`;
      const ids = ['a', 'b', 'c', 'd'].map((s) => `${s}${randomId()}`);
      await importLines([
        puzzleLine({ id: ids[0]!, rating: 1199, themes: `${theme} mate` }),
        puzzleLine({ id: ids[1]!, rating: 1200, themes: `${theme} fork` }),
        puzzleLine({ id: ids[2]!, rating: 1300, themes: theme }),
        puzzleLine({ id: ids[3]!, rating: 1301, themes: theme }),
      ]);
      const list = async (query: string) => (await get(`/v1/puzzles?theme=${theme}${query}`)).body;
      const all = await list('');
      assert.deepEqual(all.data.map((p: { id: string }) => p.id), ids);
      assert.equal(all.pagination.total, 4);
      const bounded = await list('&min_rating=1200&max_rating=1300');
      assert.deepEqual(bounded.data.map((p: { id: string }) => p.id), [ids[1], ids[2]]);
      assert.equal(bounded.pagination.total, 2);
      assert.deepEqual((await list('&min_rating=1300')).data.map((p: { id: string }) => p.id), [ids[2], ids[3]]);
      assert.deepEqual((await list('&max_rating=1199')).data.map((p: { id: string }) => p.id), [ids[0]]);
      for (const p of all.data) assert.ok(p.themes.includes(theme));
    });

    it('filters the whole table by rating, every puzzle within the bounds and none outside missing', async () => {
      const res = await get('/v1/puzzles?min_rating=1000&max_rating=1100&limit=100');
      const { rows } = await sql('SELECT count(*)::int AS n FROM puzzles WHERE round(rating) BETWEEN 1000 AND 1100');
      assert.equal(res.body.pagination.total, rows[0].n);
      for (const p of res.body.data) assert.ok(p.rating >= 1000 && p.rating <= 1100, String(p.rating));
    });

    it('sorts by popularity or rating, ascending unless told otherwise, -field descending', async () => {
      const theme = `sort${randomId()}`;
      const ids = ['a', 'b', 'c'].map((s) => `${s}${randomId()}`);
      await importLines([
        puzzleLine({ id: ids[0]!, rating: 1500, popularity: 90, themes: theme }),
        puzzleLine({ id: ids[1]!, rating: 1400, popularity: -20, themes: theme }),
        puzzleLine({ id: ids[2]!, rating: 1600, popularity: 40, themes: theme }),
      ]);
      const order = async (query: string) => (await get(`/v1/puzzles?theme=${theme}&${query}`)).body.data.map((p: { id: string }) => p.id);
      assert.deepEqual(await order('sort=popularity'), [ids[1], ids[2], ids[0]]);
      assert.deepEqual(await order('sort=-popularity'), [ids[0], ids[2], ids[1]]);
      assert.deepEqual(await order('sort=rating'), [ids[1], ids[0], ids[2]]);
      assert.deepEqual(await order('sort=rating&order=desc'), [ids[2], ids[0], ids[1]]);
      assert.deepEqual(await order('sort=-rating&order=asc'), [ids[2], ids[0], ids[1]]);
      assert.deepEqual(await order('order=desc'), [ids[2], ids[0], ids[1]]);
    });

    it('pages on without repeating or skipping a puzzle', async () => {
      const one = (await get('/v1/puzzles?limit=7&page=1')).body;
      const two = (await get('/v1/puzzles?limit=7&page=2')).body;
      const both = (await get('/v1/puzzles?limit=14&page=1')).body;
      assert.deepEqual([...one.data, ...two.data].map((p: { id: string }) => p.id), both.data.map((p: { id: string }) => p.id));
      assert.equal(two.pagination.hasPrev, true);
    });

    it('keeps a filter’s total for a minute on the service clock: new puzzles list at once and count after it', async () => {
      const { service } = await testService();
      const clock = new ManualClock(Date.now());
      const app = await startApp({ routes: puzzleRoutes({ puzzles: createPuzzles({ ...service.ctx, clock }) } as Services) });
      try {
        const theme = `count${randomId()}`;
        const list = async () => (await (await fetch(`${app.url}/v1/puzzles?theme=${theme}`)).json()) as { data: unknown[]; pagination: { total: number } };
        await importLines([puzzleLine({ id: `a${randomId()}`, themes: theme })]);
        assert.deepEqual([(await list()).data.length, (await list()).pagination.total], [1, 1]);
        await importLines([puzzleLine({ id: `b${randomId()}`, themes: theme })]);
        await clock.advance(PUZZLE_COUNT_TTL_MS - 1);
        const stale = await list();
        assert.deepEqual([stale.data.length, stale.pagination.total], [2, 1]);
        await clock.advance(1);
        assert.equal((await list()).pagination.total, 2);
      } finally {
        await app.close();
      }
    });

    it('answers an empty list with total 0 and total_pages 0', async () => {
      const res = await get('/v1/puzzles?theme=noSuchThemeAnywhere');
      assert.deepEqual(res.body.data, []);
      assert.equal(res.body.pagination.total, 0);
      assert.equal(res.body.pagination.total_pages, 0);
    });

    it('refuses bad filters with 400 naming the parameter', async () => {
      const cases: Array<[string, string]> = [
        ['theme=mate%20in%202', 'theme'],
        ['theme=mate&theme=fork', 'theme'],
        [`theme=${'x'.repeat(65)}`, 'theme'],
        ['min_rating=abc', 'min_rating'],
        ['min_rating=1e3', 'min_rating'],
        ['min_rating=-5', 'min_rating'],
        ['min_rating=', 'min_rating'],
        ['max_rating=1500.5', 'max_rating'],
        ['min_rating=1600&max_rating=1500', 'max_rating'],
        ['sort=plays', 'sort'],
        ['sort=rating,popularity', 'sort'],
        ['order=up', 'order'],
        ['page=0', 'page'],
        ['page=1001', 'page'],
        ['limit=101', 'limit'],
      ];
      for (const [query, field] of cases) assertInvalid(await get(`/v1/puzzles?${query}`), field);
    });
  });

  describe('GET /puzzles/{id}', () => {
    it('answers the position after the setup move, the solver to move, and no solution', async () => {
      const res = await get('/v1/puzzles/002X3');
      assert.equal(res.status, 200, res.text);
      const p = res.body.data;
      assert.deepEqual(Object.keys(p).sort(), PUZZLE_KEYS);
      const chess = new Chess('6k1/2q2p1p/4pPp1/4P3/p1pP1P2/RrP5/6QP/4B1K1 b - - 0 33');
      chess.move({ from: 'b3', to: 'a3' });
      assert.deepEqual(
        { fen: p.fen, last_move: p.last_move, color: p.color, themes: p.themes, opening_tags: p.opening_tags, game_url: p.game_url },
        {
          fen: chess.fen(),
          last_move: 'b3a3',
          color: 'white',
          themes: ['endgame', 'mate', 'mateIn2', 'short'],
          opening_tags: [],
          game_url: 'https://lichess.org/yshS3bLB/black#66',
        },
      );
      for (const key of ['rating', 'rating_deviation', 'popularity', 'plays']) assert.ok(Number.isInteger(p[key]), key);
      assert.doesNotMatch(res.text, /g2a8|c7b8|solution/);
    });

    it('keeps ids case-sensitive, as Lichess does', async () => {
      assert.equal((await get('/v1/puzzles/000rZ')).body.data.id, '000rZ');
      assertError(await get('/v1/puzzles/000RZ'), 404, 'PUZZLE_NOT_FOUND');
    });

    it('answers 404 PUZZLE_NOT_FOUND for unknown and malformed ids', async () => {
      for (const id of ['zzzzz', 'abc', 'a'.repeat(50), "x'%20OR%201=1", '%F0%9F%98%80', '00000000-0000-0000-0000-000000000000', '..%2F..']) {
        assertError(await get(`/v1/puzzles/${id}`), 404, 'PUZZLE_NOT_FOUND');
      }
    });

    it('takes a token but refuses an invalid one', async () => {
      const user = await createUser();
      assert.equal((await api('GET', '/v1/puzzles/002X3', { token: user.accessToken, ip: user.ip })).status, 200);
      assertError(await api('GET', '/v1/puzzles/002X3', { token: 'not-a-token', ...anonymous() }), 401, 'UNAUTHORIZED');
    });
  });

  describe('GET /puzzles/daily', () => {
    it("answers today's UTC date and a puzzle chosen among the popular ones rated 1500–2300, the same twice", async () => {
      const first = await get('/v1/puzzles/daily');
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(Object.keys(first.body.data).sort(), ['date', 'puzzle']);
      assert.equal(first.body.data.date, utcDay(Date.now()));
      assert.deepEqual(Object.keys(first.body.data.puzzle).sort(), PUZZLE_KEYS);
      const again = await get('/v1/puzzles/daily');
      assert.equal(again.body.data.puzzle.id, first.body.data.puzzle.id);
      const { rows } = await sql('SELECT popularity, imported_rating FROM puzzles WHERE id = $1', [first.body.data.puzzle.id]);
      assert.ok(rows[0].popularity >= 80 && rows[0].imported_rating >= 1500 && rows[0].imported_rating <= 2300, JSON.stringify(rows[0]));
    });

    describe('on the service clock', () => {
      let app: { url: string; close: () => Promise<void> };
      let clock: ManualClock;
      // A year no other test asks about: the days below are this file's alone.
      const start = Date.UTC(2031, 2, 10, 0, 0, 0);

      before(async () => {
        const { service } = await testService();
        clock = new ManualClock(start);
        const puzzles = createPuzzles({ ...service.ctx, clock });
        app = await startApp({ routes: puzzleRoutes({ puzzles } as Services) });
      });
      after(() => app.close());

      const daily = async () => {
        const res = await fetch(`${app.url}/v1/puzzles/daily`);
        assert.equal(res.status, 200);
        return (await res.json()).data as { date: string; puzzle: { id: string } };
      };

      it('keeps one puzzle all day, from its first millisecond to its last', async () => {
        const first = await daily();
        assert.equal(first.date, '2031-03-10');
        await clock.advance(12 * 3600_000);
        assert.equal((await daily()).puzzle.id, first.puzzle.id);
        await clock.advance(12 * 3600_000 - 1);
        const last = await daily();
        assert.deepEqual([last.date, last.puzzle.id], ['2031-03-10', first.puzzle.id]);
      });

      it('changes with the UTC day, never repeating while other candidates remain', async () => {
        const seen = new Map<string, string>();
        for (let day = 0; day < 4; day++) {
          const d = await daily();
          seen.set(d.date, d.puzzle.id);
          await clock.advance(24 * 3600_000);
        }
        assert.deepEqual([...seen.keys()], ['2031-03-10', '2031-03-11', '2031-03-12', '2031-03-13']);
        assert.equal(new Set(seen.values()).size, 4);
        const { rows } = await sql(`SELECT day::text, puzzle_id FROM daily_puzzles WHERE day BETWEEN '2031-03-10' AND '2031-03-13' ORDER BY day`);
        assert.deepEqual(rows.map((r) => [r.day, r.puzzle_id]), [...seen.entries()]);
      });

      it('stores the day’s puzzle the first time it is asked: a puzzle imported later does not replace it', async () => {
        const day = utcDay(clock.now());
        const first = await daily();
        // This puzzle's id is exactly where the day's search starts: picked afresh, it would win.
        await importLines([puzzleLine({ id: dailyStartKey(day), rating: 1800, popularity: 95 })]);
        assert.equal((await daily()).puzzle.id, first.puzzle.id);
      });

      it('gives every node the same puzzle when they ask for a new day at once', async () => {
        const { service } = await testService();
        await clock.advance(24 * 3600_000);
        const nodes = [1, 2, 3, 4].map(() => createPuzzles({ ...service.ctx, clock }));
        const answers = await Promise.all(nodes.map((n) => n.daily()));
        assert.equal(new Set(answers.map((a) => a.puzzle.id)).size, 1);
        const { rows } = await sql('SELECT count(*)::int AS n FROM daily_puzzles WHERE day = $1', [answers[0]!.date]);
        assert.equal(rows[0].n, 1);
      });
    });

    it('answers 404 PUZZLE_NOT_FOUND while no puzzle qualifies', async () => {
      const { service } = await testService();
      const empty = await isolatedDatabase();
      const app = await startApp({ routes: puzzleRoutes({ puzzles: createPuzzles({ ...service.ctx, pool: empty.pool }) } as Services) });
      try {
        const res = await fetch(`${app.url}/v1/puzzles/daily`);
        assert.equal(res.status, 404);
        assert.equal((await res.json()).error.code, 'PUZZLE_NOT_FOUND');
      } finally {
        await app.close();
        await empty.drop();
      }
    });
  });
});

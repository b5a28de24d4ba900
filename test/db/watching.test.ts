import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import { findFeatured, LIVE_GAMES_SQL, listLiveGames, replaceFeatured } from '../../src/db/watching.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';

type PlanNode = { 'Node Type': string; 'Index Name'?: string; 'Actual Rows'?: number; Plans?: PlanNode[] };
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/**
 * DESIGN 2.14: the live list is a read of PostgreSQL that stays cheap however many games there
 * are, and the featured game is changed only by a compare and set, so nodes agree on one.
 */
describe('watching in PostgreSQL (migration 031)', function () {
  this.timeout(60_000);
  let pool: Pool;
  let drop: () => Promise<void>;

  before(async () => {
    ({ pool, drop } = await isolatedDatabase());
    // 1,000 live games (ratings spread over 1000–2998, two moves each), 300 correspondence games
    // rated above them all, and 20,000 finished games: what the list must step over.
    await pool.query(`INSERT INTO users (email, username, password_hash)
                      SELECT 'p' || i || '@example.com', 'p' || i, 'x' FROM generate_series(1, 200) i`);
    const players = `(SELECT array_agg(id ORDER BY username) FROM users)`;
    await pool.query(`
      WITH p AS (SELECT ${players} AS ids)
      INSERT INTO games (kind, created_by, white_id, black_id, status, time_control, initial_time, increment, days_per_move,
                         rated, white_time_ms, black_time_ms, white_rating, black_rating, started_at)
      SELECT 'challenge', p.ids[1 + i % 100], p.ids[1 + i % 100], p.ids[101 + i % 100],
             CASE WHEN i <= 1300 THEN 'active' ELSE 'finished' END,
             CASE WHEN i BETWEEN 1001 AND 1300 THEN 'correspondence' ELSE 'blitz' END, 300, 0,
             CASE WHEN i BETWEEN 1001 AND 1300 THEN 3 END, true, 300000, 300000,
             CASE WHEN i BETWEEN 1001 AND 1300 THEN 3000 ELSE 1000 + (i * 7919) % 1000 * 2 END,
             CASE WHEN i BETWEEN 1001 AND 1300 THEN 3000 ELSE 1000 + (i * 7919) % 1000 * 2 END, now()
        FROM p, generate_series(1, 21300) i`);
    await pool.query(`
      INSERT INTO game_moves (game_id, ply, san, uci, clock_ms, fen, white_ms, black_ms, event_seq, played_at)
      SELECT g.id, m.ply, m.san, m.uci, 300000, m.fen, 300000, 300000, m.ply, now()
        FROM games g CROSS JOIN (VALUES
          (1, 'e4', 'e2e4', 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'),
          (2, 'e5', 'e7e5', 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2')) AS m(ply, san, uci, fen)
       WHERE g.status = 'active'`);
    await pool.query('ANALYZE games; ANALYZE game_moves; ANALYZE users');
  });
  after(() => drop?.());

  it('lists the live games (no correspondence game) by average rating, each at its last move', async () => {
    const games = await listLiveGames(pool, 20);
    assert.equal(games.length, 20);
    const averages = games.map((g) => (g.white.rating + g.black.rating) / 2);
    assert.deepEqual(averages, [...averages].sort((a, b) => b - a));
    assert.ok(averages[0] < 3000, 'correspondence games are not live games');
    assert.equal(averages[0], 2998);
    for (const g of games) {
      assert.deepEqual([g.lastMove, g.moveCount, g.fen], ['e7e5', 2, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2']);
    }
  });

  it('reads 20 rows of its index on 1,000 live games among 21,300, with no sort and no scan of the table', async () => {
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${LIVE_GAMES_SQL.replace('$1', '20')}`);
    const plan = rows[0]['QUERY PLAN'][0];
    const all = nodes(plan.Plan);
    const scan = all.find((n) => n['Index Name'] === 'games_live_rating_idx');
    assert.ok(scan, `the list index is read: ${JSON.stringify(all.map((n) => [n['Node Type'], n['Index Name']]))}`);
    assert.equal(scan['Actual Rows'], 20, 'from its top, as many rows as asked');
    assert.equal(all.filter((n) => n['Node Type'] === 'Sort' || (n['Node Type'] === 'Seq Scan')).length, 0);
    assert.ok(plan['Execution Time'] < 50, `${plan['Execution Time']} ms`);
  });

  it('changes the featured game only from the one it expects: of two nodes at once, one wins', async () => {
    const [a, b] = (await listLiveGames(pool, 2)).map((g) => g.id);
    assert.deepEqual(await findFeatured(pool, 'best'), { gameId: null, live: false });
    const wins = await Promise.all([replaceFeatured(pool, 'best', null, a), replaceFeatured(pool, 'best', null, b)]);
    assert.deepEqual(wins.sort(), [false, true]);
    const held = await findFeatured(pool, 'best');
    assert.ok(held.gameId === a || held.gameId === b);
    assert.equal(held.live, true);
    await pool.query(`UPDATE games SET status = 'finished' WHERE id = $1`, [held.gameId]);
    assert.deepEqual(await findFeatured(pool, 'best'), { gameId: held.gameId, live: false });
  });
});

/**
 * Benchmark: PostgreSQL's CPU for the writes a live game makes, measured on the backend that
 * runs them (its own /proc entry), so nothing else on the machine counts: a move batch of one
 * move (what a human-paced game sends: at a few hundred moves a second a batch carries one or
 * two) and a lease renewal (the host renews its games RENEW_CHUNK rows a statement, every third
 * of the lease). Prints one JSON report.
 *
 *   npx tsx loadtest/gameWrites.ts [--games 2000] [--plies 10] [--finished 100000]
 *
 * The games sit in a table that also holds `--finished` finished games, so the indexes a write
 * touches have a realistic depth. DATABASE_URL names the server (a fresh database is created and
 * dropped).
 */
import '../src/polyfills.ts';
import { renewLeases } from '../src/db/liveGames.ts';
import { migrate } from '../src/db/migrate.ts';
import { MoveWriter, type MoveWrite } from '../src/db/moveWriter.ts';
import { createPool } from '../src/db/pool.ts';
import { RENEW_CHUNK } from '../src/services/liveGameHost.ts';
import { createDatabase } from '../test/support/database.ts';
import { insertUser } from '../test/support/fixtures.ts';
import { processCpu } from './cpu.ts';
import { arg } from './args.ts';

const GAMES = arg('games', 2000);
const PLIES = arg('plies', 10);
const FINISHED = arg('finished', 100_000);

async function main() {
  const db = await createDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const setup = createPool(db.url, 4);
  // One connection: every write below runs on the backend whose CPU is read.
  const pool = createPool(db.url, 1);
  try {
    await migrate(setup);
    const [white, black] = [await insertUser(setup), await insertUser(setup)];
    await setup.query(
      `INSERT INTO games (kind, created_by, white_id, black_id, status, result, winner, termination, time_control,
                          initial_time, increment, rated, white_time_ms, black_time_ms, pgn, move_count,
                          created_at, updated_at, started_at, finished_at)
       SELECT 'challenge', $1, $1, $2, 'finished', '1-0', 'white', 'resignation', 'blitz', 300, 0, true, 1000, 1000,
              '1. e4 e5 2. Nf3 Nc6 3. Bb5 a6', 6, t, t, t, t
         FROM generate_series(1, $3::int) AS s(i), LATERAL (SELECT now() - make_interval(mins => s.i)) AS at(t)`,
      [white, black, FINISHED],
    );
    const { rows } = await setup.query(
      `INSERT INTO games (kind, created_by, white_id, black_id, status, time_control, initial_time, increment, rated,
                          white_time_ms, black_time_ms, white_rating, black_rating, started_at)
       SELECT 'challenge', $1, $1, $2, 'active', 'blitz', 300, 2, true, 300000, 300000, 1500, 1500, now()
         FROM generate_series(1, $3::int) RETURNING id`,
      [white, black, GAMES],
    );
    const games = rows.map((r) => r.id as string);
    await setup.query('VACUUM ANALYZE games');
    const backend = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const writer = new MoveWriter(pool);
    const move = (gameId: string, ply: number): MoveWrite => ({
      gameId,
      epoch: 0,
      ply,
      san: ply % 2 ? 'Nf3' : 'Nf6',
      uci: ply % 2 ? 'g1f3' : 'g8f6',
      fen: 'rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2',
      pgn: '1. Nf3 Nf6',
      playedAt: new Date(),
      clockMs: 298_000,
      whiteMs: 298_000,
      blackMs: 299_000,
      clockRunning: ply >= 2,
      firstMoveDeadline: null,
      roomState: { whiteQuotaMs: 3000, blackQuotaMs: 3000 },
      eventSeq: ply,
      moverId: ply % 2 ? white : black,
      lapsesOffer: false,
    });

    const movesStart = { cpu: processCpu(backend), at: performance.now() };
    for (let ply = 1; ply <= PLIES; ply++) {
      for (const gameId of games) if (!(await writer.write(move(gameId, ply)))) throw new Error(`move ${ply} of ${gameId} did not land`);
    }
    const batches = GAMES * PLIES;
    const moves = { cpu: processCpu(backend) - movesStart.cpu, ms: performance.now() - movesStart.at };

    const renewStart = { cpu: processCpu(backend), at: performance.now() };
    const ROUNDS = 10;
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < games.length; i += RENEW_CHUNK) {
        const chunk = games.slice(i, i + RENEW_CHUNK).map((gameId) => ({ gameId, epoch: 0 }));
        await renewLeases(pool, chunk, 15_000);
      }
    }
    const renewals = { cpu: processCpu(backend) - renewStart.cpu, ms: performance.now() - renewStart.at };
    const stats = (await setup.query(`SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'games'`)).rows[0];

    console.log(
      JSON.stringify(
        {
          benchmark: 'PostgreSQL CPU per live-game write, on the backend that runs it',
          settings: { games: GAMES, plies: PLIES, finished_games: FINISHED, renew_chunk: RENEW_CHUNK },
          move_batch_of_one: {
            batches,
            postgres_cpu_us_per_batch: Math.round((moves.cpu * 1e6) / batches),
            wall_us_per_batch: Math.round((moves.ms * 1e3) / batches),
          },
          lease_renewal: {
            rows: GAMES * ROUNDS,
            postgres_cpu_us_per_row: Math.round((renewals.cpu * 1e6) / (GAMES * ROUNDS)),
            wall_ms_per_statement: +((renewals.ms / ((GAMES / RENEW_CHUNK) * ROUNDS)).toFixed(2)),
          },
          games_updates: { total: Number(stats.n_tup_upd), heap_only: Number(stats.n_tup_hot_upd) },
        },
        null,
        2,
      ),
    );
  } finally {
    await pool.end();
    await setup.end();
    await db.drop();
  }
}

await main();

/**
 * A database of finished games for the read benchmarks (loadtest/reads.ts): `--games` finished
 * or abandoned games (1,000,000 by default) between `--users` players with ratings, countries and
 * win/loss counts, made by a few INSERT … SELECT over generate_series on the server itself
 * (about two minutes for a million games here).
 *
 *   npx tsx loadtest/gamesDb.ts [--games 1000000] [--users 20000] [--fresh]
 *
 * DATABASE_URL names the PostgreSQL server (default the local one). The database is called
 * `chess_bench_reads_<games>` and kept for the next run (the test harness drops only
 * `chess_test_*` databases); `--fresh` builds it again; drop it with
 * `psql -c 'DROP DATABASE chess_bench_reads_1000000'`.
 *
 * What the reads need, and only that: every column a list row or a detail shows (players,
 * ratings at start, clocks, FEN and PGN movetext of real move sequences, results and endings,
 * created/updated times spread over two years, activity skewed so some players have thousands
 * of games), with the indexes the migrations create. Finished games get no `game_moves` rows
 * (lists never read them; the benchmark reads the detail of a live game, which has its moves).
 */
import { Chess } from 'chess.js';
import pg from 'pg';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { arg, flag } from './args.ts';

export type GamesDbOptions = { games: number; users: number; fresh?: boolean; log?: (line: string) => void };
export type GamesDb = { url: string; name: string; built: boolean; buildSeconds?: number };

/** Word parts of the players' names, so that substring searches match a realistic share of them. */
const NAME_PARTS = [
  'magnus', 'tal', 'knight', 'rook', 'bishop', 'pawn', 'queen', 'castle', 'gambit', 'blitz', 'tiger', 'dragon', 'sicilian',
  'fischer', 'caro', 'kann', 'zugzwang', 'endgame', 'opening', 'tempo', 'fork', 'pin', 'skewer', 'mate', 'check', 'shadow',
  'falcon', 'wolf', 'bear', 'hawk', 'nimzo', 'indian', 'french', 'dutch', 'slav', 'london', 'alekhine', 'petrov', 'nomad', 'sniper',
];
const COUNTRIES = ['US', 'IN', 'RU', 'DE', 'FR', 'GB', 'ES', 'BR', 'NO', 'NL', 'PL', 'UA', 'AR', 'CN', 'TR', 'IT', 'CA', 'SE'];

/** Real move sequences of many lengths: each game takes the FEN, movetext and ply count of one. */
function sampleGames(count: number): { fen: string; pgn: string; plies: number }[] {
  const out: { fen: string; pgn: string; plies: number }[] = [];
  let s = 12345;
  const rand = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let k = 0; k < count; k++) {
    const chess = new Chess();
    const target = 10 + Math.floor(rand() * 110);
    const san: string[] = [];
    while (san.length < target && !chess.isGameOver()) {
      const moves = chess.moves();
      san.push(chess.move(moves[Math.floor(rand() * moves.length)]).san);
    }
    const text = san.map((m, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${m}` : m)).join(' ');
    out.push({ fen: chess.fen(), pgn: text, plies: san.length });
  }
  return out;
}

export const benchDatabaseName = (games: number) => `chess_bench_reads_${games}`;
const MARK = (o: GamesDbOptions) => `reads benchmark: ${o.games} games, ${o.users} users`;

/** The benchmark database on the server of `serverUrl`, built unless a complete one is there. */
export async function ensureGamesDatabase(serverUrl: string, o: GamesDbOptions): Promise<GamesDb> {
  const log = o.log ?? (() => {});
  const name = benchDatabaseName(o.games);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = $1`,
      [name],
    );
    if (rows[0] && rows[0].mark === MARK(o) && !o.fresh) return { url: url.toString(), name, built: false };
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const t0 = Date.now();
  await fill(url.toString(), o, log);
  const marker = new pg.Client({ connectionString: serverUrl });
  await marker.connect();
  // Only a database filled to the end carries the mark, so an interrupted build is built again.
  await marker.query(`COMMENT ON DATABASE ${name} IS '${MARK(o)}'`);
  await marker.end();
  return { url: url.toString(), name, built: true, buildSeconds: Math.round((Date.now() - t0) / 1000) };
}

async function fill(url: string, o: GamesDbOptions, log: (line: string) => void): Promise<void> {
  const pool = createPool(url, 2, { statementTimeoutMs: 0 });
  try {
    await migrate(pool);
    const db = await pool.connect();
    try {
      // The rows are consistent by construction: skip the per-row foreign-key triggers.
      await db.query(`SET session_replication_role = replica`);
      log(`users: ${o.users}`);
      await db.query(
        `INSERT INTO users (email, username, password_hash, country, email_verified, created_at, updated_at)
         SELECT 'player' || i || '@example.com',
                left(($1::text[])[1 + (i * 7) % cardinality($1::text[])] || '_' || ($1::text[])[1 + (i * 13) % cardinality($1::text[])], 14) || i,
                '$2b$04$benchmarkbenchmarkbenchmarkbenchmarkbenchmarkbenchmark',
                CASE WHEN i % 5 = 0 THEN NULL ELSE ($2::text[])[1 + i % cardinality($2::text[])] END,
                i % 3 <> 0, now() - make_interval(days => 730 + i % 365), now() - make_interval(days => i % 30)
           FROM generate_series(1, $3::int) i`,
        [NAME_PARTS, COUNTRIES, o.users],
      );
      await db.query(
        `INSERT INTO user_ratings (user_id, category, rating, rd, volatility, games)
         SELECT u.id, c, 1500 + (random() + random() + random() - 1.5) * 500, 60 + random() * 100, 0.06, (random() * 500)::int
           FROM users u CROSS JOIN unnest(ARRAY['bullet', 'blitz', 'rapid', 'classical']) c`,
      );
      // Players by number, so a game can pick them with arithmetic; activity is skewed (the
      // square of a uniform number): low numbers play far more often.
      await db.query(`CREATE TEMP TABLE players AS SELECT row_number() OVER (ORDER BY created_at, id) AS n, id FROM users`);
      await db.query(`CREATE UNIQUE INDEX ON players (n)`);
      const samples = sampleGames(200);
      await db.query(`CREATE TEMP TABLE samples (k int PRIMARY KEY, fen text, pgn text, plies int)`);
      await db.query(
        `INSERT INTO samples SELECT k - 1, fen, pgn, plies FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS s(fen, pgn, plies, k)`,
        [samples.map((x) => x.fen), samples.map((x) => x.pgn), samples.map((x) => x.plies)],
      );
      log(`games: ${o.games}`);
      const CHUNK = 250_000;
      for (let from = 1; from <= o.games; from += CHUNK) {
        const to = Math.min(o.games, from + CHUNK - 1);
        await db.query(
          `WITH g AS (
             SELECT i,
                    1 + floor(power(random(), 2) * $3::int)::int AS wn,
                    random() AS r_result, random() AS r_end, random() AS r_tc, random() AS r_abandon,
                    now() - make_interval(secs => random() * 730 * 86400) AS created,
                    ((i::bigint * 7919) % 200)::int AS k
               FROM generate_series($1::int, $2::int) i
           ), g2 AS (
             -- Black is another player: an offset from White that is never 0.
             SELECT g.*, 1 + (wn + floor(random() * ($3::int - 1))::int) % $3::int AS bn,
                    CASE WHEN r_tc < 0.30 THEN 'bullet' WHEN r_tc < 0.70 THEN 'blitz' WHEN r_tc < 0.95 THEN 'rapid' ELSE 'classical' END AS tc
               FROM g
           )
           INSERT INTO games (kind, created_by, white_id, black_id, color_preference, status, result, winner, termination,
             abort_reason, time_control, initial_time, increment, rated, fen, pgn, move_count, white_time_ms, black_time_ms,
             white_rating, black_rating, white_rating_change, black_rating_change, event_seq, created_at, updated_at,
             started_at, finished_at, last_move_at)
           SELECT CASE WHEN i % 10 < 7 THEN 'matchmaking' ELSE 'challenge' END, w.id, w.id, b.id, 'random',
                  CASE WHEN r_abandon < 0.03 THEN 'abandoned' ELSE 'finished' END,
                  CASE WHEN r_abandon < 0.03 THEN NULL WHEN r_result < 0.48 THEN '1-0' WHEN r_result < 0.92 THEN '0-1' ELSE '1/2-1/2' END,
                  CASE WHEN r_abandon < 0.03 THEN NULL WHEN r_result < 0.48 THEN 'white' WHEN r_result < 0.92 THEN 'black' END,
                  CASE WHEN r_abandon < 0.03 THEN NULL
                       WHEN r_result >= 0.92 THEN CASE WHEN r_end < 0.7 THEN 'agreement' ELSE 'repetition' END
                       WHEN r_end < 0.6 THEN 'resignation' WHEN r_end < 0.9 THEN 'timeout' ELSE 'checkmate' END,
                  CASE WHEN r_abandon < 0.03 THEN 'no_first_move' END,
                  tc,
                  CASE tc WHEN 'bullet' THEN 60 WHEN 'blitz' THEN 180 WHEN 'rapid' THEN 600 ELSE 1800 END,
                  CASE tc WHEN 'bullet' THEN 0 WHEN 'blitz' THEN 2 WHEN 'rapid' THEN 5 ELSE 10 END,
                  i % 5 <> 0,
                  CASE WHEN r_abandon < 0.03 THEN 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' ELSE s.fen END,
                  CASE WHEN r_abandon < 0.03 THEN '' ELSE s.pgn END,
                  CASE WHEN r_abandon < 0.03 THEN 0 ELSE s.plies END,
                  (random() * 60000)::int, (random() * 60000)::int,
                  (1500 + (random() + random() + random() - 1.5) * 500)::int, (1500 + (random() + random() + random() - 1.5) * 500)::int,
                  CASE WHEN r_abandon >= 0.03 AND i % 5 <> 0 THEN (random() * 16 - 8)::int END,
                  CASE WHEN r_abandon >= 0.03 AND i % 5 <> 0 THEN (random() * 16 - 8)::int END,
                  s.plies + 1, created, created + make_interval(secs => 30 + s.plies * 6),
                  created + interval '2 seconds', created + make_interval(secs => 30 + s.plies * 6),
                  created + make_interval(secs => 30 + s.plies * 6)
             FROM g2 JOIN players w ON w.n = g2.wn JOIN players b ON b.n = g2.bn JOIN samples s ON s.k = g2.k`,
          [from, to, o.users],
        );
        log(`  ${to}`);
      }
      // Unrated games and abandoned ones change no rating, as the service would have it.
      await db.query(`UPDATE games SET white_rating_change = 0, black_rating_change = 0 WHERE status = 'finished' AND NOT rated`);
      log('player stats');
      await db.query(
        `UPDATE users u SET games_played = s.games, wins = s.wins, losses = s.losses, draws = s.draws
           FROM (SELECT id, count(*) AS games, count(*) FILTER (WHERE score = 1) AS wins, count(*) FILTER (WHERE score = 0) AS losses,
                        count(*) FILTER (WHERE score = 0.5) AS draws
                   FROM (SELECT white_id AS id, CASE result WHEN '1-0' THEN 1 WHEN '0-1' THEN 0 ELSE 0.5 END AS score FROM games WHERE status = 'finished'
                         UNION ALL
                         SELECT black_id, CASE result WHEN '1-0' THEN 0 WHEN '0-1' THEN 1 ELSE 0.5 END FROM games WHERE status = 'finished') x
                  GROUP BY id) s
          WHERE u.id = s.id`,
      );
      // The kept list totals (migration 015): the triggers that keep them were off for the bulk load.
      await db.query(`SET session_replication_role = DEFAULT`);
      await db.query(`DELETE FROM game_list_count_deltas`);
      await db.query(`DELETE FROM game_list_counts`);
      await db.query(
        `INSERT INTO game_list_counts (status, time_control, result, n)
         SELECT status, time_control, COALESCE(result, ''), count(*) FROM games WHERE status <> 'pending' GROUP BY 1, 2, 3`,
      );
    } finally {
      db.release();
    }
    log('vacuum analyze');
    await pool.query('VACUUM (ANALYZE) users');
    await pool.query('VACUUM (ANALYZE) user_ratings');
    await pool.query('VACUUM (ANALYZE) games');
  } finally {
    await pool.end();
  }
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''));
if (isMain) {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const result = await ensureGamesDatabase(serverUrl, {
    games: arg('games', 1_000_000),
    users: arg('users', 20_000),
    fresh: flag('fresh'),
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(result, null, 2));
}

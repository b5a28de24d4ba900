/**
 * Benchmark: what a post-game analysis costs (DESIGN 2.5), per engine build.
 *   raw          the engine alone, in a tight loop over every position of each game (the
 *                baseline, measured in the same run): position → go depth → bestmove;
 *   pool         the same games through the service's workers (queue claim, progress writes,
 *                replay, result), one worker: seconds per game and the ratio to raw;
 *   throughput   --games games queued at once, with 1 and then 2 workers: games per minute.
 * Games are --plies long (80 = a 40-move game), played by the engine against itself at a low
 * depth from different book openings, so their positions are a real game's.
 *
 *   npx tsx loadtest/analysis.ts [--depth 14] [--plies 80] [--games 4] [--native /usr/games/stockfish]
 *
 * Without --native it looks for Debian's stockfish at /usr/games/stockfish and measures the WASM
 * build only when there is none. DATABASE_URL names the PostgreSQL server (a fresh database is
 * created and dropped).
 */
import { existsSync } from 'node:fs';
import { Chess } from 'chess.js';
import { findAnalysis } from '../src/db/analysis.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { START_FEN } from '../src/domain/gameAnalysis.ts';
import { loadOpeningBook, sanMoves } from '../src/domain/openings.ts';
import { createLogger } from '../src/logger.ts';
import { systemClock } from '../src/time.ts';
import { startAnalysisWorkers } from '../src/workers/analysis.ts';
import { engineCommand, UciEngine, type EngineCommand } from '../src/workers/engine.ts';
import { createDatabase } from '../test/support/database.ts';
import { insertFinishedGame } from '../test/support/fixtures.ts';
import { arg } from './args.ts';

const DEPTH = arg('depth', 14);
const PLIES = arg('plies', 80);
const GAMES = arg('games', 4);
const NATIVE = arg('native', existsSync('/usr/games/stockfish') ? '/usr/games/stockfish' : '');

const round = (x: number, places = 2) => Number(x.toFixed(places));

/** `count` games of PLIES plies: the engine (depth 6) against itself from different book lines. */
async function selfPlayGames(command: EngineCommand, count: number): Promise<string[][]> {
  const engine = await UciEngine.start(command);
  const lines = loadOpeningBook().openings.filter((o) => sanMoves(o.moves).length >= 6);
  const games: string[][] = [];
  try {
    for (let n = 0; games.length < count && n < 50 * count; n++) {
      const chess = new Chess();
      for (const san of sanMoves(lines[(n * 97) % lines.length].moves)) chess.move(san);
      const ucis = chess.history({ verbose: true }).map((m) => m.from + m.to + (m.promotion ?? ''));
      await engine.newGame();
      while (ucis.length < PLIES && !chess.isGameOver()) {
        const { bestMove } = await engine.search(START_FEN, ucis, 6);
        if (!bestMove) break;
        chess.move({ from: bestMove.slice(0, 2), to: bestMove.slice(2, 4), promotion: bestMove[4] });
        ucis.push(bestMove);
      }
      // Only whole games: one that ends early (or repeats) is replaced by another.
      if (ucis.length === PLIES && !chess.isGameOver()) games.push(ucis);
    }
  } finally {
    await engine.quit();
  }
  if (games.length < count) throw new Error(`only ${games.length} of ${count} games lasted ${PLIES} plies`);
  return games;
}

/** The engine alone: every position of a game searched in order, as the workers do. */
async function rawGame(engine: UciEngine, ucis: string[]): Promise<{ seconds: number; nodes: number }> {
  const started = performance.now();
  let nodes = 0;
  await engine.newGame();
  for (let ply = 0; ply <= ucis.length; ply++) nodes += (await engine.search(START_FEN, ucis.slice(0, ply), DEPTH)).nodes;
  return { seconds: (performance.now() - started) / 1000, nodes };
}

/** The service's workers on their own queue; `analyse` times games through them. */
async function startPool(db: Pool, command: EngineCommand, workers: number) {
  const analysis = startAnalysisWorkers({
    pool: db,
    log: createLogger('warn'),
    clock: systemClock,
    command,
    workers,
    depth: DEPTH,
    node: 'bench',
    lockMs: 60_000,
    pollMs: 5,
    openings: loadOpeningBook,
  });
  const waitFor = async (ids: string[]) => {
    for (;;) {
      const rows = await Promise.all(ids.map((id) => findAnalysis(db, id)));
      if (rows.every((r) => r?.status === 'done')) return;
      // Slow polling: the times come from the rows, and the engine keeps its core.
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** Queues games out of reach (an hour ahead), makes them due at once, and waits: seconds from due to the last stored. */
  const analyse = async (list: string[][]) => {
    const ids = await Promise.all(list.map((ucis) => insertFinishedGame(db, ucis, Date.now() + 3_600_000)));
    const due = Date.now();
    await db.query('UPDATE game_analyses SET available_at = $2 WHERE game_id = ANY($1::uuid[])', [ids, new Date(due)]);
    analysis.kick();
    await waitFor(ids);
    const { rows } = await db.query('SELECT max(analyzed_at) AS last FROM game_analyses WHERE game_id = ANY($1::uuid[])', [ids]);
    return (rows[0].last.getTime() - due) / 1000;
  };
  // The engines start (WASM: about 0.7 s) on short games first, outside the measurement.
  await waitFor(await Promise.all(Array.from({ length: workers }, () => insertFinishedGame(db, ['e2e4', 'e7e5']))));
  return { analyse, stop: () => analysis.stop() };
}

async function measure(db: Pool, name: string, command: EngineCommand, games: string[][]) {
  const engine = await UciEngine.start(command);
  const pool = await startPool(db, command, 1);
  let raw = 0;
  let pooled = 0;
  let nodes = 0;
  try {
    // Warm: the first searches of a new process are slower (WASM compiles as it goes).
    await rawGame(engine, games[0].slice(0, 10));
    // Raw and pool take turns going first, so that drift in the machine's speed falls on both.
    for (const [i, ucis] of games.entries()) {
      const timeRaw = async () => {
        const r = await rawGame(engine, ucis);
        raw += r.seconds;
        nodes += r.nodes;
      };
      const timePool = async () => void (pooled += await pool.analyse([ucis]));
      if (i % 2 === 0) await timeRaw().then(timePool);
      else await timePool().then(timeRaw);
    }
  } finally {
    await pool.stop();
    await engine.quit();
  }
  const throughput = async (workers: number) => {
    const p = await startPool(db, command, workers);
    try {
      return (60 * games.length) / (await p.analyse(games));
    } finally {
      await p.stop();
    }
  };
  const positions = games.length * (PLIES + 1);
  return {
    build: name,
    engine: engine.name,
    seconds_per_game_raw: round(raw / games.length),
    seconds_per_game_pool: round(pooled / games.length),
    pool_to_raw_ratio: round(pooled / raw, 3),
    ms_per_position_raw: round((1000 * raw) / positions, 1),
    // Depth is not the same work across engine versions: nodes per second compares the builds.
    nodes_per_position: Math.round(nodes / positions),
    nodes_per_second_raw: Math.round(nodes / raw),
    games_per_minute_1_worker: round(await throughput(1)),
    games_per_minute_2_workers: round(await throughput(2)),
  };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = await createDatabase(serverUrl);
  const db = createPool(database.url, 5);
  try {
    await migrate(db);
    loadOpeningBook();
    const builds: Array<[string, EngineCommand]> = [['wasm (npm stockfish 19 lite, single-threaded)', engineCommand()]];
    if (NATIVE) builds.push([`native (${NATIVE})`, engineCommand(NATIVE)]);
    const games = await selfPlayGames(builds.at(-1)![1], GAMES);
    const results = [];
    for (const [name, command] of builds) results.push(await measure(db, name, command, games));
    console.log(JSON.stringify({ depth: DEPTH, plies: PLIES, games: GAMES, cpus: (await import('node:os')).cpus().length, results }, null, 2));
  } finally {
    await db.end();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

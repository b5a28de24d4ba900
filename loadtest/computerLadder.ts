/**
 * The computer's level ladder (DESIGN 2.14): does level n+1 beat level n? Each pair of
 * neighbouring levels plays --games games (20), the engines set exactly as the service sets them
 * (src/domain/computer.ts: `Skill Level`, movetime, depth cap; the moves so far given to the
 * engine as the service gives them), each opening of the book played twice with the colours
 * swapped. The rules are the service's own (ChessGame: mate, stalemate, threefold repetition,
 * fifty moves, insufficient material); a game still going at --max-plies (300) counts as a
 * draw. No clock: every move gets its level's whole think, as in a game whose clock is long
 * enough (at 5+3 a move may get less: `thinkMs`). Prints one JSON report.
 *
 *   npx tsx loadtest/computerLadder.ts [--games 20] [--pairs 1-2,2-3] [--parallel 2] [--max-plies 300]
 */
import os from 'node:os';
import { LEVELS } from '../src/domain/computer.ts';
import { START_FEN } from '../src/domain/gameAnalysis.ts';
import { ChessGame } from '../src/domain/game.ts';
import { loadOpeningBook, sanMoves } from '../src/domain/openings.ts';
import { engineCommand, UciEngine } from '../src/workers/engine.ts';
import { arg } from './args.ts';

const GAMES = arg('games', 20);
const PARALLEL = arg('parallel', 2);
const MAX_PLIES = arg('max-plies', 300);
const PAIRS = arg('pairs', LEVELS.slice(1).map((_, i) => `${i + 1}-${i + 2}`).join(','))
  .split(',')
  .map((p) => p.split('-').map(Number) as [number, number]);

type Outcome = 'higher' | 'lower' | 'draw';
type GameReport = { pair: string; higherWhite: boolean; outcome: Outcome; termination: string; plies: number; seconds: number };

/** Openings of 4–8 plies, far apart in the book, so that the games differ from the first move. */
function openings(count: number): string[][] {
  const lines = loadOpeningBook().openings.map((o) => sanMoves(o.moves)).filter((m) => m.length >= 4 && m.length <= 8);
  return Array.from({ length: count }, (_, i) => lines[Math.floor((i * lines.length) / count)]);
}

async function playGame(engines: { white: UciEngine; black: UciEngine }, levels: { white: number; black: number }, opening: string[]) {
  const game = new ChessGame({ moves: opening });
  await Promise.all([engines.white.newGame(), engines.black.newGame()]);
  while (!game.ending && game.moveCount < MAX_PLIES) {
    const level = LEVELS[levels[game.turn] - 1];
    const { bestMove } = await engines[game.turn].play(START_FEN, game.uciList, level);
    if (!bestMove) throw new Error(`no move in ${game.fen}`);
    const played = game.play({ from: bestMove.slice(0, 2), to: bestMove.slice(2, 4), promotion: bestMove[4] ?? null });
    if (!played.ok) throw new Error(`the engine played ${bestMove}, illegal in ${game.fen}`);
  }
  return { ending: game.ending, plies: game.moveCount };
}

async function main() {
  const lines = openings(Math.ceil(GAMES / 2));
  const jobs = PAIRS.flatMap(([lower, higher]) =>
    Array.from({ length: GAMES }, (_, i) => ({ lower, higher, opening: lines[i >> 1], higherWhite: i % 2 === 0 })),
  );
  const reports: GameReport[] = [];
  const command = engineCommand(process.env.STOCKFISH_PATH);
  const started = performance.now();
  const run = async () => {
    const a = await UciEngine.start(command);
    const b = await UciEngine.start(command);
    try {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        const t0 = performance.now();
        const white = job.higherWhite ? job.higher : job.lower;
        const black = job.higherWhite ? job.lower : job.higher;
        const { ending, plies } = await playGame({ white: a, black: b }, { white, black }, job.opening);
        const winner = ending?.winner ?? null;
        const outcome: Outcome = winner === null ? 'draw' : (winner === 'white') === job.higherWhite ? 'higher' : 'lower';
        const pair = `${job.lower}-${job.higher}`;
        reports.push({ pair, higherWhite: job.higherWhite, outcome, termination: ending?.termination ?? 'max_plies', plies, seconds: (performance.now() - t0) / 1000 });
        process.stderr.write(`${pair} ${outcome} (${ending?.termination ?? 'max_plies'}, ${plies} plies)\n`);
      }
    } finally {
      await Promise.all([a.quit(), b.quit()]);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, run));

  const pairs = PAIRS.map(([lower, higher]) => {
    const pair = `${lower}-${higher}`;
    const games = reports.filter((r) => r.pair === pair);
    const count = (o: Outcome) => games.filter((g) => g.outcome === o).length;
    const wins = count('higher');
    return {
      pair,
      games: games.length,
      higher_wins: wins,
      lower_wins: count('lower'),
      draws: count('draw'),
      /** The higher level's score, a draw counting half. */
      higher_score: (wins + count('draw') / 2) / games.length,
      higher_won_most: wins > games.length / 2,
      terminations: Object.fromEntries([...new Set(games.map((g) => g.termination))].map((t) => [t, games.filter((g) => g.termination === t).length])),
      mean_plies: Math.round(games.reduce((s, g) => s + g.plies, 0) / games.length),
      seconds: Math.round(games.reduce((s, g) => s + g.seconds, 0)),
    };
  });
  console.log(JSON.stringify({
    engine: command.args.at(-1)?.split('/').at(-1) ?? command.command,
    levels: LEVELS,
    games_per_pair: GAMES,
    max_plies: MAX_PLIES,
    parallel: PARALLEL,
    cpus: os.cpus().length,
    wall_seconds: Math.round((performance.now() - started) / 1000),
    pairs,
  }, null, 2));
}

await main();

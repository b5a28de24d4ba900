// The computer as an opponent (DESIGN 2.14): the engine player of one node. It plays the bot
// accounts stockfish-1 … stockfish-8 (migration 032) in the games this node hosts, through the
// same command path as a person (the catalogue's commands, to the game's actor), on engines of
// its own: computer games never wait for the analysis queue, nor it for them, and its engines
// run at idle CPU priority (SCHED_IDLE), so that the service's own work (people's moves) and
// analysis come first.
import { findComputerAccounts } from '../db/players.ts';
import type { Pool } from '../db/pool.ts';
import { acceptsDraw, LEVELS, thinkMs } from '../domain/computer.ts';
import { START_FEN, type EngineScore } from '../domain/gameAnalysis.ts';
import type { Logger } from '../logger.ts';
import type { Clock } from '../time.ts';
import { UciEngine, type EngineCommand } from './engine.ts';

/** What the player reads of a game hosted here, and how it moves. */
export type HostedGame = {
  status: string;
  fen: string;
  /** The moves from the standard start (UCI): the engine sees repetitions. */
  moves: readonly string[];
  turn: 'white' | 'black';
  seatId: (color: 'white' | 'black') => string;
  remainingMs: (color: 'white' | 'black') => number;
  incrementMs: number;
  /** The pending draw offer and takeback proposal, with who made them. */
  drawOffer: Offer | null;
  takebackOffer: Offer | null;
};

export type Offer = { id: string; offeredBy: string };

export type ComputerPlayerDeps = {
  pool: Pool;
  log: Logger;
  clock: Clock;
  command: EngineCommand;
  /** Engine processes (COMPUTER_ENGINES): each plays one search at a time; the rest queue. */
  engines: number;
  /** The game when this node hosts it. */
  find: (gameId: string) => HostedGame | undefined;
  /**
   * Who sits at `color` in a game hosted here (undefined when none is): what is asked of every
   * person's game after each of its moves, so it builds nothing.
   */
  seatId: (gameId: string, color: 'white' | 'black') => string | undefined;
  /** Plays the bot's move through the game's command path (games.command('move', …)). */
  move: (botId: string, gameId: string, move: { from: string; to: string; promotion: 'q' | 'r' | 'b' | 'n' | null }) => Promise<unknown>;
  /** Answers a person's offer as the bot, through the same path (`answer_draw`, `answer_takeback`). */
  answer: (kind: 'draw' | 'takeback', botId: string, gameId: string, offerId: string, accept: boolean) => Promise<unknown>;
};

export type ComputerPlayer = {
  /**
   * Something happened in a game hosted here (it was opened, a move, an offer, a takeback, its
   * end): answer a person's offer, and move if it is the computer's turn.
   */
  consider: (gameId: string) => void;
  /** Resolves when no search is queued or running (tests). */
  idle: () => Promise<void>;
  enginePids: () => number[];
  stop: () => Promise<void>;
};

export function startComputerPlayer(d: ComputerPlayerDeps): ComputerPlayer {
  const bots = findComputerAccounts(d.pool);
  bots.catch((err) => d.log.error({ err }, 'computer accounts could not be read'));
  /** The computer's accounts once read: a game none of them plays is passed over at once. */
  let known: Map<string, number> | undefined;
  void bots.then((levels) => (known = levels), () => {});
  /** Whether the computer may play in the game: its accounts not read yet, or one of them seated. */
  const mayPlay = (gameId: string): boolean => {
    if (!known) return true;
    const white = d.seatId(gameId, 'white');
    return white !== undefined && (known.has(white) || known.has(d.seatId(gameId, 'black')!));
  };
  /** The score of the computer's last search in each of its games: what it answers a draw offer by. */
  const scores = new Map<string, EngineScore>();
  /** The offers answered (or being answered) in each of its games: an offer is answered once. */
  const answered = new Map<string, Set<string>>();
  /** Forgets a game that ended. */
  const forget = (gameId: string) => {
    scores.delete(gameId);
    answered.delete(gameId);
  };
  const queue: string[] = [];
  const queued = new Set<string>();
  const engines: Array<UciEngine | undefined> = [];
  const busy = new Set<number>();
  const idlers: Array<() => void> = [];
  let stopped = false;

  const settle = () => {
    if (queue.length || busy.size) return;
    for (const resolve of idlers.splice(0)) resolve();
  };

  async function engineOf(slot: number): Promise<UciEngine> {
    const current = engines[slot];
    if (current?.alive) return current;
    const engine = await UciEngine.start(d.command, { clock: d.clock, answerTimeoutMs: 30_000, idle: true });
    engines[slot] = engine;
    if (stopped) {
      await engine.quit();
      throw new Error('stopping');
    }
    return engine;
  }

  /** The bot to move in the game, with its level, when it is the computer's turn there. */
  async function botToMove(gameId: string): Promise<{ botId: string; level: number; game: HostedGame } | undefined> {
    const game = d.find(gameId);
    if (!game || game.status !== 'active') return undefined;
    const botId = game.seatId(game.turn);
    const level = (await bots).get(botId);
    return level ? { botId, level, game } : undefined;
  }

  /**
   * Answers the person's pending offers at once, without an engine: a takeback the computer
   * grants (as Lichess's computer does); a draw by its last score (`acceptsDraw`).
   */
  async function answerOffers(gameId: string): Promise<void> {
    const levels = await bots;
    const game = d.find(gameId);
    if (!game || game.status !== 'active') return;
    for (const kind of ['takeback', 'draw'] as const) {
      const offer = kind === 'draw' ? game.drawOffer : game.takebackOffer;
      const done = answered.get(gameId) ?? new Set<string>();
      if (!offer || levels.has(offer.offeredBy) || done.has(offer.id)) continue;
      const botId = [game.seatId('white'), game.seatId('black')].find((id) => levels.has(id));
      if (!botId) return;
      const accept = kind === 'takeback' || acceptsDraw(scores.get(gameId), game.moves.length);
      answered.set(gameId, done.add(offer.id));
      // The offer may lapse meanwhile (a move, its expiry): the game then refuses the answer.
      await d.answer(kind, botId, gameId, offer.id, accept)
        .catch((err) => d.log.debug({ err, gameId, kind }, 'the computer’s answer came too late'));
    }
  }

  async function play(slot: number, gameId: string): Promise<void> {
    const found = await botToMove(gameId);
    if (!found) return;
    const { botId, level, game } = found;
    const fen = game.fen;
    const engine = await engineOf(slot);
    const budget = thinkMs(level, game.remainingMs(game.turn), game.incrementMs, queue.length, d.engines);
    const { bestMove: uci, score } = await engine.play(START_FEN, game.moves, { ...LEVELS[level - 1], movetimeMs: budget });
    // The game moved on meanwhile (a takeback, its end): this search is stale.
    const now = d.find(gameId);
    if (!uci || !now || now.status !== 'active' || now.fen !== fen) return;
    scores.set(gameId, score);
    const promotion = (uci[4] ?? null) as 'q' | 'r' | 'b' | 'n' | null;
    await d.move(botId, gameId, { from: uci.slice(0, 2), to: uci.slice(2, 4), promotion });
  }

  function pump(): void {
    for (let slot = 0; slot < d.engines && queue.length && !stopped; slot++) {
      if (busy.has(slot)) continue;
      const gameId = queue.shift()!;
      queued.delete(gameId);
      busy.add(slot);
      play(slot, gameId)
        .catch((err) => {
          if (!stopped) d.log.warn({ err, gameId }, 'computer move failed');
          // A failed engine is replaced at its next search.
          if (!engines[slot]?.alive) engines[slot] = undefined;
        })
        .finally(() => {
          busy.delete(slot);
          pump();
          settle();
        });
    }
  }

  return {
    consider(gameId) {
      // Called after every move of every game hosted here: a person's game costs one lookup.
      if (stopped || d.engines === 0 || !mayPlay(gameId)) return;
      const game = d.find(gameId);
      if (game && game.status !== 'active') {
        forget(gameId);
        return;
      }
      if (game?.drawOffer || game?.takebackOffer) void answerOffers(gameId);
      if (queued.has(gameId)) return;
      queued.add(gameId);
      queue.push(gameId);
      pump();
    },
    idle: () => new Promise<void>((resolve) => {
      idlers.push(resolve);
      settle();
    }),
    enginePids: () => engines.filter((e): e is UciEngine => !!e?.alive).map((e) => e.pid!),
    async stop() {
      stopped = true;
      queue.length = 0;
      queued.clear();
      scores.clear();
      answered.clear();
      await Promise.all(engines.map((e) => e?.quit()));
      settle();
    },
  };
}

/**
 * A bot process of `npm run bench` (loadtest/bench.ts): it plays many blitz games at a human
 * pace through real `@colyseus/sdk` clients, both seats of each game, and reports what its
 * players saw. Spoken to over IPC:
 *
 *   parent → bot  {type: 'add', games}           set up and start this many more games, answer 'added'
 *                 {type: 'add-computer', games}  as many more games of a person against the computer, answer 'added'
 *                 {type: 'window'}               answer 'window' with the stats since the last one
 *                 {type: 'stop'}                 leave every room and exit
 *
 * A player thinks THINK_MIN..THINK_MAX seconds before each move (uniform). A game plays a
 * precomputed random line (no ending inside it); at its end the side to move resigns and the
 * same two players start a new game, so the number of live games stays what it was asked to be.
 * A game against the computer (level COMPUTER_LEVEL) has one seat here, its person's, who plays a
 * random legal move of whatever position the engine's replies made, at the same pace; when it
 * ends (however it ends), the person starts another, so their number too stays the same. Its
 * figures are reported apart (`computer`): the human games' are the human games' alone.
 */
import '../../src/polyfills.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, type Room } from '@colyseus/sdk';
import { Chess } from 'chess.js';
import { postData } from '../../test/support/process.ts';
import { randomLines } from '../lines.ts';

type Player = { id: string; token: string };
type Game = {
  pair: { white: Player; black: Player };
  id: string;
  white?: Room;
  black?: Room;
  line: string[];
  ply: number;
  timer?: NodeJS.Timeout;
  /** The id of the move in flight (kept across a resend). */
  moveId?: number;
  stopped: boolean;
};

/** A game of a person (this bot) against the computer. */
type ComputerGame = {
  player: Player;
  id: string;
  /** The person's colour. */
  color: 'white' | 'black';
  room?: Room;
  /** The plies seen in the room's state so far (the engine's are counted as they appear). */
  seen: number;
  /** When the engine's turn began (the person's move seen), to time its reply. */
  engineTurnSince?: number;
  timer?: NodeJS.Timeout;
  /** A move is sent and not answered yet. */
  sending: boolean;
  /** The last move chosen and its id, for the ply it was chosen at: a resend after a lost answer sends the same. */
  chosen?: { ply: number; id: number; move: { from: string; to: string; promotion?: string } };
  stopped: boolean;
};

/** What the person saw of its games against the computer in a window. */
export type ComputerWindow = {
  /** The person's move acknowledgements (send → move:ok), ms. */
  acks: number[];
  /** The engine's moves seen. */
  engineMoves: number;
  /** From the person's move to the engine's reply, as the person saw them (ms). */
  engineReplies: number[];
  gamesFinished: number;
  gamesStarted: number;
  /** The games finished, by how they ended (`checkmate`, `timeout`, …). */
  endings: Record<string, number>;
  errors: Record<string, number>;
};

export type BotWindow = {
  /** Move acknowledgement times (send → move:ok), ms. */
  acks: number[];
  moves: number;
  gamesFinished: number;
  gamesStarted: number;
  errors: Record<string, number>;
  /** This bot's own event-loop delay, median and p99 (ms, beyond the sampling interval): a busy bot measures late. */
  botLoopP50Ms: number;
  botLoopP99Ms: number;
  botCpuS: number;
  liveGames: number;
  computer: ComputerWindow & { liveGames: number };
};

export type ParentMessage = { type: 'add' | 'add-computer'; games: number } | { type: 'window' } | { type: 'stop' };
export type BotMessage =
  | { type: 'added'; games: number; failed: number; error?: string }
  | ({ type: 'window' } & BotWindow)
  | { type: 'fatal'; error: string };

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BASE = process.env.BENCH_BASE!;
const WS = BASE.replace(/^http/, 'ws');
const THINK_MIN_MS = env('BENCH_THINK_MIN', 1) * 1000;
const THINK_MAX_MS = env('BENCH_THINK_MAX', 5) * 1000;
const PLIES = env('BENCH_PLIES', 120);
const BOT = env('BENCH_BOT_INDEX', 0);
const COMPUTER_LEVEL = env('BENCH_COMPUTER_LEVEL', 8);
/** Blitz 3+2: at 1–5 s a move, a game of PLIES plies never flags. */
const TIME_CONTROL = { time_control: 'blitz', initial_time: 180, increment: 2 } as const;

/** The room protocol's "the game moved to another node: join it again by id" (rooms/GameRoom.ts). */
const CLOSE_GAME_MOVED = 4503;
/** A command unanswered this long counts as lost (the game is given up by this bot). */
const COMMAND_TIMEOUT_MS = 15_000;

const client = new Client(WS);
const lines = randomLines(64, PLIES, 1000 + BOT * 64);
const games = new Set<Game>();
const computerGames = new Set<ComputerGame>();
let pairs = 0;
let persons = 0;
let computerGamesMade = 0;

// It records the whole interval between samples (an idle loop reads LOOP_SAMPLE_MS): the delay is what lies beyond.
const LOOP_SAMPLE_MS = 10;
const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
const loopDelayMs = (percentile: number) => Math.max(0, loop.percentile(percentile) / 1e6 - LOOP_SAMPLE_MS);
loop.enable();
let cpuMark = process.cpuUsage();
let window = newWindow();

function newWindow(): Omit<BotWindow, 'botLoopP50Ms' | 'botLoopP99Ms' | 'botCpuS' | 'liveGames' | 'computer'> & { computer: ComputerWindow } {
  return {
    acks: [], moves: 0, gamesFinished: 0, gamesStarted: 0, errors: {},
    computer: { acks: [], engineMoves: 0, engineReplies: [], gamesFinished: 0, gamesStarted: 0, endings: {}, errors: {} },
  };
}

const tally = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);
const countError = (code: string) => tally(window.errors, code);
const countComputerError = (code: string) => tally(window.computer.errors, code);

async function signup(name: string): Promise<Player> {
  const d = await postData(BASE, '/v1/auth/signup', { email: `${name}@bench.example.com`, password: 'benchmark1', username: name });
  return { id: d.user.id, token: d.session.access_token };
}

async function signupPair(): Promise<{ white: Player; black: Player }> {
  const n = pairs++;
  const name = (side: string) => `b${BOT}${side}${n}_${process.pid % 1000}`;
  return { white: await signup(name('w')), black: await signup(name('b')) };
}

/** A new accepted game between the pair, both seats joined, White's first move scheduled. */
async function startGame(pair: { white: Player; black: Player }): Promise<Game> {
  const created = await postData(BASE, '/v1/games', { type: 'challenge', opponent_id: pair.black.id, color: 'white', rated: true, ...TIME_CONTROL }, pair.white.token);
  await postData(BASE, `/v1/games/${created.id}/accept`, {}, pair.black.token);
  const game: Game = { pair, id: created.id, line: lines[pairs % lines.length], ply: 0, stopped: false } as Game;
  await Promise.all([join(game, 'white'), join(game, 'black')]);
  games.add(game);
  window.gamesStarted++;
  schedule(game);
  return game;
}

/** How a seat taken with `enter` is looked after: its room once joined, the game's end here, where errors count. */
type Seat = {
  gameId: string;
  token: string;
  stopped: () => boolean;
  joined: (room: Room) => void;
  retire: () => void;
  countError: (code: string) => void;
};

/**
 * Takes a seat. A room closed with 4503 moved to another node (or this node gave it up): the
 * player joins it again by id, as the room protocol says; any other unexpected close ends the game here.
 */
async function enter(seat: Seat): Promise<void> {
  const room = await client.joinById(seat.gameId, { token: seat.token });
  seat.joined(room);
  room.onLeave((code: number) => {
    if (seat.stopped()) return;
    seat.countError(`left_${code}`);
    if (code === CLOSE_GAME_MOVED) {
      enter(seat).catch((e) => (seat.countError(`rejoin: ${(e as Error).message.slice(0, 60)}`), seat.retire()));
    } else {
      seat.retire();
    }
  });
}

function join(game: Game, color: 'white' | 'black'): Promise<void> {
  return enter({
    gameId: game.id,
    token: game.pair[color].token,
    stopped: () => game.stopped,
    joined: (room) => {
      game[color] = room;
      room.onMessage('game_end', () => {});
    },
    retire: () => void retire(game),
    countError,
  });
}

function schedule(game: Game): void {
  const think = THINK_MIN_MS + Math.random() * (THINK_MAX_MS - THINK_MIN_MS);
  game.timer = setTimeout(() => void play(game), think);
}

async function play(game: Game): Promise<void> {
  if (game.stopped) return;
  const room = (game.ply % 2 === 0 ? game.white : game.black)!; // both seats are joined before the first move
  if (game.ply >= game.line.length) return void finish(game, room);
  const uci = game.line[game.ply];
  const sent = performance.now();
  // One id per ply, so that a move resent after a lost answer is recognised, not played twice.
  game.moveId ??= ++commandSeq;
  try {
    await command(room, 'move', { from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] }, 'move:ok', game.moveId);
  } catch (error) {
    countError((error as Error).message);
    // A refused move is a bug of the bot or the server; a lost answer (the socket dropped and the
    // room was rejoined) is tried again: the move's id makes a resend safe.
    if ((error as Error).message !== 'timeout') return void retire(game);
    return void schedule(game);
  }
  window.acks.push(performance.now() - sent);
  window.moves++;
  game.ply++;
  game.moveId = undefined;
  schedule(game);
}

/** The line is played out: the side to move resigns, and the pair plays again. */
async function finish(game: Game, room: Room): Promise<void> {
  try {
    await command(room, 'resign', {}, 'resign:ok');
    window.gamesFinished++;
  } catch (error) {
    countError((error as Error).message);
  }
  await retire(game);
  if (!stopping) await startGame(game.pair).catch((e) => countError(`restart: ${(e as Error).message.slice(0, 60)}`));
}

async function retire(game: Game): Promise<void> {
  game.stopped = true;
  clearTimeout(game.timer);
  games.delete(game);
  // A seat closed while the other was still joining: only the joined rooms are left.
  await Promise.all([game.white?.leave(), game.black?.leave()]).catch(() => {});
}

/** A new game of the person against the computer at COMPUTER_LEVEL, its seat joined; colours alternate. */
async function startComputerGame(player: Player): Promise<void> {
  const color = computerGamesMade++ % 2 === 0 ? 'white' : 'black';
  const created = await postData(BASE, '/v1/games', { type: 'computer', level: COMPUTER_LEVEL, color, ...TIME_CONTROL }, player.token);
  const game: ComputerGame = { player, id: created.id, color, seen: 0, sending: false, stopped: false };
  await enter({
    gameId: game.id,
    token: player.token,
    stopped: () => game.stopped,
    joined: (room) => {
      game.room = room;
      // Its end is read from the state, which a room joined again also has.
      room.onMessage('game_end', () => {});
      room.onStateChange(() => follow(game));
      follow(game);
    },
    retire: () => void retireComputerGame(game),
    countError: countComputerError,
  });
  computerGames.add(game);
  window.computer.gamesStarted++;
}

/** The room's state of a computer game, as the client decodes it (no schema classes here). */
type SeenState = { status?: string; fen?: string; turn?: string; moves?: { length: number }; termination?: string };

/**
 * After each patch: counts the engine's new moves and times them; the person's turn schedules a
 * move, the game's end starts another.
 */
function follow(game: ComputerGame): void {
  const state = game.room?.state as SeenState | undefined;
  if (game.stopped || !state?.fen) return;
  const plies = state.moves?.length ?? 0;
  for (; game.seen < plies; game.seen++) {
    const mover = game.seen % 2 === 0 ? 'white' : 'black';
    if (mover === game.color) {
      game.engineTurnSince = performance.now();
    } else {
      window.computer.engineMoves++;
      if (game.engineTurnSince !== undefined) window.computer.engineReplies.push(performance.now() - game.engineTurnSince);
    }
  }
  if (state.status !== 'active') return void computerGameEnded(game, state.termination || state.status || 'unknown');
  if (state.turn === game.color && !game.timer && !game.sending) {
    const think = THINK_MIN_MS + Math.random() * (THINK_MAX_MS - THINK_MIN_MS);
    game.timer = setTimeout(() => void playComputerGame(game), think);
  }
}

/** A random legal move of the position: cheap, and legal whatever the engine made of the game. */
function randomMove(fen: string): { from: string; to: string; promotion?: string } | undefined {
  const moves = new Chess(fen).moves({ verbose: true });
  const m = moves[Math.floor(Math.random() * moves.length)];
  return m && { from: m.from, to: m.to, promotion: m.promotion };
}

async function playComputerGame(game: ComputerGame): Promise<void> {
  game.timer = undefined;
  const state = game.room!.state as SeenState;
  if (game.stopped || state.status !== 'active' || state.turn !== game.color) return;
  const ply = state.moves?.length ?? 0;
  if (game.chosen?.ply !== ply) {
    const move = randomMove(state.fen!);
    if (!move) return; // no legal move: the game is over, its game_end on the way
    game.chosen = { ply, id: ++commandSeq, move };
  }
  const sent = performance.now();
  game.sending = true;
  try {
    await command(game.room!, 'move', game.chosen.move, 'move:ok', game.chosen.id);
    window.computer.acks.push(performance.now() - sent);
  } catch (error) {
    countComputerError((error as Error).message);
    // As in a human game: a refused move ends the game here; a lost answer is sent again at the
    // person's next turn (the same move and id while the ply is the same).
    if ((error as Error).message !== 'timeout') return void retireComputerGame(game);
  } finally {
    game.sending = false;
  }
  follow(game);
}

/** The game ended (mate, a draw rule, a flag, an abort…): the person starts another. */
async function computerGameEnded(game: ComputerGame, ending: string): Promise<void> {
  if (game.stopped) return;
  window.computer.gamesFinished++;
  tally(window.computer.endings, ending);
  await retireComputerGame(game);
  if (!stopping) await startComputerGame(game.player).catch((e) => countComputerError(`restart: ${(e as Error).message.slice(0, 60)}`));
}

async function retireComputerGame(game: ComputerGame): Promise<void> {
  game.stopped = true;
  clearTimeout(game.timer);
  computerGames.delete(game);
  await game.room?.leave().catch(() => {});
}

let commandSeq = 0;
/**
 * Sends a command with an id and resolves on its answer; rejects with the error code, or
 * `timeout` when nothing answers (the socket dropped: the room is rejoined, the bot moves on).
 */
function command(room: Room, type: string, payload: object, ok: string, id = ++commandSeq): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      offOk();
      offErr();
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const offOk = room.onMessage(ok, (m: { id?: number }) => m?.id === id && done());
    const offErr = room.onMessage('error', (e: { id?: number; code?: string }) => e?.id === id && done(new Error(e.code ?? 'error')));
    const timer = setTimeout(() => done(new Error('timeout')), COMMAND_TIMEOUT_MS);
    room.send(type, { ...payload, id });
  });
}

/** Runs `start` `n` times, 10 at a time (a burst of thousands of handshakes would measure the backlog). */
async function inBatches(n: number, start: () => Promise<unknown>): Promise<{ failed: number; error?: string }> {
  let failed = 0;
  let error: string | undefined;
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, start);
    for (const r of await Promise.allSettled(batch)) {
      if (r.status === 'rejected') {
        failed++;
        error ??= (r.reason as Error).message.slice(0, 200);
      }
    }
  }
  return { failed, error };
}

/** Sets up `n` games. */
async function add(n: number): Promise<{ games: number; failed: number; error?: string }> {
  const r = await inBatches(n, async () => startGame(await signupPair()));
  return { games: games.size, ...r };
}

/** Signs up `n` persons, each starting a game against the computer. */
async function addComputer(n: number): Promise<{ games: number; failed: number; error?: string }> {
  const r = await inBatches(n, async () => startComputerGame(await signup(`c${BOT}p${persons++}_${process.pid % 1000}`)));
  return { games: computerGames.size, ...r };
}

let stopping = false;
const send = (m: BotMessage) => process.send!(m);

process.on('message', (m: ParentMessage) => {
  if (m.type === 'add' || m.type === 'add-computer') {
    (m.type === 'add' ? add : addComputer)(m.games).then((r) => send({ type: 'added', ...r }), (e) => send({ type: 'fatal', error: String(e) }));
  } else if (m.type === 'window') {
    const cpu = process.cpuUsage(cpuMark);
    cpuMark = process.cpuUsage();
    send({
      type: 'window', ...window, botLoopP50Ms: loopDelayMs(50), botLoopP99Ms: loopDelayMs(99), botCpuS: (cpu.user + cpu.system) / 1e6, liveGames: games.size,
      computer: { ...window.computer, liveGames: computerGames.size },
    });
    loop.reset();
    window = newWindow();
  } else if (m.type === 'stop') {
    stopping = true;
    void Promise.all([...[...games].map(retire), ...[...computerGames].map(retireComputerGame)]).finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));

/**
 * A bot process of `npm run bench` (loadtest/bench.ts): it plays many blitz games at a human
 * pace through real `@colyseus/sdk` clients, both seats of each game, and reports what its
 * players saw. Spoken to over IPC:
 *
 *   parent → bot  {type: 'add', games}      set up and start this many more games, answer 'added'
 *                 {type: 'window'}          answer 'window' with the stats since the last one
 *                 {type: 'stop'}            leave every room and exit
 *
 * A player thinks THINK_MIN..THINK_MAX seconds before each move (uniform). A game plays a
 * precomputed random line (no ending inside it); at its end the side to move resigns and the
 * same two players start a new game, so the number of live games stays what it was asked to be.
 */
import '../../src/polyfills.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, type Room } from '@colyseus/sdk';
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
};

export type ParentMessage = { type: 'add'; games: number } | { type: 'window' } | { type: 'stop' };
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
/** Blitz 3+2: at 1–5 s a move, a game of PLIES plies never flags. */
const TIME_CONTROL = { time_control: 'blitz', initial_time: 180, increment: 2 } as const;

/** The room protocol's "the game moved to another node: join it again by id" (rooms/GameRoom.ts). */
const CLOSE_GAME_MOVED = 4503;
/** A command unanswered this long counts as lost (the game is given up by this bot). */
const COMMAND_TIMEOUT_MS = 15_000;

const client = new Client(WS);
const lines = randomLines(64, PLIES, 1000 + BOT * 64);
const games = new Set<Game>();
let pairs = 0;

// It records the whole interval between samples (an idle loop reads LOOP_SAMPLE_MS): the delay is what lies beyond.
const LOOP_SAMPLE_MS = 10;
const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
const loopDelayMs = (percentile: number) => Math.max(0, loop.percentile(percentile) / 1e6 - LOOP_SAMPLE_MS);
loop.enable();
let cpuMark = process.cpuUsage();
let window = newWindow();

function newWindow(): Omit<BotWindow, 'botLoopP50Ms' | 'botLoopP99Ms' | 'botCpuS' | 'liveGames'> {
  return { acks: [], moves: 0, gamesFinished: 0, gamesStarted: 0, errors: {} };
}

function countError(code: string): void {
  window.errors[code] = (window.errors[code] ?? 0) + 1;
}

async function signupPair(): Promise<{ white: Player; black: Player }> {
  const n = pairs++;
  const signup = async (side: string) => {
    const name = `b${BOT}${side}${n}_${process.pid % 1000}`;
    const d = await postData(BASE, '/v1/auth/signup', { email: `${name}@bench.example.com`, password: 'benchmark1', username: name });
    return { id: d.user.id, token: d.session.access_token };
  };
  return { white: await signup('w'), black: await signup('b') };
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

/**
 * Takes a seat. A room closed with 4503 moved to another node (or this node gave it up): the
 * player joins it again by id, as the room protocol says; any other unexpected close ends the game here.
 */
async function join(game: Game, color: 'white' | 'black'): Promise<void> {
  const room = await client.joinById(game.id, { token: game.pair[color].token });
  game[color] = room;
  room.onMessage('game_end', () => {});
  room.onLeave((code: number) => {
    if (game.stopped) return;
    countError(`left_${code}`);
    if (code === CLOSE_GAME_MOVED) {
      join(game, color).catch((e) => (countError(`rejoin: ${(e as Error).message.slice(0, 60)}`), void retire(game)));
    } else {
      void retire(game);
    }
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

/** Sets up `n` games, 10 at a time (a burst of thousands of handshakes would measure the backlog). */
async function add(n: number): Promise<{ games: number; failed: number; error?: string }> {
  let failed = 0;
  let error: string | undefined;
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, async () => startGame(await signupPair()));
    for (const r of await Promise.allSettled(batch)) {
      if (r.status === 'rejected') {
        failed++;
        error ??= (r.reason as Error).message.slice(0, 200);
      }
    }
  }
  return { games: games.size, failed, error };
}

let stopping = false;
const send = (m: BotMessage) => process.send!(m);

process.on('message', (m: ParentMessage) => {
  if (m.type === 'add') {
    add(m.games).then((r) => send({ type: 'added', ...r }), (e) => send({ type: 'fatal', error: String(e) }));
  } else if (m.type === 'window') {
    const cpu = process.cpuUsage(cpuMark);
    cpuMark = process.cpuUsage();
    send({ type: 'window', ...window, botLoopP50Ms: loopDelayMs(50), botLoopP99Ms: loopDelayMs(99), botCpuS: (cpu.user + cpu.system) / 1e6, liveGames: games.size });
    loop.reset();
    window = newWindow();
  } else if (m.type === 'stop') {
    stopping = true;
    void Promise.all([...games].map(retire)).finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));

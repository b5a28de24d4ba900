import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { createLogger } from '../../src/logger.ts';
import { acceptsDraw, LEVELS, thinkMs as budget } from '../../src/domain/computer.ts';
import { startComputerPlayer, type HostedGame } from '../../src/workers/computer.ts';
import { engineCommand } from '../../src/workers/engine.ts';
import { ManualClock } from '../helpers/clock.ts';
import { assertIdlePriority } from '../helpers/scheduling.ts';

// The engine player alone, on the real engine: a fake host in place of the game actors.
const BOT = '00000000-0000-4000-8000-000000000008';
const PERSON = '00000000-0000-4000-8000-00000000000a';
const pool = { query: async () => ({ rows: [{ id: BOT, username: 'stockfish-8' }] }) } as any;

/** A game hosted here after `sans` from the standard start, the bot playing `botColor`. */
function hosted(sans: string[], botColor: 'white' | 'black', remainingMs = 60_000): HostedGame {
  const chess = new Chess();
  const moves = sans.map((san) => chess.move(san).lan);
  return {
    status: 'active',
    fen: chess.fen(),
    moves,
    turn: chess.turn() === 'w' ? 'white' : 'black',
    seatId: (c) => (c === botColor ? BOT : PERSON),
    remainingMs: () => remainingMs,
    incrementMs: 0,
    drawOffer: null,
    takebackOffer: null,
  };
}

/** The engine player on the real engine, its moves and answers recorded. */
function recordingPlayer(games: Map<string, HostedGame>, engines = 1) {
  const moves: Array<{ botId: string; gameId: string; uci: string }> = [];
  const answers: Array<{ kind: string; botId: string; gameId: string; offerId: string; accept: boolean }> = [];
  const player = startComputerPlayer({
    pool,
    log: createLogger('silent'),
    clock: new ManualClock(),
    command: engineCommand(),
    engines,
    find: (id) => games.get(id),
    seatId: (id, color) => games.get(id)?.seatId(color),
    move: async (botId, gameId, m) => {
      moves.push({ botId, gameId, uci: `${m.from}${m.to}${m.promotion ?? ''}` });
    },
    answer: async (kind, botId, gameId, offerId, accept) => {
      answers.push({ kind, botId, gameId, offerId, accept });
    },
  });
  return { player, moves, answers };
}

describe('the computer player (engine moves for the games hosted here)', function () {
  this.timeout(30_000);

  it('gives each level its think, never more than the bot clock allows', () => {
    assert.equal(LEVELS.length, 8);
    assert.equal(budget(1, 300_000, 0), 50);
    assert.equal(budget(8, 300_000, 0), 1000);
    assert.equal(budget(8, 3_000, 0), 100);
    assert.equal(budget(8, 3_000, 2_000), 1000);
    assert.equal(budget(8, 0, 0), 10);
  });

  it('shares the think among the searches waiting for the engines: a move waits less than one think of its level', () => {
    assert.equal(budget(8, 300_000, 0, 0, 1), 1000);
    assert.equal(budget(8, 300_000, 0, 1, 1), 500);
    assert.equal(budget(8, 300_000, 0, 49, 1), 20);
    assert.equal(budget(8, 300_000, 0, 2, 2), 500);
    assert.equal(budget(1, 300_000, 0, 49, 1), 10, 'never below 10 ms');
    assert.equal(budget(8, 3_000, 0, 1, 1), 100, 'and never above what the clock allows');
  });

  it('agrees to a draw after 30 moves each when it is not better; declines otherwise', () => {
    assert.equal(acceptsDraw({ cp: 0 }, 59), false, 'too early');
    assert.equal(acceptsDraw({ cp: 0 }, 60), true);
    assert.equal(acceptsDraw({ cp: 30 }, 80), true);
    assert.equal(acceptsDraw({ cp: 31 }, 80), false, 'better');
    assert.equal(acceptsDraw({ cp: -500 }, 80), true, 'worse');
    assert.equal(acceptsDraw({ mate: -3 }, 80), true, 'being mated');
    assert.equal(acceptsDraw({ mate: 3 }, 80), false, 'mating');
    assert.equal(acceptsDraw(undefined, 80), false, 'no score of its own yet');
  });

  it("moves when it is the bot's turn in a game opened here, at most one search per engine; not otherwise", async () => {
    const games = new Map<string, HostedGame>();
    const { player, moves } = recordingPlayer(games);
    try {
      // Mate in one for the bot (Black): a full-strength search finds it.
      games.set('mate', hosted(['f3', 'e5', 'g4'], 'black', 10_000));
      games.set('person', hosted([], 'black'));
      games.set('start', hosted([], 'white'));
      for (const id of ['mate', 'person', 'start', 'gone']) player.consider(id);
      await player.idle();
      assert.deepEqual(moves.map((m) => m.gameId).sort(), ['mate', 'start']);
      assert.equal(moves.find((m) => m.gameId === 'mate')!.uci, 'd8h4');
      assert.ok(new Chess().moves({ verbose: true }).some((m) => m.lan === moves.find((x) => x.gameId === 'start')!.uci));
      assert.ok(moves.every((m) => m.botId === BOT));
      assert.equal(player.enginePids().length, 1);
      assertIdlePriority(player.enginePids()[0]);
    } finally {
      await player.stop();
    }
    assert.equal(player.enginePids().length, 0);
  });

  it('sees the game, not only its position: a side far behind takes the threefold repetition', async () => {
    // White won Black's queen; the knights shuffle. Black's Nh6 makes the position after
    // 4…Nxh6 a third time: a draw, which a search of the position alone cannot know.
    const sans = ['e4', 'e5', 'd4', 'Qh4', 'Nf3', 'Qh6', 'Bxh6', 'Nxh6', 'Ng1', 'Ng8', 'Nf3', 'Nh6', 'Ng1', 'Ng8', 'Nf3'];
    const games = new Map([['g', hosted(sans, 'black')]]);
    const { player, moves } = recordingPlayer(games);
    try {
      player.consider('g');
      await player.idle();
      assert.deepEqual(moves.map((m) => m.uci), ['g8h6']);
    } finally {
      await player.stop();
    }
  });

  it("grants the person's takeback and answers a draw offer by its last score, each offer once", async () => {
    const game = hosted(['e4', 'e5', 'Nf3'], 'black');
    const games = new Map([['g', game]]);
    const { player, answers } = recordingPlayer(games);
    try {
      games.set('g', { ...game, takebackOffer: { id: 't1', offeredBy: PERSON }, drawOffer: { id: 'd1', offeredBy: PERSON } });
      player.consider('g');
      player.consider('g');
      await player.idle();
      assert.deepEqual(answers.map(({ kind, offerId, accept, botId }) => ({ kind, offerId, accept, botId })), [
        { kind: 'takeback', offerId: 't1', accept: true, botId: BOT },
        // Move 2, and no score of its own yet: declined.
        { kind: 'draw', offerId: 'd1', accept: false, botId: BOT },
      ]);
      // Its own offers (none are made) and a finished game's are not answered.
      games.set('g', { ...game, status: 'finished', drawOffer: { id: 'd2', offeredBy: PERSON } });
      games.set('own', { ...game, takebackOffer: { id: 't2', offeredBy: BOT } });
      player.consider('g');
      player.consider('own');
      await player.idle();
      assert.equal(answers.length, 2);
    } finally {
      await player.stop();
    }
  });
});

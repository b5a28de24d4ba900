import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { createLogger } from '../../src/logger.ts';
import { LEVELS, thinkMs as budget } from '../../src/domain/computer.ts';
import { startComputerPlayer, type HostedGame } from '../../src/workers/computer.ts';
import { engineCommand } from '../../src/workers/engine.ts';
import { ManualClock } from '../helpers/clock.ts';

// The engine player alone, on the real engine: a fake host in place of the game actors.
const BOT = '00000000-0000-4000-8000-000000000008';
const PERSON = '00000000-0000-4000-8000-00000000000a';
const pool = { query: async () => ({ rows: [{ id: BOT, username: 'stockfish-8' }] }) } as any;

function hosted(fen: string, botColor: 'white' | 'black', remainingMs = 60_000): HostedGame {
  return {
    status: 'active',
    fen,
    turn: fen.split(' ')[1] === 'w' ? 'white' : 'black',
    seatId: (c) => (c === botColor ? BOT : PERSON),
    remainingMs: () => remainingMs,
    incrementMs: 0,
  };
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

  it("moves when it is the bot's turn in a game opened here, at most one search per engine; not otherwise", async () => {
    const games = new Map<string, HostedGame>();
    const moves: Array<{ botId: string; gameId: string; uci: string }> = [];
    const player = startComputerPlayer({
      pool,
      log: createLogger('silent'),
      clock: new ManualClock(),
      command: engineCommand(),
      engines: 1,
      find: (id) => games.get(id),
      move: async (botId, gameId, m) => {
        moves.push({ botId, gameId, uci: `${m.from}${m.to}${m.promotion ?? ''}` });
      },
    });
    try {
      // Mate in one for the bot (Black): a full-strength search finds it.
      const mate = new Chess();
      for (const san of ['f3', 'e5', 'g4']) mate.move(san);
      games.set('mate', hosted(mate.fen(), 'black', 10_000));
      games.set('person', hosted(new Chess().fen(), 'black'));
      games.set('start', hosted(new Chess().fen(), 'white'));
      for (const id of ['mate', 'person', 'start', 'gone']) player.consider(id);
      await player.idle();
      assert.deepEqual(moves.map((m) => m.gameId).sort(), ['mate', 'start']);
      assert.equal(moves.find((m) => m.gameId === 'mate')!.uci, 'd8h4');
      assert.ok(new Chess().moves({ verbose: true }).some((m) => m.lan === moves.find((x) => x.gameId === 'start')!.uci));
      assert.ok(moves.every((m) => m.botId === BOT));
      assert.equal(player.enginePids().length, 1);
    } finally {
      await player.stop();
    }
    assert.equal(player.enginePids().length, 0);
  });
});

// ChessGame against a plain chess.js instance (the reference) on random legal games: the
// incremental bookkeeping must match what chess.js derives the slow way.

import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import fc from 'fast-check';
import { ChessGame } from '../../src/domain/game.js';

/** mulberry32: a tiny seeded PRNG, so a failing game can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The movetext part of chess.js's pgn(): no tags, no result token. */
function referenceMovetext(ref: Chess): string {
  const pgn = ref.pgn();
  const body = pgn.slice(pgn.lastIndexOf('\n\n') + 2);
  return body.replace(/\s*(1-0|0-1|1\/2-1\/2|\*)$/, '');
}

/** What chess.js says ended the game, in our termination names. */
function referenceTermination(ref: Chess): string | null {
  if (ref.isCheckmate()) return 'checkmate';
  if (ref.isStalemate()) return 'stalemate';
  if (ref.isInsufficientMaterial()) return 'insufficient_material';
  if (ref.isThreefoldRepetition()) return 'repetition';
  if (ref.isDrawByFiftyMoves()) return 'fifty_moves';
  return null;
}

/**
 * Plays `choose`'s picks among chess.js's (non-verbose) legal moves on both, comparing after
 * every ply. Returns the reference instance.
 */
function playAlongside(choose: (sans: string[]) => string, maxPlies: number, compareEachPly = true): Chess {
  const ref = new Chess();
  const game = new ChessGame();
  for (let ply = 0; ply < maxPlies && !game.ending; ply++) {
    const san = choose(ref.moves());
    const expected = ref.move(san);
    const outcome = game.play({ from: expected.from, to: expected.to, promotion: expected.promotion });
    assert.ok(outcome.ok, `ply ${ply + 1}: ${san} refused`);
    assert.equal(outcome.value.move.san, expected.san);
    assert.equal(outcome.value.move.flags, expected.flags);
    assert.equal(game.fen, ref.fen());
    assert.equal(game.moveCount, ply + 1);
    assert.equal(outcome.value.ending?.termination ?? null, referenceTermination(ref), `ply ${ply + 1}: ending`);
    if (compareEachPly) assert.equal(game.movetext, referenceMovetext(ref));
  }
  assert.deepEqual(game.sanList, ref.history());
  assert.equal(game.movetext, referenceMovetext(ref));
  return ref;
}

describe('ChessGame on random games', () => {
  for (const seed of [1, 2024, 31337]) {
    it(`matches chess.js move by move in the seeded game ${seed}`, () => {
      const random = prng(seed);
      const ref = playAlongside((sans) => sans[Math.floor(random() * sans.length)]!, 120);
      assert.ok(ref.history().length >= 60, `only ${ref.history().length} plies`);
    });
  }

  it('never throws and keeps movetext and endings equal to chess.js for any legal sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 40, maxLength: 120 }), (picks) => {
        let i = 0;
        playAlongside((sans) => sans[picks[i++ % picks.length]! % sans.length]!, picks.length, false);
      }),
      { numRuns: 40 },
    );
  });

  it('detects threefold repetition exactly when chess.js does, when knights wander back and forth', () => {
    // Two choices among quiet knight moves make positions recur often; pawns move only when
    // no knight can.
    let repetitions = 0;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 40, maxLength: 150 }), (picks) => {
        let i = 0;
        const ref = playAlongside((sans) => {
          const knightMoves = sans.filter((san) => san.startsWith('N') && !san.includes('x'));
          const pool = knightMoves.length > 0 ? knightMoves : sans;
          return pool[picks[i++ % picks.length]! % pool.length]!;
        }, picks.length, false);
        if (ref.isThreefoldRepetition()) repetitions++;
      }),
      { numRuns: 60 },
    );
    assert.ok(repetitions > 5, `only ${repetitions} games reached a repetition`);
  });

  describe('cost', () => {
    const proto = Chess.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const saved = { pgn: proto.pgn!, history: proto.history!, moves: proto.moves! };
    let ref: Chess;

    before(() => {
      ref = new Chess(); // picks moves with non-verbose moves(), which the traps let through
      const trap = (name: string) => () => assert.fail(`ChessGame called chess.js ${name}()`);
      proto.pgn = trap('pgn');
      proto.history = trap('history');
      proto.moves = function (this: unknown, ...args: unknown[]) {
        if ((args[0] as { verbose?: boolean } | undefined)?.verbose) assert.fail('ChessGame called chess.js verbose moves()');
        return saved.moves.apply(this, args);
      };
    });

    after(() => Object.assign(proto, saved));

    it('never calls pgn(), history() or verbose moves() while moves are played', () => {
      const random = prng(7);
      const game = new ChessGame();
      for (let ply = 0; ply < 120 && !game.ending; ply++) {
        const sans = ref.moves();
        const played = ref.move(sans[Math.floor(random() * sans.length)]!);
        assert.ok(game.play({ from: played.from, to: played.to, promotion: played.promotion }).ok);
      }
      assert.ok(game.moveCount >= 60);
    });
  });
});

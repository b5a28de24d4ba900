import assert from 'node:assert/strict';
import { ChessGame } from '../../src/domain/game.js';
import type { MoveOutcome } from '../../src/domain/game.js';

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** Plays SAN moves through play (tryMove + commit, the real entry point), via their squares. */
function play(game: ChessGame, sans: readonly string[]): MoveOutcome {
  let outcome: MoveOutcome | undefined;
  for (const san of sans) {
    const probe = new ChessGame({ fen: game.fen, moves: [san] });
    const { from, to, promotion } = probe.lastMove!;
    outcome = game.play({ from, to, promotion });
    assert.equal(outcome.ok, true, `${san} should be legal`);
  }
  return outcome!;
}

function okOutcome(outcome: MoveOutcome) {
  if (!outcome.ok) assert.fail(`expected a legal move, got ${outcome.error.code}`);
  return outcome.value;
}

describe('ChessGame', () => {
  describe('a new game', () => {
    it('starts from the standard position with White to move', () => {
      const game = new ChessGame();
      assert.equal(game.fen, START_FEN);
      assert.equal(game.turn, 'white');
      assert.equal(game.moveCount, 0);
      assert.equal(game.movetext, '');
      assert.equal(game.lastMove, null);
      assert.equal(game.ending, null);
    });
  });

  describe('tryMove', () => {
    it('returns the move in the shape of the interface', () => {
      const outcome = okOutcome(new ChessGame().play({ from: 'g1', to: 'f3' }));
      assert.deepEqual(outcome.move, { from: 'g1', to: 'f3', san: 'Nf3', piece: 'n', captured: null, promotion: null, flags: 'n' });
      assert.equal(outcome.ending, null);
      assert.deepEqual(outcome.position, { in_check: false, in_checkmate: false, in_stalemate: false, in_draw: false });
    });

    it('updates fen, turn, move count, SAN list and movetext', () => {
      const game = new ChessGame();
      play(game, ['e4', 'e5', 'Nf3']);
      assert.equal(game.fen, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2');
      assert.equal(game.turn, 'black');
      assert.equal(game.moveCount, 3);
      assert.deepEqual(game.sanList, ['e4', 'e5', 'Nf3']);
      assert.equal(game.movetext, '1. e4 e5 2. Nf3');
      assert.equal(game.lastMove?.san, 'Nf3');
    });

    it('refuses an illegal move with INVALID_MOVE and leaves the game unchanged', () => {
      const game = new ChessGame();
      const outcome = game.play({ from: 'e2', to: 'e5' });
      assert.equal(outcome.ok, false);
      assert.equal(!outcome.ok && outcome.error.code, 'INVALID_MOVE');
      assert.equal(game.fen, START_FEN);
      assert.equal(game.moveCount, 0);
    });

    it("refuses moving the opponent's piece", () => {
      const outcome = new ChessGame().play({ from: 'e7', to: 'e5' });
      assert.equal(!outcome.ok && outcome.error.code, 'INVALID_MOVE');
    });

    it('refuses squares that do not exist', () => {
      const outcome = new ChessGame().play({ from: 'z9', to: 'e4' });
      assert.equal(!outcome.ok && outcome.error.code, 'INVALID_MOVE');
    });

    it('reports check', () => {
      const game = new ChessGame();
      const outcome = okOutcome(play(game, ['e4', 'f5', 'Qh5+']));
      assert.equal(outcome.position.in_check, true);
      assert.equal(outcome.ending, null);
    });
  });

  describe('special moves', () => {
    it('promotes a pawn to the piece asked for', () => {
      const game = new ChessGame({ fen: '8/P7/8/8/8/8/k7/4K3 w - - 0 1' });
      const outcome = okOutcome(game.play({ from: 'a7', to: 'a8', promotion: 'n' }));
      assert.deepEqual(outcome.move, { from: 'a7', to: 'a8', san: 'a8=N', piece: 'p', captured: null, promotion: 'n', flags: 'np' });
    });

    it('reports a capturing promotion with both flags', () => {
      const game = new ChessGame({ fen: '1r6/P7/8/8/8/8/k7/4K3 w - - 0 1' });
      const outcome = okOutcome(game.play({ from: 'a7', to: 'b8', promotion: 'q' }));
      assert.equal(outcome.move.captured, 'r');
      assert.equal(outcome.move.promotion, 'q');
      assert.equal(outcome.move.flags, 'cp');
    });

    it('asks for the promotion piece with VALIDATION_ERROR when it is missing', () => {
      const game = new ChessGame({ fen: '8/P7/8/8/8/8/k7/4K3 w - - 0 1' });
      const outcome = game.play({ from: 'a7', to: 'a8' });
      assert.equal(outcome.ok, false);
      if (outcome.ok) return;
      assert.equal(outcome.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(outcome.error.details, { promotion: ['required: one of q, r, b, n'] });
      assert.equal(game.moveCount, 0);
    });

    it('refuses a promotion piece on a move that promotes nothing, as UCI does', () => {
      const game = new ChessGame();
      const outcome = game.play({ from: 'e2', to: 'e3', promotion: 'q' });
      assert.equal(!outcome.ok && outcome.error.code, 'INVALID_MOVE');
      assert.equal(game.fen, START_FEN);
      assert.equal(game.moveCount, 0);
      assert.equal(game.lastMove, null);
    });

    it('refuses a promotion piece on a king or piece move too', () => {
      const game = new ChessGame({ fen: '8/P7/8/8/8/8/k7/4K1N1 w - - 0 1' });
      assert.equal(game.play({ from: 'g1', to: 'f3', promotion: 'n' }).ok, false);
      assert.equal(game.play({ from: 'e1', to: 'e2', promotion: 'q' }).ok, false);
      assert.equal(game.moveCount, 0);
    });

    it('calls an impossible pawn move to the last rank INVALID_MOVE, not a missing promotion', () => {
      const game = new ChessGame({ fen: '8/P7/8/8/8/8/k7/4K3 w - - 0 1' });
      const outcome = game.play({ from: 'a7', to: 'b8' });
      assert.equal(!outcome.ok && outcome.error.code, 'INVALID_MOVE');
    });

    it('castles kingside with the k flag', () => {
      const game = new ChessGame();
      play(game, ['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5']);
      const outcome = okOutcome(game.play({ from: 'e1', to: 'g1' }));
      assert.equal(outcome.move.san, 'O-O');
      assert.equal(outcome.move.flags, 'k');
    });

    it('castles queenside with the q flag', () => {
      const game = new ChessGame({ fen: 'r3k3/8/8/8/8/8/8/4K3 b q - 0 1' });
      const outcome = okOutcome(game.play({ from: 'e8', to: 'c8' }));
      assert.equal(outcome.move.san, 'O-O-O');
      assert.equal(outcome.move.flags, 'q');
    });

    it('captures en passant with the e flag', () => {
      const game = new ChessGame();
      play(game, ['e4', 'a6', 'e5', 'd5']);
      const outcome = okOutcome(game.play({ from: 'e5', to: 'd6' }));
      assert.deepEqual(outcome.move, { from: 'e5', to: 'd6', san: 'exd6', piece: 'p', captured: 'p', promotion: null, flags: 'e' });
    });
  });

  describe('endings decided by a move', () => {
    it("ends fool's mate by checkmate for Black", () => {
      const game = new ChessGame();
      const outcome = okOutcome(play(game, ['f3', 'e5', 'g4', 'Qh4#']));
      assert.deepEqual(outcome.ending, { result: '0-1', winner: 'black', termination: 'checkmate' });
      assert.deepEqual(outcome.position, { in_check: true, in_checkmate: true, in_stalemate: false, in_draw: false });
    });

    it('ends a stalemate as a draw', () => {
      // Sam Loyd's ten-move stalemate.
      const line = ['e3', 'a5', 'Qh5', 'Ra6', 'Qxa5', 'h5', 'h4', 'Rah6', 'Qxc7', 'f6', 'Qxd7+', 'Kf7', 'Qxb7', 'Qd3', 'Qxb8', 'Qh7', 'Qxc8', 'Kg6', 'Qe6'];
      const outcome = okOutcome(play(new ChessGame(), line));
      assert.deepEqual(outcome.ending, { result: '1/2-1/2', winner: null, termination: 'stalemate' });
      assert.deepEqual(outcome.position, { in_check: false, in_checkmate: false, in_stalemate: true, in_draw: true });
    });

    it('draws by threefold repetition when knights shuffle back twice', () => {
      const game = new ChessGame();
      const shuffle = ['Nf3', 'Nf6', 'Ng1', 'Ng8'];
      const before = okOutcome(play(game, [...shuffle, 'Nf3', 'Nf6', 'Ng1']));
      assert.equal(before.ending, null);
      const outcome = okOutcome(play(game, ['Ng8']));
      assert.deepEqual(outcome.ending, { result: '1/2-1/2', winner: null, termination: 'repetition' });
      assert.equal(outcome.position.in_draw, true);
    });

    it('still sees a threefold repetition after a capture or pawn move has cleared the positions before it', () => {
      const game = new ChessGame();
      const shuffle = ['Nf3', 'Nf6', 'Ng1', 'Ng8'];
      // The knights' first dance, then pawn moves (irreversible): the count starts again from there.
      play(game, [...shuffle, 'e4', 'e5']);
      const before = okOutcome(play(game, [...shuffle, 'Nf3', 'Nf6', 'Ng1']));
      assert.equal(before.ending, null);
      const outcome = okOutcome(play(game, ['Ng8']));
      assert.equal(outcome.ending?.termination, 'repetition');
    });

    it('holds no undo history and no position from before the last capture or pawn move', () => {
      const game = new ChessGame();
      play(game, ['Nf3', 'Nf6', 'Ng1', 'Ng8', 'e4', 'Nf6', 'Nc3', 'Nxe4']);
      const inside = game as unknown as {
        repetitions: Map<string, number>;
        chess: { _history: unknown[]; _positionCount: Map<bigint, number> };
      };
      assert.equal(inside.chess._history.length, 0);
      // Positions since Nxe4: the one it made. Before it: 9 positions a long game would keep forever.
      assert.equal(inside.repetitions.size, 1);
      assert.equal(inside.chess._positionCount.size, 1);
      // A tentative move can still be taken back.
      const tried = game.tryMove({ from: 'c3', to: 'e4' });
      assert.equal(tried.ok, true);
      game.rollback();
      assert.equal(game.fen, 'rnbqkb1r/pppppppp/8/8/4n3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 5');
      assert.equal(okOutcome(game.play({ from: 'c3', to: 'e4' })).move.san, 'Nxe4');
    });

    it('does not count positions with different castling rights as repetitions', () => {
      const game = new ChessGame();
      // The rook trip costs White the kingside castling right: the piece placements recur
      // three times, the positions only twice.
      const outcome = okOutcome(play(game, ['Nf3', 'Nf6', 'Rg1', 'Ng8', 'Rh1', 'Nf6', 'Ng1', 'Ng8', 'Nf3', 'Nf6', 'Ng1', 'Ng8']));
      assert.equal(outcome.ending, null);
    });

    it('draws by the fifty-move rule at the hundredth half-move', () => {
      const game = new ChessGame({ fen: '8/8/8/4k3/8/8/R7/4K3 w - - 99 80' });
      const outcome = okOutcome(game.play({ from: 'a2', to: 'a3' }));
      assert.deepEqual(outcome.ending, { result: '1/2-1/2', winner: null, termination: 'fifty_moves' });
      assert.equal(outcome.position.in_draw, true);
    });

    it('lets a capture on the hundredth half-move reset the count', () => {
      const game = new ChessGame({ fen: '8/8/8/4k3/8/8/R6r/4K3 w - - 99 80' });
      const outcome = okOutcome(game.play({ from: 'a2', to: 'h2' }));
      assert.equal(outcome.ending, null);
    });

    it('prefers checkmate over the fifty-move rule', () => {
      const game = new ChessGame({ fen: '7k/8/6K1/8/8/8/8/R7 w - - 99 80' });
      const outcome = okOutcome(game.play({ from: 'a1', to: 'a8' }));
      assert.equal(outcome.ending?.termination, 'checkmate');
    });

    it('draws by insufficient material when a capture leaves king and knight against king', () => {
      const game = new ChessGame({ fen: '8/8/8/3k4/8/8/5r2/4K1N1 w - - 0 1' });
      const outcome = okOutcome(game.play({ from: 'e1', to: 'f2' }));
      assert.deepEqual(outcome.ending, { result: '1/2-1/2', winner: null, termination: 'insufficient_material' });
    });

    it('draws by insufficient material when the last pawn is captured', () => {
      const game = new ChessGame({ fen: '8/8/8/1k6/3p4/4K3/8/8 w - - 0 1' });
      const outcome = okOutcome(game.play({ from: 'e3', to: 'd4' }));
      assert.equal(outcome.ending?.termination, 'insufficient_material');
    });

    it('refuses any move once the game has ended', () => {
      const game = new ChessGame();
      play(game, ['f3', 'e5', 'g4', 'Qh4#']);
      const outcome = game.play({ from: 'a2', to: 'a3' });
      assert.equal(!outcome.ok && outcome.error.code, 'GAME_NOT_ACTIVE');
    });

    it('refuses moves after a draw by repetition although chess.js would allow them', () => {
      const game = new ChessGame();
      play(game, ['Nf3', 'Nf6', 'Ng1', 'Ng8', 'Nf3', 'Nf6', 'Ng1', 'Ng8']);
      assert.equal(game.play({ from: 'e2', to: 'e4' }).ok, false);
    });
  });

  describe('replaying stored moves', () => {
    it('rebuilds the same game from SAN', () => {
      const played = new ChessGame();
      play(played, ['e4', 'c5', 'Nf3', 'd6', 'd4', 'cxd4']);
      const replayed = new ChessGame({ moves: played.sanList });
      assert.equal(replayed.fen, played.fen);
      assert.equal(replayed.movetext, played.movetext);
      assert.deepEqual(replayed.lastMove, played.lastMove);
    });

    it('accepts UCI notation, promotions included', () => {
      const game = new ChessGame({ fen: '8/P6p/8/8/8/8/k7/4K3 w - - 0 1', moves: ['a7a8n', 'a2b2'] });
      assert.deepEqual(game.sanList, ['a8=N', 'Kb2']);
      assert.equal(game.movetext, '1. a8=N Kb2');
    });

    it('replays a UCI game whose only promotion letter is on the promotion', () => {
      const moves = ['e2e4', 'd7d5', 'e4d5', 'c7c6', 'd5c6', 'g8f6', 'c6b7', 'e7e6', 'b7a8q'];
      const game = new ChessGame({ moves });
      assert.deepEqual(game.sanList, ['e4', 'd5', 'exd5', 'c6', 'dxc6', 'Nf6', 'cxb7', 'e6', 'bxa8=Q']);
      assert.equal(game.lastMove?.promotion, 'q');
    });

    it('throws on a stored UCI move with a promotion letter on a plain move', () => {
      assert.throws(() => new ChessGame({ moves: ['e2e4q'] }), /e2e4q/);
    });

    it('numbers a movetext that starts with Black the PGN way', () => {
      const game = new ChessGame({ fen: '8/8/8/8/8/8/4k3/R3K3 b - - 0 30', moves: ['Kd3', 'Ra3+'] });
      assert.equal(game.movetext, '30... Kd3 31. Ra3+');
    });

    it('restores an ending reached by the stored moves', () => {
      const game = new ChessGame({ moves: ['f3', 'e5', 'g4', 'Qh4#'] });
      assert.equal(game.ending?.termination, 'checkmate');
    });

    it('keeps repetition counts across a replay', () => {
      const game = new ChessGame({ moves: ['Nf3', 'Nf6', 'Ng1', 'Ng8', 'Nf3', 'Nf6', 'Ng1'] });
      const outcome = okOutcome(game.play({ from: 'f6', to: 'g8' }));
      assert.equal(outcome.ending?.termination, 'repetition');
    });

    it('throws on a stored move that is illegal', () => {
      assert.throws(() => new ChessGame({ moves: ['e4', 'e4'] }));
    });
  });

  describe('timeout', () => {
    it('gives the win to an opponent with a rook', () => {
      const game = new ChessGame({ fen: '8/8/8/4k3/8/8/R7/4K3 b - - 0 1' });
      assert.deepEqual(game.timeoutEnding('black'), { result: '1-0', winner: 'white', termination: 'timeout' });
    });

    it('draws when the opponent has only a king and a minor piece', () => {
      const game = new ChessGame({ fen: '8/8/8/4k3/8/8/R7/4K1n1 w - - 0 1' });
      assert.deepEqual(game.timeoutEnding('white'), { result: '1/2-1/2', winner: null, termination: 'timeout' });
    });

    it('counts a lone king and a single minor piece as no mating material', () => {
      assert.equal(new ChessGame({ fen: '8/8/8/4k3/8/8/8/4K3 w - - 0 1' }).hasMatingMaterial('white'), false);
      assert.equal(new ChessGame({ fen: '8/8/8/4k3/8/8/8/4KB2 w - - 0 1' }).hasMatingMaterial('white'), false);
      assert.equal(new ChessGame({ fen: '8/8/8/4k3/8/8/8/3NKN2 w - - 0 1' }).hasMatingMaterial('white'), true);
      assert.equal(new ChessGame({ fen: '8/8/8/4k3/8/8/P7/4K3 w - - 0 1' }).hasMatingMaterial('white'), true);
      assert.equal(new ChessGame({ fen: '8/8/8/4k3/8/8/P7/4K3 w - - 0 1' }).hasMatingMaterial('black'), false);
    });

    it('refuses moves after finish records another ending', () => {
      const game = new ChessGame();
      game.finish({ result: '0-1', winner: 'black', termination: 'resignation' });
      assert.equal(game.play({ from: 'e2', to: 'e4' }).ok, false);
      assert.equal(game.ending?.termination, 'resignation');
    });
  });
});

describe('ChessGame: a tried move is not part of the game until committed', () => {
  it('leaves FEN, turn, SAN list and movetext as they were after tryMove', () => {
    const game = new ChessGame();
    const outcome = okOutcome(game.tryMove({ from: 'e2', to: 'e4' }));
    assert.equal(outcome.fen, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
    assert.equal(outcome.uci, 'e2e4');
    assert.equal(outcome.pgnSuffix, '1. e4');
    assert.deepEqual([game.fen, game.turn, game.moveCount, game.movetext], [START_FEN, 'white', 0, '']);
  });

  it('makes the tried move part of the game on commit, without judging it again', () => {
    const game = new ChessGame();
    const outcome = okOutcome(game.tryMove({ from: 'g1', to: 'f3' }));
    game.commit(outcome.uci);
    assert.deepEqual([game.fen, game.turn, game.sanList, game.movetext], [outcome.fen, 'black', ['Nf3'], '1. Nf3']);
  });

  it('takes a tried move back on rollback, so the same side may try again', () => {
    const game = new ChessGame();
    okOutcome(game.tryMove({ from: 'e2', to: 'e4' }));
    game.rollback();
    assert.equal(game.fen, START_FEN);
    const again = okOutcome(game.tryMove({ from: 'd2', to: 'd4' }));
    game.commit(again.uci);
    assert.deepEqual(game.sanList, ['d4']);
  });

  it('plays a committed move afresh when it is not the tried one (a replay)', () => {
    const game = new ChessGame();
    okOutcome(game.tryMove({ from: 'e2', to: 'e4' }));
    game.commit('c2c4');
    assert.deepEqual(game.sanList, ['c4']);
  });

  it('counts a position toward repetition only once its move is committed', () => {
    const game = new ChessGame();
    for (const m of ['g1f3', 'g8f6', 'f3g1', 'f6g8', 'g1f3', 'g8f6', 'f3g1']) {
      const o = okOutcome(game.tryMove({ from: m.slice(0, 2), to: m.slice(2) }));
      game.commit(o.uci);
    }
    // f6g8 would repeat the start position a third time: tried twice, it must not count twice.
    okOutcome(game.tryMove({ from: 'f6', to: 'g8' }));
    game.rollback();
    const third = okOutcome(game.tryMove({ from: 'f6', to: 'g8' }));
    assert.equal(third.ending?.termination, 'repetition');
    game.commit(third.uci);
    assert.equal(game.ending?.termination, 'repetition');
  });
});

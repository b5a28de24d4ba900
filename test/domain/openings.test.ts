import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import {
  CLASSIFY_MAX_PLIES,
  createOpeningBook,
  epdOf,
  loadOpeningBook,
  parseOpeningTable,
  sanMoves,
  type Opening,
} from '../../src/domain/openings.ts';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** Every position of a game from the start, as the analysis worker records them. */
function positions(movetext: string, from = START): string[] {
  const chess = new Chess(from);
  const fens = [chess.fen()];
  for (const san of sanMoves(movetext)) {
    chess.move(san, { strict: true });
    fens.push(chess.fen());
  }
  return fens;
}

const named = (opening: Opening | null | undefined) => opening && `${opening.eco} ${opening.name}`;

describe('opening book', () => {
  const book = loadOpeningBook();

  describe('loading', () => {
    it('reads all 3,807 rows of the five tables', () => {
      assert.equal(book.openings.length, 3807);
      assert.deepEqual(book.openings[0], { eco: 'A00', name: 'Amar Opening', moves: '1. Nh3' });
    });

    it('indexes every row by the position its line reaches, as chess.js replays it', () => {
      // Public API, prefix by prefix: the index itself is built through chess.js internals.
      const lines = book.openings
        .map((opening) => ({ opening, sans: sanMoves(opening.moves) }))
        .sort((a, b) => (a.sans.join(' ') < b.sans.join(' ') ? -1 : 1));
      const chess = new Chess();
      let played: string[] = [];
      for (const { opening, sans } of lines) {
        let shared = 0;
        while (shared < played.length && shared < sans.length && played[shared] === sans[shared]) shared++;
        for (let i = played.length; i > shared; i--) chess.undo();
        for (const san of sans.slice(shared)) chess.move(san, { strict: true });
        played = sans;
        assert.equal(book.byEpd(chess.fen()), opening, `${opening.eco} ${opening.name}: ${opening.moves}`);
      }
    });

    it('loads once per process', () => {
      assert.equal(loadOpeningBook(), book);
    });

    it('refuses a malformed row, naming the file and line', () => {
      const tsv = 'eco\tname\tpgn\nA00\tAmar Opening\t1. Nh3\nZ99\tNonsense\t1. e4\n';
      assert.throws(() => parseOpeningTable(tsv, 'z.tsv'), /z\.tsv:3:/);
    });

    it('refuses a line with an illegal move, naming the opening', () => {
      const rows = parseOpeningTable('eco\tname\tpgn\nC20\tBroken Line\t1. e4 e5 2. Ke3\n');
      assert.throws(() => createOpeningBook(rows), /C20 "Broken Line".*Ke3/);
    });
  });

  describe('classify', () => {
    it('names the Ruy Lopez', () => {
      assert.equal(named(book.classify(positions('1. e4 e5 2. Nf3 Nc6 3. Bb5'))), 'C60 Ruy Lopez');
    });

    it('names the Sicilian Najdorf', () => {
      const najdorf = positions('1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6');
      assert.equal(named(book.classify(najdorf)), 'B90 Sicilian Defense: Najdorf Variation');
    });

    it("names the Queen's Gambit Declined with the table's movetext", () => {
      assert.deepEqual(book.classify(positions('1. d4 d5 2. c4 e6')), {
        eco: 'D30',
        name: "Queen's Gambit Declined",
        moves: '1. d4 d5 2. c4 e6',
      });
    });

    it('keeps the deepest named position once the game leaves the book', () => {
      const game = positions(
        '1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3 Be7 ' +
          '9. Qd2 O-O 10. O-O-O Nbd7 11. g4 b5 12. g5 b4 13. Ne2 Ne8 14. f4 a5 15. f5 a4');
      assert.equal(named(book.classify(game)), 'B90 Sicilian Defense: Najdorf Variation, English Attack');
    });

    it("names a Queen's Pawn position reached by another move order", () => {
      assert.deepEqual(book.classify(positions('1. Nf3 d5 2. d4')), {
        eco: 'D02',
        name: "Queen's Pawn Game: Zukertort Variation",
        moves: '1. d4 d5 2. Nf3',
      });
    });

    it('names the Nimzo-Indian reached from the English', () => {
      const viaQueensPawn = book.classify(positions('1. d4 Nf6 2. c4 e6 3. Nc3 Bb4'));
      const viaEnglish = book.classify(positions('1. c4 e6 2. Nc3 Nf6 3. d4 Bb4'));
      assert.equal(named(viaEnglish), 'E20 Nimzo-Indian Defense');
      assert.equal(viaEnglish, viaQueensPawn);
    });

    it("names a transposition that passes through unnamed positions (Queen's Gambit Declined from the Indian move order)", () => {
      const game = positions('1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Be7 5. Bg5 O-O 6. e3 h6 7. Bh4 b6 8. Rc1 Bb7');
      assert.equal(named(book.classify(game)), "D58 Queen's Gambit Declined: Tartakower Defense");
    });

    it('names nothing for the start position alone or an empty game', () => {
      assert.equal(book.classify([START]), null);
      assert.equal(book.classify([]), null);
    });

    it('names nothing for a game from a position no book line reaches', () => {
      assert.equal(book.classify(positions('1. Qg7#', '6k1/8/5K2/8/8/8/8/6Q1 w - - 0 1')), null);
    });

    it(`looks no further than the first ${CLASSIFY_MAX_PLIES} plies`, () => {
      // Ten rounds of knights out and back (40 plies) return to the start; 1. e4 e5 after that
      // is a book position, but not how this game opened.
      const shuffle = Array.from({ length: 10 }, () => 'Nf3 Nf6 Ng1 Ng8').join(' ');
      const game = positions(`${shuffle} e4 e5`);
      assert.equal(game.length - 1, 42);
      assert.equal(named(book.byEpd(game[42])), "C20 King's Pawn Game");
      assert.equal(named(book.classify(game)), 'A05 Zukertort Opening');
    });
  });

  describe('position keys', () => {
    it('drops the move counters so transpositions meet', () => {
      assert.equal(epdOf(START), 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -');
    });

    it('finds a position by its EPD as well as by its FEN', () => {
      const fen = positions('1. e4 e5 2. Nf3 Nc6 3. Bb5').at(-1)!;
      assert.equal(book.byEpd(epdOf(fen)), book.byEpd(fen));
      assert.equal(named(book.byEpd(epdOf(fen))), 'C60 Ruy Lopez');
    });

    it('keeps the en-passant square when the capture is legal (Old Benoni: dxe6 is possible)', () => {
      const fen = positions('1. d4 c5 2. d5 e5').at(-1)!;
      assert.equal(epdOf(fen), 'rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6');
      assert.equal(named(book.byEpd(fen)), 'A44 Benoni Defense: Old Benoni');
      assert.equal(book.byEpd(epdOf(fen)), book.byEpd(fen));
    });

    it('drops an en-passant square no pawn can capture on, as other FEN writers record it', () => {
      // The FEN standard (and chess.js 0.x) writes the square after every double push.
      const afterE4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1';
      assert.equal(epdOf(afterE4), 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -');
      assert.equal(named(book.classify([START, afterE4])), "B00 King's Pawn Game");
    });

    it('drops an en-passant square whose capture is pinned', () => {
      // exd6 e.p. would open the e-file to the rook on e8; chess.js's forceEnpassantSquare still
      // writes d6 here because a pawn stands beside d5.
      const chess = new Chess('4r1k1/3p4/8/4P3/8/8/8/4K3 b - - 0 1');
      chess.move('d5');
      const forced = chess.fen({ forceEnpassantSquare: true });
      assert.equal(forced, '4r1k1/8/8/3pP3/8/8/8/4K3 w - d6 0 2');
      assert.equal(epdOf(forced), '4r1k1/8/8/3pP3/8/8/8/4K3 w - -');
      assert.equal(epdOf(forced), epdOf(chess.fen()));
    });
  });

  describe('when two rows reach one position', () => {
    const rows = (...lines: string[]) =>
      parseOpeningTable(['eco\tname\tpgn', ...lines].join('\n'));
    const first = 'D02\tFirst Row\t1. d4 d5 2. Nf3';
    const second = 'A06\tSecond Row\t1. Nf3 d5 2. d4';

    it('gives the position to the row that comes first in the table', () => {
      const fen = positions('1. d4 d5 2. Nf3').at(-1)!;
      assert.equal(createOpeningBook(rows(first, second)).byEpd(fen)?.name, 'First Row');
      assert.equal(createOpeningBook(rows(second, first)).byEpd(fen)?.name, 'Second Row');
    });
  });
});

describe('classifySans', () => {
  const book = loadOpeningBook();
  const classifyByFens = (sans: string[]) => {
    const chess = new Chess();
    const fens = [chess.fen()];
    for (const san of sans.slice(0, CLASSIFY_MAX_PLIES)) fens.push((chess.move(san), chess.fen()));
    return book.classify(fens);
  };

  it('names a game from its SAN moves as classify does from its positions, transpositions and en passant included', () => {
    const games = [
      ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6'],
      ['Nf3', 'Nc6', 'e4', 'e5'], // transposes into the Ruy Lopez family's start
      ['e4', 'c5'],
      ['d4', 'd5', 'c4', 'e6', 'Nc3', 'Nf6', 'Bg5', 'Be7', 'e3', 'O-O', 'Nf3', 'h6', 'Bh4', 'b6'],
      ['e4', 'e6', 'e5', 'd5'], // an en-passant square that is a legal capture
      ['Nf3', 'Nf6', 'Ng1', 'Ng8', 'Nf3', 'Nf6', 'Ng1', 'Ng8'],
    ];
    for (const sans of games) assert.deepEqual(book.classifySans(sans), classifyByFens(sans), sans.join(' '));
  });

  it('agrees with classify on random games, and on each a second time (from its memory)', () => {
    let s = 7;
    const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let k = 0; k < 60; k++) {
      const chess = new Chess();
      while (chess.history().length < 50 && !chess.isGameOver()) {
        const moves = chess.moves();
        chess.move(moves[Math.floor(rand() * moves.length)]);
      }
      const sans = chess.history();
      const expected = classifyByFens(sans);
      assert.deepEqual(book.classifySans(sans), expected);
      assert.deepEqual(book.classifySans(sans), expected);
    }
  });

  it('stops at a move that is not legal and names what came before', () => {
    assert.equal(book.classifySans(['e4', 'c5', 'Ke3'])?.name, 'Sicilian Defense');
  });
});

// Opening names for post-game analysis (DESIGN 2.5), from the Lichess chess-openings table (CC0)
// bundled in assets/openings. Lines are indexed by the position they reach, not by their move
// string, so a game that gets there by another move order still gets the name. Pure except for
// loadOpeningBook, which reads the bundled files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Chess } from 'chess.js';

export type Opening = {
  /** ECO code, A00–E99. */
  eco: string;
  /** `Family: Variation, Subvariation`. */
  name: string;
  /** The table's SAN movetext, e.g. "1. e4 e5 2. Nf3". */
  moves: string;
};

export interface OpeningBook {
  /** Every row of the table, in file order (a.tsv … e.tsv). */
  readonly openings: readonly Opening[];
  /** The opening named at this position; takes an EPD or a full FEN. */
  byEpd(epd: string): Opening | undefined;
  /**
   * The game's opening: the latest of its first CLASSIFY_MAX_PLIES positions that has a name.
   * `fens` holds every position in order: index 0 the start, index i the position after ply i.
   */
  classify(fens: readonly string[]): Opening | null;
  /** The same for a game given by its SAN moves from the standard start (an export's games). */
  classifySans(sans: readonly string[]): Opening | null;
}

export const OPENING_FILES = ['a.tsv', 'b.tsv', 'c.tsv', 'd.tsv', 'e.tsv'] as const;

/**
 * Lichess's SEARCH_MAX_PLIES (scalachess OpeningDb). The table's longest line is 36 plies, so 40
 * reaches every named position with room for a transposition that arrives a move later; a
 * middlegame position that happens to repeat a book one after that is not how the game opened.
 */
export const CLASSIFY_MAX_PLIES = 40;

export const DEFAULT_OPENINGS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'openings');

const HEADER = 'eco\tname\tpgn';
const ECO = /^[A-E]\d\d$/;

/**
 * The rows of one table file; `source` names the file in errors. The table ships with the service,
 * so a malformed row is a packaging mistake: it throws rather than returning a result.
 */
export function parseOpeningTable(tsv: string, source = 'openings table'): Opening[] {
  const lines = tsv.split(/\r?\n/);
  if (lines[0] !== HEADER) throw new Error(`${source}: expected the header "eco, name, pgn"`);
  const openings: Opening[] = [];
  lines.slice(1).forEach((line, i) => {
    if (line === '') return;
    const [eco, name, moves, ...rest] = line.split('\t');
    if (rest.length > 0 || !moves || !name || !ECO.test(eco)) {
      throw new Error(`${source}:${i + 2}: expected "eco<TAB>name<TAB>pgn", got ${JSON.stringify(line)}`);
    }
    openings.push({ eco, name, moves });
  });
  return openings;
}

/** The SAN moves of a movetext, without move numbers: "1. e4 e5 2. Nf3" → e4, e5, Nf3. */
export function sanMoves(movetext: string): string[] {
  return movetext.split(/\s+/).filter((token) => token !== '' && !/^\d+\.+$/.test(token));
}

// One chess.js instance for normalising the en-passant field of FENs handed to epdOf.
const scratch = new Chess();

/**
 * The key of a position: a FEN's first four fields (placement, side to move, castling, en
 * passant), without the move counters, so transpositions meet. The en-passant square is kept only
 * when a capture there is legal. chess.js 1.4's fen() already writes it that way (it tries the
 * capture and checks for a pin), as do python-chess's epd() behind the upstream table and
 * scalachess's Fen.writeOpening. A FEN from a writer that records the square after every double
 * push (the FEN standard's rule, chess.js 0.x) would key 1. e4 as "… b KQkq e3", and one that
 * records it whenever a pawn stands beside (chess.js's forceEnpassantSquare) would key a pinned
 * capture; both would miss. Index and lookup both go through this function so they cannot drift.
 */
export function epdOf(fen: string): string {
  let fields = fen.trim().split(/\s+/);
  if (fields.length >= 4 && fields[3] !== '-') {
    try {
      scratch.load(fields.slice(0, 4).join(' '));
      fields = scratch.fen().split(' ');
    } catch {
      // Not a position chess.js accepts: it cannot be in the table either, so the raw key will do.
    }
  }
  return fields.slice(0, 4).join(' ');
}

const books = new Map<string, OpeningBook>();

/** Reads and indexes the bundled table once per process (per directory); later calls share it. */
export function loadOpeningBook(dir: string = DEFAULT_OPENINGS_DIR): OpeningBook {
  const key = path.resolve(dir);
  let book = books.get(key);
  if (!book) {
    const openings = OPENING_FILES.flatMap((file) =>
      parseOpeningTable(readFileSync(path.join(key, file), 'utf8'), path.join(key, file)));
    book = createOpeningBook(openings);
    books.set(key, book);
  }
  return book;
}

export function createOpeningBook(openings: readonly Opening[]): OpeningBook {
  const index = indexOpenings(openings);
  const byEpd = (epd: string) => index.get(epdOf(epd));
  const memo = new Map<string, Opening | null>();
  return {
    openings,
    byEpd,
    classify(fens) {
      // Latest first: the deepest named position wins, even one reached by transposition after
      // the game left the table's move order (Lichess folds from the right the same way).
      for (let ply = Math.min(fens.length - 1, CLASSIFY_MAX_PLIES); ply >= 1; ply--) {
        const opening = byEpd(fens[ply]);
        if (opening) return opening;
      }
      return null;
    },
    classifySans(sans) {
      // Games repeat their first moves far more often than anything else: the answer for a
      // sequence is kept (as many as MEMO_SIZE, the oldest dropped first), keyed by the only
      // plies classify reads.
      const line = sans.slice(0, CLASSIFY_MAX_PLIES);
      const key = line.join(' ');
      const known = memo.get(key);
      if (known !== undefined) return known;
      let opening: Opening | null = null;
      for (const epd of epdsAlong(line).reverse()) {
        opening = index.get(epd) ?? null;
        if (opening) break;
      }
      if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
      memo.set(key, opening);
      return opening;
    },
  };
}

const MEMO_SIZE = 20_000;

// One board replays every game (JavaScript runs one at a time): making a chess.js instance costs
// ten times what replaying a move does, and each replay undoes its moves before it returns.
const replayBoard = new Chess();

/**
 * The EPD after each move (not the start, which has no name); stops at a move that is not legal.
 * chess.js 1.4's fen() writes the en-passant square only when the capture is legal, which is
 * epdOf's key (see there), so its first four fields are the key as they are.
 */
function epdsAlong(sans: readonly string[]): string[] {
  const board = replayBoard as unknown as Internals;
  const epds: string[] = [];
  try {
    for (const san of sans) {
      const move = resolveSan(board, san);
      if (!move) break;
      board._makeMove(move);
      const fen = replayBoard.fen();
      epds.push(fen.slice(0, fen.lastIndexOf(' ', fen.lastIndexOf(' ') - 1)));
    }
  } finally {
    for (let i = 0; i < epds.length; i++) board._undoMove();
  }
  return epds;
}

/**
 * Every row keyed by the EPD its line reaches. When two rows reach one position the first in file
 * order keeps it (files a … e, rows in order, i.e. by ECO code then name). Upstream's lint
 * (chess-openings bin/gen.py) rejects such a table outright, reporting the later row as the
 * "duplicate epd" of the earlier one, so this rule only decides for a table that slipped past it;
 * it follows the lint in treating the earlier row as the position's owner. (scalachess builds its
 * map with toMap, where the later row would win, but it never sees a duplicate either.)
 */
export function indexOpenings(openings: readonly Opening[]): Map<string, Opening> {
  const epds = epdsOfLines(openings.map((opening) => sanMoves(opening.moves)), (row, san) => {
    const { eco, name, moves } = openings[row];
    return new Error(`opening ${eco} "${name}" (${moves}): ${san} is not a legal move`);
  });
  const index = new Map<string, Opening>();
  openings.forEach((opening, row) => {
    if (!index.has(epds[row])) index.set(epds[row], opening);
  });
  return index;
}

// --- Replaying the lines --------------------------------------------------------------------
// Measured on the service's machine: the 3,807 lines through chess.js's public move() take about
// 4 s (each call generates the legal moves, writes SAN for every candidate and builds two FENs);
// walking them as a tree (36,895 moves, 8,649 distinct prefixes) with move/undo still 1.5 s, and
// with chess.js's private _moveFromSan 0.3–0.6 s. So each SAN is matched against the pseudo-legal
// moves of its piece and only the matches are tested for legality: 0.15–0.25 s in a fresh process,
// 0.09 s warm. fastMove.ts's playFast does not fit (it takes from/to and writes SAN and a FEN per
// move), but this relies on the same pinned chess.js 1.4.0 internals (checked at startup by
// src/chessVersion.ts), and test/domain/openings.test.ts replays every line with the public API.

type Color = 'w' | 'b';
type InternalMove = { from: number; to: number; promotion?: string; flags: number };
type Internals = {
  _turn: Color;
  _moves(options: { legal?: boolean; piece?: string }): InternalMove[];
  _makeMove(move: InternalMove): void;
  _undoMove(): unknown;
  _isKingAttacked(color: Color): boolean;
};

/** chess.js's BITS: capture, en-passant capture, promotion, king- and queen-side castling. */
const CAPTURE = 2 | 8;
const PROMOTION = 16;
const KSIDE = 32;
const QSIDE = 64;

const SAN = /^(?:([NBRQK])?([a-h])?([1-8])?(x)?([a-h])([1-8])(?:=([NBRQ]))?|(O-O-O|O-O))[+#]?$/;

/** chess.js's 0x88 numbering: a8 = 0, h1 = 119. */
const square0x88 = (file: string, rank: string) => (8 - Number(rank)) * 16 + (file.charCodeAt(0) - 97);

/** The legal move `san` names in this position, if exactly one does. */
function resolveSan(board: Internals, san: string): InternalMove | undefined {
  const m = SAN.exec(san);
  if (!m) return undefined;
  const [, piece = 'P', fromFile, fromRank, capture, toFile, toRank, promotion, castle] = m;
  let candidates: InternalMove[];
  if (castle) {
    const side = castle === 'O-O' ? KSIDE : QSIDE;
    candidates = board._moves({ legal: false, piece: 'k' }).filter((move) => move.flags & side);
  } else {
    const to = square0x88(toFile, toRank);
    candidates = board._moves({ legal: false, piece: piece.toLowerCase() }).filter((move) =>
      move.to === to &&
      !(move.flags & (KSIDE | QSIDE)) &&
      Boolean(move.flags & CAPTURE) === Boolean(capture) &&
      (move.flags & PROMOTION ? move.promotion === promotion?.toLowerCase() : !promotion) &&
      (!fromFile || (move.from & 15) === fromFile.charCodeAt(0) - 97) &&
      (!fromRank || 8 - (move.from >> 4) === Number(fromRank)));
  }
  const us = board._turn;
  const legal = candidates.filter((move) => {
    board._makeMove(move);
    const ok = !board._isKingAttacked(us);
    board._undoMove();
    return ok;
  });
  return legal.length === 1 ? legal[0] : undefined;
}

type LineNode = { children: Map<string, LineNode>; rows: number[] };

/** The EPD each line reaches, by row; lines sharing a prefix replay it once. */
function epdsOfLines(lines: readonly string[][], illegal: (row: number, san: string) => Error): string[] {
  const root: LineNode = { children: new Map(), rows: [] };
  lines.forEach((sans, row) => {
    let node = root;
    for (const san of sans) {
      let child = node.children.get(san);
      if (!child) node.children.set(san, (child = { children: new Map(), rows: [] }));
      node = child;
    }
    node.rows.push(row);
  });

  const chess = new Chess();
  const board = chess as unknown as Internals;
  const epds: string[] = [];
  const firstRowBelow = (node: LineNode): number => node.rows[0] ?? firstRowBelow(node.children.values().next().value!);
  const walk = (node: LineNode) => {
    if (node.rows.length > 0) {
      const epd = epdOf(chess.fen());
      for (const row of node.rows) epds[row] = epd;
    }
    for (const [san, child] of node.children) {
      const move = resolveSan(board, san);
      if (!move) throw illegal(firstRowBelow(child), san);
      board._makeMove(move);
      walk(child);
      board._undoMove();
    }
  };
  walk(root);
  return epds;
}

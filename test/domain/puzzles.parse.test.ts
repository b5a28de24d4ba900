import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Chess } from 'chess.js';
import { parse } from 'csv-parse/sync';
import {
  dailyStartKey,
  missingColumns,
  parsePuzzleRecord,
  PUZZLE_COLUMNS,
  sideToMove,
  solverMoveCount,
  utcDay,
  type PuzzleCsvRecord,
  type PuzzleData,
} from '../../src/domain/puzzles.ts';
import { BUNDLED_PUZZLES } from '../../src/services/puzzleImport.ts';

/** The bundled sample as records, by header name, as the importer reads them. */
const SAMPLE: PuzzleCsvRecord[] = parse(readFileSync(BUNDLED_PUZZLES), { columns: true });
const byId = (id: string) => SAMPLE.find((r) => r.PuzzleId === id)!;
const parsed = (r: PuzzleCsvRecord): PuzzleData => {
  const result = parsePuzzleRecord(r);
  assert.ok(result.ok, JSON.stringify(result));
  return result.value;
};
const reason = (r: PuzzleCsvRecord) => {
  const result = parsePuzzleRecord(r);
  assert.ok(!result.ok, `${r.PuzzleId} was accepted`);
  return result.error.reason;
};
/** A real row with some fields changed. */
const row = (changes: Partial<PuzzleCsvRecord>): PuzzleCsvRecord => ({ ...byId('002X3'), ...changes });

describe('puzzle rows (the Lichess CSV)', () => {
  it('reads a real row: the position after the setup move, the setup move, the line after it, every field', () => {
    assert.deepEqual(parsed(byId('002X3')), {
      id: '002X3',
      // 6k1/2q2p1p/4pPp1/4P3/p1pP1P2/RrP5/6QP/4B1K1 b - - 0 33, after b3a3 (the rook takes on a3)
      fen: '6k1/2q2p1p/4pPp1/4P3/p1pP1P2/r1P5/6QP/4B1K1 w - - 0 34',
      lastMove: 'b3a3',
      solution: ['g2a8', 'c7b8', 'a8b8'],
      rating: 970,
      ratingDeviation: 168,
      popularity: 100,
      plays: 10,
      themes: ['endgame', 'mate', 'mateIn2', 'short'],
      openingTags: [],
      gameUrl: 'https://lichess.org/yshS3bLB/black#66',
    });
  });

  it('reads opening tags and tolerates the trailing DailyDate column, or its absence', () => {
    const puzzle = parsed(byId('000rZ'));
    assert.deepEqual(puzzle.openingTags, ['Scandinavian_Defense', 'Scandinavian_Defense_Modern_Variation']);
    const { DailyDate: _, ...tenColumns } = byId('000rZ') as PuzzleCsvRecord & { DailyDate?: string };
    assert.deepEqual(parsed(tenColumns), puzzle);
  });

  it('accepts 1,492 of the sample’s 1,499 rows and names the 7 whose ids a spreadsheet mangled', () => {
    const rejected = SAMPLE.map((r) => parsePuzzleRecord(r)).filter((p) => !p.ok);
    assert.equal(SAMPLE.length, 1499);
    assert.deepEqual(
      rejected.map((p) => (p.ok ? undefined : p.error.id)),
      ['4990', '570', '500', '6E+087', '85', '8627', '8852'],
    );
    for (const p of rejected) assert.ok(!p.ok && /PuzzleId/.test(p.error.reason));
  });

  it('gives every sample puzzle the position and colour chess.js reaches by playing the setup move, and a line it can replay', () => {
    let mates = 0;
    for (const r of SAMPLE) {
      const result = parsePuzzleRecord(r);
      if (!result.ok) continue;
      const p = result.value;
      const chess = new Chess(r.FEN);
      const opponent = chess.turn() === 'w' ? 'white' : 'black';
      chess.move(r.Moves.split(' ')[0]!, { strict: false });
      assert.equal(p.fen, chess.fen(), p.id);
      assert.equal(sideToMove(p.fen), opponent === 'white' ? 'black' : 'white', `${p.id}: the solver is the other side`);
      assert.equal(p.lastMove, r.Moves.split(' ')[0]);
      assert.deepEqual(p.solution, r.Moves.split(' ').slice(1));
      for (const uci of p.solution) chess.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] });
      if (p.themes.includes('mate')) {
        assert.ok(chess.isCheckmate(), `${p.id} is tagged mate and its line mates`);
        mates++;
      }
    }
    assert.ok(mates > 800, `${mates} mating lines checked`);
  });

  it('counts the solver’s moves: the solution starts and ends with theirs', () => {
    assert.equal(solverMoveCount(['a']), 1);
    assert.equal(solverMoveCount(['a', 'b', 'c']), 2);
    assert.equal(solverMoveCount(['a', 'b', 'c', 'd', 'e']), 3);
  });

  describe('refuses a row that is no puzzle, saying why', () => {
    const cases: Array<[string, Partial<PuzzleCsvRecord>, RegExp]> = [
      ['an id with other characters', { PuzzleId: 'ab-cd' }, /PuzzleId/],
      ['an id too short', { PuzzleId: 'abcd' }, /PuzzleId/],
      ['a FEN that is no position', { FEN: 'not a fen' }, /FEN/],
      ['a FEN with a king missing', { FEN: '8/8/8/8/8/8/8/7K w - - 0 1' }, /FEN/],
      ['an illegal setup move', { Moves: 'e2e4 g2a8 c7b8 a8b8' }, /setup move e2e4/],
      ['an illegal solution move', { Moves: 'b3a3 g2a8 c7b8 a8a1' }, /move 4 \(a8a1\)/],
      ['a line that ends on a reply', { Moves: 'b3a3 g2a8 c7b8' }, /end on the solver/],
      ['no solution at all', { Moves: 'b3a3' }, /Moves must hold/],
      ['a move that is not UCI', { Moves: 'b3a3 Qa8+ c7b8 a8b8' }, /move 2/],
      ['a rating that is no integer', { Rating: '1500.5' }, /Rating/],
      ['a negative rating', { Rating: '-3' }, /Rating/],
      ['a deviation out of range', { RatingDeviation: '5000' }, /RatingDeviation/],
      ['a popularity above 100', { Popularity: '101' }, /Popularity/],
      ['plays that are no number', { NbPlays: 'many' }, /NbPlays/],
      ['a theme with punctuation', { Themes: 'mate mate-in-2' }, /Themes/],
      ['an opening tag with a quote', { OpeningTags: 'King"s_Gambit' }, /OpeningTags/],
      ['a game URL that is no URL', { GameUrl: 'javascript:alert(1)' }, /GameUrl/],
      ['an empty row', Object.fromEntries(PUZZLE_COLUMNS.map((c) => [c, ''])), /PuzzleId/],
    ];
    for (const [name, changes, why] of cases) {
      it(name, () => assert.match(reason(row(changes)), why));
    }
  });

  it('names the columns a header lacks', () => {
    assert.deepEqual(missingColumns([...PUZZLE_COLUMNS, 'DailyDate']), []);
    assert.deepEqual(missingColumns(['PuzzleId', 'FEN', 'Moves', 'Rating']), ['RatingDeviation', 'Popularity', 'NbPlays', 'Themes', 'GameUrl', 'OpeningTags']);
  });
});

describe('the daily puzzle’s day', () => {
  it('is the UTC date of the moment', () => {
    assert.equal(utcDay(Date.UTC(2026, 10, 23, 0, 0, 0)), '2026-11-23');
    assert.equal(utcDay(Date.UTC(2026, 10, 23, 23, 59, 59, 999)), '2026-11-23');
    assert.equal(utcDay(Date.UTC(2026, 10, 24)), '2026-11-24');
  });

  it('starts its search at a point that depends on the day alone, in id characters', () => {
    assert.equal(dailyStartKey('2026-11-23'), dailyStartKey('2026-11-23'));
    const keys = new Set(Array.from({ length: 30 }, (_, d) => dailyStartKey(utcDay(Date.UTC(2026, 0, 1 + d)))));
    assert.equal(keys.size, 30);
    for (const key of keys) assert.match(key, /^[0-9A-Za-z]{5}$/);
  });
});

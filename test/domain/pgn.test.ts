import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { formatClock, formatEval, formatPgn } from '../../src/domain/pgn.js';
import type { PgnInput } from '../../src/domain/pgn.js';

const finished: PgnInput = {
  event: 'Rated blitz game',
  site: 'https://chess.example/games/42',
  date: new Date('2025-03-07T23:59:00Z'),
  white: 'alice',
  black: 'bob',
  result: '0-1',
  initialTime: 300,
  increment: 2,
  termination: 'checkmate',
  whiteElo: 1612.4,
  blackElo: 1580,
  sanList: ['f3', 'e5', 'g4', 'Qh4#'],
  clocks: [300_000, 300_000, 298_400, 296_000],
};

describe('formatPgn', () => {
  it('writes the Seven Tag Roster first and in order', () => {
    const tags = formatPgn(finished).split('\n').slice(0, 7);
    assert.deepEqual(tags, [
      '[Event "Rated blitz game"]',
      '[Site "https://chess.example/games/42"]',
      '[Date "2025.03.07"]',
      '[Round "-"]',
      '[White "alice"]',
      '[Black "bob"]',
      '[Result "0-1"]',
    ]);
  });

  it('adds ratings, time control and termination', () => {
    const pgn = formatPgn(finished);
    assert.match(pgn, /^\[WhiteElo "1612"\]$/m);
    assert.match(pgn, /^\[BlackElo "1580"\]$/m);
    assert.match(pgn, /^\[TimeControl "300\+2"\]$/m);
    assert.match(pgn, /^\[Termination "checkmate"\]$/m);
  });

  it('follows each move with its clock comment and ends with the result', () => {
    const movetext = formatPgn(finished).split('\n\n')[1]!.replace(/\n/g, ' ');
    assert.equal(
      movetext,
      '1. f3 { [%clk 0:05:00] } 1... e5 { [%clk 0:05:00] } 2. g4 { [%clk 0:04:58] } 2... Qh4# { [%clk 0:04:56] } 0-1 ',
    );
  });

  it('writes plain movetext when no clocks are given', () => {
    const pgn = formatPgn({ ...finished, clocks: undefined });
    assert.equal(pgn.split('\n\n')[1], '1. f3 e5 2. g4 Qh4# 0-1\n');
  });

  it('marks an unfinished game with * and unknown values with ?', () => {
    const pgn = formatPgn({ white: 'a', black: 'b', result: '*', sanList: ['e4'] });
    assert.match(pgn, /^\[Event "\?"\]$/m);
    assert.match(pgn, /^\[Date "\?\?\?\?\.\?\?\.\?\?"\]$/m);
    assert.match(pgn, /^\[Result "\*"\]$/m);
    assert.ok(pgn.endsWith('1. e4 *\n'));
    assert.doesNotMatch(pgn, /WhiteElo|TimeControl|Termination/);
  });

  it('escapes quotes and backslashes in tag values', () => {
    const pgn = formatPgn({ ...finished, white: 'the "best" \\ player' });
    assert.match(pgn, /^\[White "the \\"best\\" \\\\ player"\]$/m);
  });

  it('keeps lines within 80 characters without splitting a clock comment', () => {
    const ref = new Chess();
    for (let i = 0; i < 20; i++) for (const san of ['Nf3', 'Nf6', 'Ng1', 'Ng8']) ref.move(san);
    const sanList = ref.history();
    const pgn = formatPgn({ ...finished, result: '1/2-1/2', sanList, clocks: sanList.map(() => 3_723_000) });
    for (const line of pgn.split('\n')) assert.ok(line.length <= 80, line);
    assert.match(pgn, /\{ \[%clk 1:02:03\] \}/);
  });

  it('produces PGN that chess.js reads back to the same moves', () => {
    const ref = new Chess();
    ref.loadPgn(formatPgn(finished));
    assert.deepEqual(ref.history(), finished.sanList);
    assert.equal(ref.getHeaders().TimeControl, '300+2');
  });
});

describe('formatClock', () => {
  it('writes hours, minutes and seconds', () => {
    assert.equal(formatClock(3_723_000), '1:02:03');
    assert.equal(formatClock(59_000), '0:00:59');
  });

  it('rounds to the nearest second and never goes below zero', () => {
    assert.equal(formatClock(59_600), '0:01:00');
    assert.equal(formatClock(-5), '0:00:00');
  });
});

describe('formatPgn evaluation comments', () => {
  it('writes [%eval] before [%clk] in one comment, and resumes Black after it', () => {
    const pgn = formatPgn({ ...finished, evals: ['0.31', '-0.20', null, '#-1'] });
    const movetext = pgn.split('\n\n')[1].replace(/\n/g, ' ');
    assert.equal(
      movetext,
      '1. f3 { [%eval 0.31] [%clk 0:05:00] } 1... e5 { [%eval -0.20] [%clk 0:05:00] } 2. g4 { [%clk 0:04:58] } ' +
        '2... Qh4# { [%eval #-1] [%clk 0:04:56] } 0-1 ',
    );
  });

  it('writes an eval alone when there are no clocks, and no comment where there is neither', () => {
    const pgn = formatPgn({ ...finished, clocks: undefined, evals: ['0.10', null] });
    assert.match(pgn, /\n\n1\. f3 \{ \[%eval 0\.10\] \} 1\.\.\. e5 2\. g4 Qh4# 0-1\n$/);
  });

  it('formats pawns with two decimals and forced mates as #n, negative when Black mates', () => {
    assert.deepEqual([formatEval(0.3, null), formatEval(-12.345, null), formatEval(100, 3), formatEval(-100, -2)], ['0.30', '-12.35', '#3', '#-2']);
  });
});

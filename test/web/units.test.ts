import assert from 'node:assert/strict';
import { formatClock, remainingMs, ServerTime, speakClock } from '../../src/web/play/clock.ts';
import { parseTypedMove } from '../../src/web/play/typedMove.ts';
import { categoryOf, formatTimeControl } from '../../src/web/timeControl.ts';

// The web app's pure parts (src/web), run here without a browser.
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const PROMOTION = 'rnbqk2r/pppp1pPp/5n2/8/8/8/PPPPPP1P/RNBQKBNR w KQkq - 1 5'; // g7 takes h8 or goes to g8

describe('web app: typed moves', () => {
  it('reads SAN, lenient SAN and UCI into the same move', () => {
    for (const typed of ['Nf3', 'nf3', 'Ng1f3', 'g1f3', 'g1-f3', ' Nf3+ ']) {
      const r = parseTypedMove(START, typed);
      assert.ok(r.ok, typed);
      assert.deepEqual([r.move, r.san], [{ from: 'g1', to: 'f3' }, 'Nf3'], typed);
    }
  });

  it('reads a pawn move on the b-file as a pawn move, and B as the bishop', () => {
    const fen = 'rnbqkbnr/pppp1ppp/8/4p3/2P5/8/PP1PPPPP/RNBQKBNR w KQkq - 0 2';
    assert.deepEqual(parseTypedMove(fen, 'b4').ok && parseTypedMove(fen, 'b4'), { ok: true, san: 'b4', move: { from: 'b2', to: 'b4' } });
    const opened = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';
    assert.equal(parseTypedMove(opened, 'bc4').ok && (parseTypedMove(opened, 'bc4') as { san: string }).san, 'Bc4');
  });

  it('takes castling written with zeros or letters', () => {
    const fen = 'rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4';
    for (const typed of ['O-O', '0-0', 'e1g1']) assert.equal((parseTypedMove(fen, typed) as { san: string }).san, 'O-O', typed);
  });

  it('needs the promotion piece in UCI and keeps the one named', () => {
    assert.deepEqual(parseTypedMove(PROMOTION, 'g7h8'), { ok: false, error: 'Say which piece to promote to, e.g. g7h8q.' });
    assert.deepEqual(parseTypedMove(PROMOTION, 'g7h8n'), { ok: true, san: 'gxh8=N', move: { from: 'g7', to: 'h8', promotion: 'n' } });
    assert.deepEqual(parseTypedMove(PROMOTION, 'gxh8=R'), { ok: true, san: 'gxh8=R+', move: { from: 'g7', to: 'h8', promotion: 'r' } });
  });

  it('says why anything else is no move', () => {
    for (const typed of ['Ke2', 'e2e5', 'e2e4q', 'Qh5', 'z9', '<script>']) {
      const r = parseTypedMove(START, typed);
      assert.equal(r.ok, false, typed);
    }
    assert.deepEqual(parseTypedMove(START, '  '), { ok: false, error: 'Type a move, e.g. e4, Nf3 or e7e8q.' });
  });
});

describe('web app: clocks', () => {
  it('counts down only the side to move, from when its turn began, never below zero', () => {
    const c = { whiteMs: 60_000, blackMs: 30_000, running: true, turn: 'white' as const, since: 1_000_000 };
    assert.equal(remainingMs(c, 'white', 1_012_500), 47_500);
    assert.equal(remainingMs(c, 'black', 1_012_500), 30_000);
    assert.equal(remainingMs(c, 'white', 2_000_000), 0);
    assert.equal(remainingMs({ ...c, running: false }, 'white', 1_012_500), 60_000);
  });

  it('estimates server time from the largest lower bound seen', () => {
    const t = new ServerTime();
    assert.equal(t.now(5_000), 5_000, 'no estimate yet: the local clock');
    t.observe(10_000, 7_000); // sent at server 10 000, arrived at local 7 000: the server is ≥ 3 000 ahead
    t.observe(12_000, 9_500); // a slower message: a looser bound, ignored
    assert.equal(t.now(20_000), 23_000);
    t.observe(0, 20_000); // "no turn" (turnStartedAt 0) says nothing
    assert.equal(t.now(20_000), 23_000);
  });

  it('shows minutes and seconds, tenths under ten seconds, hours when there are any', () => {
    assert.deepEqual(
      [3_600_000 + 65_000, 299_999, 60_000, 10_000, 9_950, 500, -20].map(formatClock),
      ['1:01:05', '4:59', '1:00', '0:10', '0:09.9', '0:00.5', '0:00.0'],
    );
    assert.equal(speakClock(61_000), '1 minute 1 second');
    assert.equal(speakClock(9_100), '10 seconds');
  });
});

describe('web app: time controls', () => {
  it("names the category the API requires: initial + 40 × increment under 180 / 480 / 1500 s", () => {
    assert.deepEqual(
      [[60, 0], [120, 1], [179, 0], [180, 0], [300, 3], [479, 0], [480, 0], [600, 0], [900, 10], [1499, 0], [1500, 0], [1800, 20]].map(([i, n]) => categoryOf(i, n)),
      ['bullet', 'bullet', 'bullet', 'blitz', 'blitz', 'blitz', 'rapid', 'rapid', 'rapid', 'rapid', 'classical', 'classical'],
    );
    assert.deepEqual([formatTimeControl(30, 0), formatTimeControl(300, 3), formatTimeControl(90, 1)], ['½+0', '5+3', '1.5+1']);
  });
});

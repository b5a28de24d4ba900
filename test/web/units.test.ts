import assert from 'node:assert/strict';
import { formatClock, remainingMs, ServerTime, speakClock } from '../../src/web/play/clock.ts';
import { describePly, plyForKey, replay as replayGame } from '../../src/web/play/history.ts';
import { applyChannel, describeEnd, fromDetail, rematchNews, type GameModel } from '../../src/web/play/model.ts';
import { legalIn } from '../../src/web/play/premove.ts';
import { parseTypedMove } from '../../src/web/play/typedMove.ts';
import { moveNumber, PuzzleRun, replay, themeLabel } from '../../src/web/puzzles/line.ts';
import { categoryOf, describeKind, formatTimeControl } from '../../src/web/timeControl.ts';
import { arenaTiming, describeArena, formatCountdown, onFire, relativeTime } from '../../src/web/tournaments/format.ts';

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

  it("shows a correspondence move's days and hours, and says them", () => {
    assert.deepEqual([3 * 86_400_000, 86_400_000 + 5 * 3_600_000 + 59_000, 86_399_000].map(formatClock), ['3d 00h', '1d 05h', '23:59:59']);
    assert.equal(speakClock(2 * 86_400_000 + 3_600_000 + 60_000), '2 days 1 hour');
    assert.equal(speakClock(3 * 3_600_000 + 5 * 60_000), '3 hours 5 minutes');
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

  it('says a game\'s kind, correspondence by its days per move (or without them where a view leaves them out)', () => {
    assert.equal(describeKind({ time_control: 'blitz', initial_time: 300, increment: 3, rated: true }), '5+3 rated blitz');
    assert.equal(describeKind({ time_control: 'correspondence', initial_time: 0, increment: 0, days_per_move: 3, rated: false }), '3 days/move casual correspondence');
    assert.equal(describeKind({ time_control: 'correspondence', initial_time: 0, increment: 0, days_per_move: 1 }), '1 day/move correspondence');
    assert.equal(describeKind({ time_control: 'correspondence', initial_time: 0, increment: 0, rated: true }), 'rated correspondence');
  });
});

describe('web app: a puzzle run', () => {
  // 002X3 of the bundled sample: White mates in two, 1. Qa8+ Qb8 2. Qxb8#.
  const FEN = '6k1/2q2p1p/4pPp1/4P3/p1pP1P2/r1P5/6QP/4B1K1 w - - 0 34';
  const sq = (uci: string) => ({ from: uci.slice(0, 2), to: uci.slice(2, 4), ...(uci[4] ? { promotion: uci[4] as 'q' } : {}) });

  it('names themes and move numbers as players read them', () => {
    assert.deepEqual(['mateIn2', 'backRankMate', 'oneMove', 'xRayAttack'].map(themeLabel), ['mate in 2', 'back rank mate', 'one move', 'x ray attack']);
    assert.deepEqual([0, 1, 2].map((i) => moveNumber(FEN, i)), ['34.', '34…', '35.']);
    assert.deepEqual([0, 1, 2].map((i) => moveNumber('8/8/8/8/8/8/8/k1K5 b - - 3 20', i)), ['20…', '21.', '21…']);
  });

  it("plays the solver's moves and the replies the API answers, each in its turn, and sends the solver's moves only", () => {
    const run = new PuzzleRun(FEN, 'white');
    assert.equal(run.solverToMove, true);
    assert.equal(run.answer('c7b8'), undefined, 'no reply before the solver has moved');
    assert.equal(run.play(sq('g2g8')), undefined, 'an illegal move');
    assert.ok(run.play(sq('g2a8')));
    assert.equal(run.solverToMove, false);
    assert.equal(run.play(sq('a8b8')), undefined, 'not the solver’s turn');
    assert.equal(run.answer('c7c6'), undefined, 'a reply that cannot be played');
    assert.ok(run.answer('c7b8'));
    run.play(sq('a8b8'));
    assert.deepEqual(run.solverMoves(), ['g2a8', 'a8b8']);
    assert.deepEqual(run.plies.map((p) => [p.san, p.solver]), [['Qa8+', true], ['Qb8', false], ['Qxb8#', true]]);
  });

  it("takes back the solver's last move only (one the API refused)", () => {
    const run = new PuzzleRun(FEN, 'white');
    run.play(sq('g2a8'));
    run.answer('c7b8');
    run.takeBack();
    assert.equal(run.plies.length, 2, 'a reply is not the solver’s to take back');
    run.play(sq('a8b8'));
    run.takeBack();
    assert.deepEqual(run.solverMoves(), ['g2a8']);
  });

  it('sends a promotion with its piece', () => {
    const run = new PuzzleRun('8/P7/8/8/7k/2K5/8/8 w - - 0 1', 'white');
    assert.equal(run.play(sq('a7a8n'))?.san, 'a8=N');
    assert.deepEqual(run.solverMoves(), ['a7a8n']);
  });

  it('replays a solution with promotions, and stops at a move it cannot play', () => {
    const plies = replay('8/P7/8/8/7k/2K5/8/8 w - - 0 1', ['a7a8q', 'h4h5', 'zz'], 'white');
    assert.deepEqual(plies.map((p) => [p.san, p.solver]), [['a8=Q', true], ['Kh5', false]]);
  });
});

describe('web app: arenas', () => {
  it('counts down in whole seconds and says how far a time is', () => {
    assert.deepEqual([0, 999, 9_000, 61_000, 3_723_000, -5].map(formatCountdown), ['0:00', '0:01', '0:09', '1:01', '1:02:03', '0:00']);
    assert.deepEqual([20_000, 12 * 60_000, 125 * 60_000, 3 * 86_400_000, -4 * 60_000].map(relativeTime), ['in less than a minute', 'in 12 min', 'in 2 h 5 min', 'in 3 days', '4 min ago']);
  });

  it("tells where an arena is in its life, and who is on fire", () => {
    const t = { starts_at: '2026-01-01T18:00:00Z', ends_at: '2026-01-01T19:00:00Z' };
    const at = (iso: string) => Date.parse(iso);
    assert.equal(arenaTiming({ ...t, status: 'upcoming' }, at('2026-01-01T17:57:30Z')), 'Starts in 2:30');
    assert.equal(arenaTiming({ ...t, status: 'upcoming' }, at('2026-01-01T18:00:01Z')), 'Starting…');
    assert.equal(arenaTiming({ ...t, status: 'running' }, at('2026-01-01T18:48:00Z')), 'Ends in 12:00');
    assert.equal(arenaTiming({ ...t, status: 'running' }, at('2026-01-01T19:00:02Z')), 'Time is up: the last games are being played');
    assert.equal(arenaTiming({ ...t, status: 'finished' }, at('2026-01-01T19:10:00Z')), 'Finished');
    assert.deepEqual([0, 1, 2, 5].map((streak) => onFire({ streak })), [false, false, true, true]);
    assert.equal(describeArena({ initial_time: 180, increment: 2, rated: true, time_control: 'blitz' }), '3+2 rated blitz');
  });
});

describe('web app: stepping through a game, premoves', () => {
  it('replays a game into its positions, the start first, each with the move that led to it', () => {
    const positions = replayGame(['e4', 'e5', 'Nf3']);
    assert.equal(positions.length, 4);
    assert.equal(positions[0].fen, START);
    assert.equal(positions[0].lastMove, undefined);
    assert.deepEqual(positions[3].lastMove, { from: 'g1', to: 'f3' });
    assert.equal(positions[3].fen, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2');
    // A move that does not replay ends the list there (the page shows what it can).
    assert.equal(replayGame(['e4', 'Ke7x']).length, 2);
  });

  it('names the position after a ply the way a score sheet does', () => {
    const sans = ['e4', 'e5', 'Nf3'];
    assert.deepEqual([0, 1, 2, 3].map((p) => describePly(sans, p)), ['the start', '1. e4', '1… e5', '2. Nf3']);
  });

  it('steps with the arrow keys, Home and End, and ignores other keys', () => {
    assert.deepEqual(['ArrowLeft', 'ArrowRight', 'Home', 'End', 'a'].map((k) => plyForKey(k, 5)), [4, 6, 0, undefined, null]);
  });

  it('plays a queued premove only when it is legal in the position its turn comes in', () => {
    const afterE4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
    assert.equal(legalIn(afterE4, { from: 'e7', to: 'e5' }), true);
    // White's e4 pawn now blocks e7-e5-e4 lines: a premove to a square the move made taken is dropped.
    assert.equal(legalIn(afterE4, { from: 'e7', to: 'e4' }), false);
    assert.equal(legalIn(START, { from: 'e7', to: 'e5' }), false, 'not Black’s turn');
  });
});

describe("web app: a game's takebacks, claims and rematch from the channel", () => {
  const player = (id: string) => ({ id, username: id, rating: 1500, avatar_url: '' });
  const game = (over: Partial<Parameters<typeof fromDetail>[0]> = {}): GameModel =>
    fromDetail({
      id: 'g', white_player: player('w'), black_player: player('b'), status: 'active', time_control: 'rapid', initial_time: 600, increment: 0,
      current_turn: 'black', move_count: 3, fen: 'x', white_time_remaining: 500, black_time_remaining: 400, result: null, winner: null,
      termination: null, rated: true, pgn: '', abort_reason: null, rating_changes: null, draw_offer: null, expires_at: null,
      moves: [{ number: 1, white: 'e4', black: 'e5', white_time: 0, black_time: 0 }, { number: 2, white: 'Nf3', black: null, white_time: 0, black_time: null }],
      ...over,
    } as Parameters<typeof fromDetail>[0], 1000);

  it('drops the moves a takeback undid, with the board, the turn, the last move and the clocks it names', () => {
    const after = applyChannel(game(), {
      type: 'takeback', takeback_id: 't', plies: 1, move_count: 2, current_turn: 'white', ts: 2000, times: { white: 490, black: 400 },
      fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2',
    });
    assert.deepEqual(after.sans, ['e4', 'e5']);
    assert.equal(after.turn, 'white');
    assert.deepEqual(after.lastMove, { from: 'e7', to: 'e5' });
    assert.deepEqual([after.clock.whiteMs, after.clock.since, after.clock.turn], [490_000, 2000, 'white']);
    const moved = applyChannel(after, { type: 'move', move: { from: 'b1', to: 'c3', san: 'Nc3', ply: 3, fen: 'y', current_turn: 'black' } });
    assert.deepEqual(moved.sans, ['e4', 'e5', 'Nc3'], 'the next move takes the freed ply');
  });

  it('keeps a pending takeback proposal and forgets it once declined', () => {
    const offered = applyChannel(game(), { type: 'takeback_offer', takeback: { id: 't', offered_by: 'w', plies: 1, status: 'pending' } });
    assert.deepEqual(offered.takebackOffer, { id: 't', offeredBy: 'w', plies: 1 });
    assert.equal(applyChannel(offered, { type: 'takeback_offer', takeback: { id: 't', offered_by: 'w', plies: 1, status: 'declined' } }).takebackOffer, undefined);
  });

  it('counts a gone player until they are back, and shows a rematch asked for', () => {
    const gone = applyChannel(game(), { type: 'opponent_gone', color: 'black', claimable_at: '2026-01-01T00:00:30.000Z' });
    assert.deepEqual(gone.claimableAt, { white: 0, black: Date.parse('2026-01-01T00:00:30.000Z') });
    assert.deepEqual(applyChannel(gone, { type: 'opponent_back', color: 'black' }).claimableAt, { white: 0, black: 0 });
    const finished = game({ status: 'finished', rematch: null });
    assert.deepEqual(applyChannel(finished, { type: 'rematch_offer', game_id: 'r', offered_by: 'b' }).rematch, { game_id: 'r', offered_by: 'b', status: 'pending' });
  });

  it("reads the user's channel for this game's rematch: the opponent's ask, its start, its answer; others' news is not its", () => {
    const asked = rematchNews({ type: 'rematch_offer', game_id: 'r', rematch_of: 'g', from: { id: 'b', username: 'b' } }, 'g', null);
    assert.deepEqual(asked, { rematch: { game_id: 'r', offered_by: 'b', status: 'pending' } });
    assert.equal(rematchNews({ type: 'rematch_offer', game_id: 'x', rematch_of: 'other', from: { id: 'b' } }, 'g', null), undefined);
    const mine = { game_id: 'r', offered_by: 'w', status: 'pending' } as const;
    assert.deepEqual(rematchNews({ type: 'game_started', game_id: 'r' }, 'g', mine), { start: 'r' });
    assert.deepEqual(rematchNews({ type: 'challenge_declined', game_id: 'r', by: {} }, 'g', mine), { rematch: { ...mine, status: 'declined' } });
    assert.deepEqual(rematchNews({ type: 'challenge_expired', game_id: 'r' }, 'g', mine), { rematch: { ...mine, status: 'expired' } });
    assert.equal(rematchNews({ type: 'challenge_declined', game_id: 'another' }, 'g', mine), undefined);
    assert.equal(rematchNews({ type: 'game_started', game_id: 'r' }, 'g', null), undefined, 'no rematch known: not ours');
  });

  it("says a player's abort without a reason, and other aborts with theirs", () => {
    assert.equal(describeEnd(game({ status: 'abandoned', abort_reason: 'aborted' })), 'Game aborted');
    assert.equal(describeEnd(game({ status: 'abandoned', abort_reason: 'no_first_move' })), 'Game aborted: no first move');
  });

  it('stops the running clock where it stood at the end: a flag shows 0, a claim the time the absent player had', () => {
    // Black to move with 400 s at ts 1000 (move_count 3: the clock runs).
    const end = (winner: 'white' | 'black' | null, at: number) => applyChannel(game(), {
      type: 'game_end', status: 'finished', abort_reason: null, ts: at,
      result: { result: winner === 'white' ? '1-0' : '1/2-1/2', winner, termination: 'timeout', rating_changes: { white: 5, black: -5 } },
    });
    const flagged = end('white', 1000 + 400_000);
    assert.deepEqual([flagged.clock.whiteMs, flagged.clock.blackMs, flagged.clock.running], [500_000, 0, false]);
    assert.equal(describeEnd(flagged), 'White wins by time');
    const claimed = end('white', 1000 + 60_000);
    assert.deepEqual([claimed.clock.whiteMs, claimed.clock.blackMs], [500_000, 340_000], 'stopped at the claim, not reset to the last stamp');
    assert.equal(describeEnd(claimed), 'White wins: Black left the game');
    assert.equal(describeEnd(end(null, 1000 + 60_000)), 'Draw: claimed after a player left the game');
    // A game read after its end: the detail's clocks say which it was.
    assert.equal(describeEnd(game({ status: 'finished', winner: 'white', result: '1-0', termination: 'timeout', black_time_remaining: 0 })), 'White wins by time');
    assert.equal(describeEnd(game({ status: 'finished', winner: 'white', result: '1-0', termination: 'timeout', black_time_remaining: 340 })), 'White wins: Black left the game');
  });
});

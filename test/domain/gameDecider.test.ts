import assert from 'node:assert/strict';
import { ChessClock } from '../../src/domain/clock.ts';
import { ChessGame } from '../../src/domain/game.ts';
import { claimableSince, decide, DEFAULT_CLAIM_MS, evolve, nextDeadlines, notePresence, publicEvent, type Command, type LiveGameState } from '../../src/domain/gameDecider.ts';

const WHITE = 'w0000000-0000-0000-0000-000000000001';
const BLACK = 'b0000000-0000-0000-0000-000000000002';
const T0 = 1_000_000;
const RULES = { firstMoveMs: 30_000, drawOfferTtlMs: 60_000 };

function newState(o: { initialMs?: number; incrementMs?: number; moves?: string[] } = {}): LiveGameState {
  const game = new ChessGame({ moves: o.moves ?? [] });
  const clock = ChessClock.restore(
    { ...new ChessClock({ initialMs: o.initialMs ?? 300_000, incrementMs: o.incrementMs ?? 0 }).snapshot(), plies: game.moveCount },
    T0,
  );
  return {
    id: 'game-1',
    white: { id: WHITE, username: 'white', rating: 1500 },
    black: { id: BLACK, username: 'black', rating: 1500 },
    rules: RULES,
    game,
    clock,
    status: 'active',
    ending: null,
    abortReason: null,
    ratingChanges: { white: 0, black: 0 },
    firstMoveDeadline: game.moveCount < 2 ? T0 + RULES.firstMoveMs : null,
    offers: [],
    eventSeq: 0,
  };
}

/** Decides and, as the shell does once the write is durable, evolves every event. */
function run(s: LiveGameState, c: Command, now = T0) {
  const decision = decide(s, c, now);
  for (const e of decision.events) evolve(s, e);
  return { decision, reply: decision.reply(s) as any };
}

const move = (userId: string, m: string, extra: object = {}): Command => ({
  type: 'move', userId, from: m.slice(0, 2), to: m.slice(2, 4), promotion: m[4] ?? null, ...extra,
});

function playLine(s: LiveGameState, ucis: string[], now = T0) {
  for (const [i, m] of ucis.entries()) {
    const { reply } = run(s, move(s.game.turn === 'white' ? WHITE : BLACK, m), now + i);
    assert.equal(reply.ok, true, `${m}: ${JSON.stringify(reply)}`);
  }
}

describe('the live game decider (pure rules, no timers, no database)', () => {
  describe('moves', () => {
    it('decides a legal move without changing the state, then evolves it', () => {
      const s = newState();
      const decision = decide(s, move(WHITE, 'e2e4'), T0 + 5);
      assert.deepEqual([s.game.moveCount, s.game.turn, s.eventSeq], [0, 'white', 0]);
      assert.equal(decision.write?.kind, 'move');
      const write = decision.write as Extract<typeof decision.write, { kind: 'move' }>;
      assert.deepEqual(
        [write.move.ply, write.move.san, write.move.uci, write.move.pgn, write.move.eventSeq, write.move.firstMoveDeadline?.getTime()],
        [1, 'e4', 'e2e4', '1. e4', 1, T0 + 5 + RULES.firstMoveMs],
      );
      assert.deepEqual(decision.events.map((e) => e.type), ['moved']);
      for (const e of decision.events) evolve(s, e);
      assert.deepEqual([s.game.moveCount, s.game.turn, s.eventSeq], [1, 'black', 1]);
      const reply = decision.reply(s) as any;
      assert.equal(reply.value.move.san, 'e4');
      assert.equal(reply.value.game.current_turn, 'black');
    });

    it('refuses, in the documented order, a non-player, a finished game, the wrong turn and an illegal move', () => {
      const s = newState();
      assert.equal(run(s, move('someone-else', 'e2e4')).reply.error.code, 'NOT_A_PLAYER');
      assert.equal(run(s, move(BLACK, 'e7e5')).reply.error.code, 'NOT_YOUR_TURN');
      assert.equal(run(s, move(WHITE, 'e2e5')).reply.error.code, 'INVALID_MOVE');
      assert.equal(run(s, move(WHITE, 'e2e3q')).reply.error.code, 'INVALID_MOVE');
      run(s, { type: 'resign', userId: BLACK });
      assert.equal(run(s, move(WHITE, 'e2e4')).reply.error.code, 'GAME_NOT_ACTIVE');
    });

    it('writes nothing for a refused command', () => {
      const s = newState();
      const d = decide(s, move(BLACK, 'e7e5'), T0);
      assert.deepEqual([d.write, d.events], [null, []]);
    });

    it('ends the game with the mating move, written in the finishing transaction', () => {
      const s = newState();
      playLine(s, ['f2f3', 'e7e5', 'g2g4']);
      const { decision, reply } = run(s, move(BLACK, 'd8h4'), T0 + 10);
      assert.equal(decision.write?.kind, 'finish');
      const write = decision.write as Extract<typeof decision.write, { kind: 'finish' }>;
      assert.equal(write.finalMove?.san, 'Qh4#');
      assert.equal(write.eventSeq, 5);
      assert.deepEqual(decision.events.map((e) => e.type), ['moved', 'ended']);
      assert.deepEqual([s.status, s.ending?.termination, s.ending?.winner], ['finished', 'checkmate', 'black']);
      assert.equal(reply.value.game.in_checkmate, true);
      assert.equal(reply.value.game.status, 'finished');
    });

    it("lapses the opponent's pending draw offer when its recipient moves, as one more event", () => {
      const s = newState();
      playLine(s, ['e2e4']);
      run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-1' });
      const { decision } = run(s, move(BLACK, 'e7e5'));
      assert.deepEqual(decision.events.map((e) => e.type), ['offer_closed', 'moved']);
      assert.equal((decision.write as any).move.eventSeq, s.eventSeq);
      assert.equal(s.offers[0].status, 'expired');
    });

    it("keeps the offer when the offerer moves", () => {
      const s = newState();
      run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-1' });
      run(s, move(WHITE, 'e2e4'));
      assert.equal(s.offers[0].status, 'pending');
    });
  });

  describe('draw offers', () => {
    it('opens an offer with the id it was given and its expiry', () => {
      const s = newState();
      const { decision, reply } = run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-1' }, T0 + 7);
      assert.deepEqual(decision.write, {
        kind: 'open_offer', offerId: 'offer-1', offeredBy: WHITE, ply: 0, expiresAt: new Date(T0 + 7 + RULES.drawOfferTtlMs), eventSeq: 1,
      });
      assert.equal(reply.value.draw_offer.status, 'pending');
    });

    it('refuses a second offer while one is pending, and accepts when the opponent offers back', () => {
      const s = newState();
      run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-1' });
      assert.equal(run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-2' }).reply.error.code, 'DRAW_OFFER_PENDING');
      const { decision, reply } = run(s, { type: 'offer_draw', userId: BLACK, offerId: 'offer-3' });
      assert.equal((decision.write as any).acceptedOfferId, 'offer-1');
      assert.deepEqual([reply.value.draw_offer.status, reply.value.termination, s.status], ['accepted', 'agreement', 'finished']);
      assert.equal(s.offers[0].status, 'accepted');
    });

    it('refuses an offer within 20 plies of the same player\'s previous one', () => {
      const s = newState();
      run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-1' });
      run(s, { type: 'answer_draw', userId: BLACK, offerId: 'offer-1', accept: false });
      playLine(s, ['g1f3', 'g8f6', 'f3g1', 'f6g8']);
      assert.equal(run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-2' }).reply.error.code, 'DRAW_OFFER_LIMIT');
      assert.equal(run(s, { type: 'offer_draw', userId: BLACK, offerId: 'offer-3' }).reply.ok, true);
    });

    it('judges answers from the offers it knows: unknown, own, no longer pending', () => {
      const s = newState();
      run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-1' });
      assert.equal(run(s, { type: 'answer_draw', userId: BLACK, offerId: 'nope', accept: true }).reply.error.code, 'DRAW_OFFER_NOT_FOUND');
      assert.equal(run(s, { type: 'answer_draw', userId: WHITE, offerId: 'offer-1', accept: true }).reply.error.code, 'FORBIDDEN');
      const declined = run(s, { type: 'answer_draw', userId: BLACK, offerId: 'offer-1', accept: false }).reply;
      assert.deepEqual([declined.value.draw_offer.status, declined.value.status], ['declined', 'active']);
      assert.equal(run(s, { type: 'answer_draw', userId: BLACK, offerId: 'offer-1', accept: true }).reply.error.code, 'DRAW_OFFER_NOT_PENDING');
    });

    it('lapses an offer at its expiry and not a millisecond before', () => {
      const s = newState();
      run(s, { type: 'offer_draw', userId: WHITE, offerId: 'offer-1' });
      const expiresAt = T0 + RULES.drawOfferTtlMs;
      assert.equal(decide(s, { type: 'expire_offer', offerId: 'offer-1' }, expiresAt - 1).write, null);
      const { decision } = run(s, { type: 'expire_offer', offerId: 'offer-1' }, expiresAt);
      assert.deepEqual(decision.write, { kind: 'close_offer', offerId: 'offer-1', status: 'expired', eventSeq: 2 });
      assert.equal(publicEvent(s, decision.events[0]).type, 'draw_offer');
    });
  });

  describe('time', () => {
    it('ends the game on time when the flag has fallen, the flagged clock at zero', () => {
      const s = newState({ initialMs: 1000 });
      playLine(s, ['e2e4', 'e7e5'], T0);
      const flagAt = s.clock.flagAt()!;
      assert.equal(decide(s, { type: 'check_clock' }, flagAt - 1).write, null);
      const { decision } = run(s, { type: 'check_clock' }, flagAt);
      const write = decision.write as Extract<typeof decision.write, { kind: 'finish' }>;
      assert.deepEqual([write.ending?.termination, write.ending?.winner, write.whiteMs], ['timeout', 'black', 0]);
      assert.equal(s.status, 'finished');
    });

    it('refuses a move that arrives after the flag, ending the game by timeout first', () => {
      const s = newState({ initialMs: 1000 });
      playLine(s, ['e2e4', 'e7e5'], T0);
      const { decision, reply } = run(s, move(WHITE, 'g1f3'), s.clock.flagAt()! + 50);
      assert.equal(decision.write?.kind, 'finish');
      assert.equal(reply.error.code, 'GAME_NOT_ACTIVE');
      assert.equal(s.ending?.termination, 'timeout');
    });

    it('draws on time when the side that did not flag has only a king', () => {
      const s = newState({ initialMs: 1000, moves: ['e2e3', 'b7b5', 'f1b5', 'b8a6', 'b5a6', 'h7h5', 'a6c8', 'a7a6', 'c8d7', 'e8d7', 'd1h5', 'g8h6', 'h5h6', 'h8h7', 'h6h7', 'f7f5', 'h7f5', 'e7e6', 'f5f8', 'd8f6', 'f8f6', 'g7g5', 'f6g5', 'e6e5', 'g5e5', 'a6a5', 'e5c7', 'd7e8', 'c7a5', 'a8d8', 'a5d8'] });
      // Black, a bare king, runs out of time against White's army: a win; the reverse is a draw.
      run(s, { type: 'check_clock' }, s.clock.flagAt()!);
      assert.deepEqual([s.ending?.result, s.ending?.winner], ['1-0', 'white']);
    });

    it("aborts the game when a first move is not made by its deadline", () => {
      const s = newState();
      assert.equal(decide(s, { type: 'check_clock' }, T0 + RULES.firstMoveMs - 1).write, null);
      const { decision } = run(s, { type: 'check_clock' }, T0 + RULES.firstMoveMs);
      assert.deepEqual(decision.write, {
        kind: 'finish', finalMove: undefined, ending: null, abortReason: 'no_first_move', acceptedOfferId: undefined,
        whiteMs: 300_000, blackMs: 300_000, eventSeq: 1,
      });
      assert.deepEqual([s.status, s.abortReason], ['abandoned', 'no_first_move']);
      const end = publicEvent(s, decision.events[0]);
      assert.deepEqual(end, { type: 'game_end', status: 'abandoned', abort_reason: 'no_first_move', result: { result: null, winner: null, termination: null, rating_changes: { white: 0, black: 0 } } });
    });

    it("gives Black its own first-move deadline after White's first move", () => {
      const s = newState();
      run(s, move(WHITE, 'e2e4'), T0 + 1000);
      assert.equal(s.firstMoveDeadline, T0 + 1000 + RULES.firstMoveMs);
      assert.equal(nextDeadlines(s).clock, T0 + 1000 + RULES.firstMoveMs);
      run(s, move(BLACK, 'e7e5'), T0 + 2000);
      assert.equal(s.firstMoveDeadline, null);
      assert.equal(nextDeadlines(s).clock, s.clock.flagAt());
    });

    it('looks at nothing once the game is over', () => {
      const s = newState();
      run(s, { type: 'resign', userId: WHITE });
      assert.deepEqual(nextDeadlines(s), { clock: null, offer: null });
      assert.deepEqual([s.ending?.termination, s.ending?.winner], ['resignation', 'black']);
    });
  });

  describe('time a command waits inside the service (receivedAt)', () => {
    /** A 10+0 game with both first moves made: White's clock runs from T0 + 1. */
    function running() {
      const s = newState({ initialMs: 10_000 });
      playLine(s, ['e2e4', 'e7e5'], T0);
      return { s, turnStart: s.clock.turnStart! };
    }

    it('charges the mover up to when the move reached the service, not until it is decided', () => {
      const { s, turnStart } = running();
      const { reply } = run(s, move(WHITE, 'g1f3', { receivedAt: turnStart + 700 }), turnStart + 2700);
      assert.equal(reply.value.game.white_time_remaining, 9.3);
      assert.equal(s.clock.remaining('white', turnStart + 2700), 9300);
    });

    it("starts the opponent's turn when the move is made, so the wait is charged to neither player", () => {
      const { s, turnStart } = running();
      const { decision } = run(s, move(WHITE, 'g1f3', { receivedAt: turnStart + 700 }), turnStart + 2700);
      assert.equal(s.clock.turnStart, turnStart + 2700);
      assert.equal(s.clock.flagAt(), turnStart + 2700 + 10_000);
      const write = decision.write as Extract<typeof decision.write, { kind: 'move' }>;
      assert.deepEqual([write.move.playedAt.getTime(), write.move.clockRunning, write.move.whiteMs, write.move.blackMs], [turnStart + 2700, true, 9300, 10_000]);
      const moved = decision.events.find((e) => e.type === 'moved')!;
      assert.equal(moved.at, turnStart + 2700);
      assert.deepEqual((publicEvent(s, moved) as any).times, { white: 9.3, black: 10 });
    });

    it('accepts a move that reached the service before the flag, though decided after it', () => {
      const { s } = running();
      const flagAt = s.clock.flagAt()!;
      const { decision, reply } = run(s, move(WHITE, 'g1f3', { receivedAt: flagAt - 1 }), flagAt + 2000);
      assert.equal(reply.ok, true, JSON.stringify(reply));
      assert.equal(decision.write?.kind, 'move');
      assert.deepEqual([s.status, s.clock.remaining('white', flagAt + 2000)], ['active', 1]);
    });

    it('still refuses a move that reached the service at the flag instant', () => {
      const { s } = running();
      const flagAt = s.clock.flagAt()!;
      const { reply } = run(s, move(WHITE, 'g1f3', { receivedAt: flagAt }), flagAt + 2000);
      assert.equal(reply.error.code, 'GAME_NOT_ACTIVE');
      assert.equal(s.ending?.termination, 'timeout');
    });

    it('accepts a first move that reached the service before its deadline, though decided after it', () => {
      const s = newState();
      const deadline = s.firstMoveDeadline!;
      const { reply } = run(s, move(WHITE, 'e2e4', { receivedAt: deadline - 1 }), deadline + 500);
      assert.equal(reply.ok, true, JSON.stringify(reply));
      // Black's deadline counts from when the move was made: Black could not see it before.
      assert.equal(s.firstMoveDeadline, deadline + 500 + RULES.firstMoveMs);
    });

    it('books a resignation that waited at its arrival: a resignation, not a timeout', () => {
      const { s } = running();
      const flagAt = s.clock.flagAt()!;
      const { decision } = run(s, { type: 'resign', userId: WHITE, receivedAt: flagAt - 400 }, flagAt + 1000);
      assert.deepEqual([s.ending?.termination, (decision.write as any).whiteMs], ['resignation', 400]);
    });

    it('never times a command before the turn it acts on began, nor after now', () => {
      const { s, turnStart } = running();
      // Overtaken on its way in (or waiting while no node hosted the game): nothing charged.
      run(s, move(WHITE, 'g1f3', { receivedAt: turnStart - 5000 }), turnStart + 300);
      assert.equal(s.clock.remaining('white', turnStart + 300), 10_000);
      // Stamped by a node whose clock runs ahead of this one's: charged up to now only.
      const blackStart = s.clock.turnStart!;
      run(s, move(BLACK, 'b8c6', { receivedAt: blackStart + 60_000 }), blackStart + 300);
      assert.equal(s.clock.remaining('black', blackStart + 300), 9700);
    });
  });

  describe('abort and claim (DESIGN 2.11)', () => {
    it('aborts before both sides have moved: abandoned, abort_reason aborted, no ending', () => {
      const s = newState({ moves: ['e2e4'] });
      const { decision, reply } = run(s, { type: 'abort', userId: BLACK }, T0 + 10);
      assert.equal(decision.write?.kind, 'finish');
      assert.equal((decision.write as { abortReason?: string }).abortReason, 'aborted');
      assert.deepEqual([s.status, s.abortReason, s.ending], ['abandoned', 'aborted', null]);
      assert.equal(reply.value.status, 'abandoned');
    });

    it('refuses an abort once both sides have moved, writing nothing', () => {
      const s = newState({ moves: ['e2e4', 'e7e5'] });
      const { decision, reply } = run(s, { type: 'abort', userId: WHITE });
      assert.equal(reply.error.code, 'GAME_NOT_ABORTABLE');
      assert.equal(decision.write, null);
    });

    it('starts the claim count when a player who had joined has no client left, and stops it when they return', () => {
      const s = newState({ moves: ['e2e4', 'e7e5'] });
      assert.equal(notePresence(s, 'white', false, T0), null, 'never joined: nothing to count');
      assert.equal(notePresence(s, 'white', true, T0 + 1), null);
      assert.deepEqual(notePresence(s, 'white', false, T0 + 2), {
        type: 'opponent_gone', color: 'white', claimable_at: new Date(T0 + 2 + DEFAULT_CLAIM_MS).toISOString(),
      });
      assert.equal(notePresence(s, 'white', false, T0 + 3), null, 'already counting');
      assert.equal(claimableSince(s, 'white'), T0 + 2 + DEFAULT_CLAIM_MS);
      assert.deepEqual(notePresence(s, 'white', true, T0 + 4), { type: 'opponent_back', color: 'white' });
      assert.equal(claimableSince(s, 'white'), null);
    });

    it('lets the opponent claim only from claimable_at: a win or a draw on time', () => {
      const s = newState({ moves: ['e2e4', 'e7e5'] });
      notePresence(s, 'white', true, T0);
      notePresence(s, 'white', false, T0);
      const early = run(s, { type: 'claim', userId: BLACK, result: 'win' }, T0 + DEFAULT_CLAIM_MS - 1);
      assert.equal(early.reply.error.code, 'CLAIM_NOT_ALLOWED');
      assert.equal(run(s, { type: 'claim', userId: WHITE, result: 'win' }, T0 + DEFAULT_CLAIM_MS).reply.error.code, 'CLAIM_NOT_ALLOWED',
        'Black is here: White has nothing to claim');
      const { reply } = run(s, { type: 'claim', userId: BLACK, result: 'draw' }, T0 + DEFAULT_CLAIM_MS);
      assert.deepEqual([reply.value.status, reply.value.result, reply.value.termination], ['finished', '1/2-1/2', 'timeout']);
    });

    it('records who has joined in the move written, so a takeover knows it', () => {
      const s = newState();
      notePresence(s, 'black', true, T0);
      const { decision } = run(s, move(WHITE, 'e2e4'));
      assert.deepEqual((decision.write as { move: { roomState: { joined?: string[] } } }).move.roomState.joined, ['black']);
      assert.equal('joined' in (decide(newState(), move(WHITE, 'e2e4'), T0).write as { move: { roomState: object } }).move.roomState, false);
    });
  });
});

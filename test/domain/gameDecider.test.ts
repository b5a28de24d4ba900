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
    takebacks: [],
    arena: false,
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

    it('says on the public move event that the move ends the game: mate and stalemate, not an ordinary move', () => {
      const mate = newState();
      playLine(mate, ['f2f3', 'e7e5']);
      const ordinary = run(mate, move(WHITE, 'g2g4')).decision.events[0];
      assert.equal((publicEvent(mate, ordinary) as any).ends_game, undefined);
      const mating = run(mate, move(BLACK, 'd8h4')).decision.events[0];
      assert.equal((publicEvent(mate, mating) as any).ends_game, true);
      // Sam Loyd's ten-move stalemate.
      const stale = newState();
      playLine(stale, ['e2e3', 'a7a5', 'd1h5', 'a8a6', 'h5a5', 'h7h5', 'h2h4', 'a6h6', 'a5c7', 'f7f6', 'c7d7', 'e8f7', 'd7b7', 'd8d3', 'b7b8', 'd3h7', 'b8c8', 'f7g6']);
      const stalemating = run(stale, move(WHITE, 'c8e6')).decision.events[0];
      assert.equal((publicEvent(stale, stalemating) as any).ends_game, true);
      assert.equal(stale.ending?.termination, 'stalemate');
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
      assert.deepEqual(nextDeadlines(s), { clock: null, offer: null, takeback: null });
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

    it('leaves both clocks as they were when a win is claimed: nobody\'s flag fell', () => {
      const s = newState({ moves: ['e2e4', 'e7e5'] });
      notePresence(s, 'white', true, T0);
      notePresence(s, 'white', false, T0);
      const at = T0 + DEFAULT_CLAIM_MS;
      const before = { white: s.clock.remaining('white', at), black: s.clock.remaining('black', at) };
      const { decision, reply } = run(s, { type: 'claim', userId: BLACK, result: 'win' }, at);
      assert.deepEqual([reply.value.winner, reply.value.termination], ['black', 'timeout']);
      const write = decision.write as { whiteMs: number; blackMs: number };
      assert.ok(before.white > 0, 'White, to move, had time left');
      assert.deepEqual({ white: write.whiteMs, black: write.blackMs }, before);
    });

    it('records who has joined in the move written, so a takeover knows it', () => {
      const s = newState();
      notePresence(s, 'black', true, T0);
      const { decision } = run(s, move(WHITE, 'e2e4'));
      assert.deepEqual((decision.write as { move: { roomState: { joined?: string[] } } }).move.roomState.joined, ['black']);
      assert.equal('joined' in (decide(newState(), move(WHITE, 'e2e4'), T0).write as { move: { roomState: object } }).move.roomState, false);
    });
  });

  describe('takebacks', () => {
    const propose = (userId: string, id = 'tb-1'): Command => ({ type: 'offer_takeback', userId, takebackId: id });
    const answer = (userId: string, accept: boolean, id = 'tb-1'): Command => ({ type: 'answer_takeback', userId, takebackId: id, accept });

    /** A game after `ucis`, each move one second after the one before. */
    function played(ucis: string[], o: { initialMs?: number; arena?: boolean } = {}) {
      const s = newState({ initialMs: o.initialMs ?? 60_000 });
      if (o.arena) (s as { arena: boolean }).arena = true;
      for (const [i, m] of ucis.entries()) {
        const { reply } = run(s, move(s.game.turn === 'white' ? WHITE : BLACK, m), T0 + 1000 * (i + 1));
        assert.equal(reply.ok, true, `${m}: ${JSON.stringify(reply)}`);
      }
      return s;
    }
    const now = (s: LiveGameState) => T0 + 1000 * (s.game.moveCount + 1);

    it("proposes the proposer's last move on the opponent's turn (1 ply), their move and the reply on their own (2)", () => {
      const s = played(['e2e4', 'e7e5', 'g1f3']);
      const { decision, reply } = run(s, propose(WHITE), now(s));
      assert.deepEqual(reply.value, {
        takeback: { id: 'tb-1', offered_by: WHITE, plies: 1, status: 'pending', expires_at: new Date(now(s) + RULES.drawOfferTtlMs).toISOString() },
      });
      assert.deepEqual(decision.write, {
        kind: 'open_takeback', takebackId: 'tb-1', offeredBy: WHITE, ply: 3, plies: 1, expiresAt: new Date(now(s) + RULES.drawOfferTtlMs), eventSeq: 4,
      });
      assert.deepEqual(publicEvent(s, decision.events[0]!), { type: 'takeback_offer', takeback: reply.value.takeback });
      assert.deepEqual(nextDeadlines(s).takeback?.id, 'tb-1');

      const t = played(['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4']);
      assert.equal(run(t, propose(BLACK), now(t)).reply.value.takeback.plies, 2);
    });

    it('refuses a takeback that would undo a first move, in an arena game, while one is pending, and past three a player', () => {
      assert.equal(run(newState(), propose(WHITE)).reply.error.code, 'TAKEBACK_NOT_ALLOWED');
      assert.equal(run(played(['e2e4']), propose(WHITE)).reply.error.code, 'TAKEBACK_NOT_ALLOWED');
      // Two plies: Black's takeback (1 ply) or White's (2) would leave a side without its first move.
      assert.equal(run(played(['e2e4', 'e7e5']), propose(BLACK)).reply.error.code, 'TAKEBACK_NOT_ALLOWED');
      assert.equal(run(played(['e2e4', 'e7e5', 'g1f3']), propose(BLACK)).reply.error.code, 'TAKEBACK_NOT_ALLOWED');
      assert.equal(run(played(['e2e4', 'e7e5', 'g1f3'], { arena: true }), propose(WHITE)).reply.error.code, 'TAKEBACK_NOT_ALLOWED');
      assert.equal(run(played(['e2e4', 'e7e5', 'g1f3']), propose('someone-else')).reply.error.code, 'NOT_A_PLAYER');

      const s = played(['e2e4', 'e7e5', 'g1f3', 'b8c6']);
      run(s, propose(WHITE, 'a'));
      assert.equal(run(s, propose(WHITE, 'b')).reply.error.code, 'TAKEBACK_PENDING');
      assert.equal(run(s, propose(BLACK, 'b')).reply.error.code, 'TAKEBACK_PENDING');
      run(s, answer(BLACK, false, 'a'));
      run(s, propose(WHITE, 'b'));
      run(s, answer(BLACK, false, 'b'));
      run(s, propose(WHITE, 'c'));
      run(s, answer(BLACK, false, 'c'));
      assert.equal(run(s, propose(WHITE, 'd')).reply.error.code, 'TAKEBACK_LIMIT');
      // The limit is each player's own.
      assert.equal(run(s, propose(BLACK, 'd')).reply.ok, true);
    });

    it('lets only the recipient answer, a pending proposal only; declined, nothing else changes', () => {
      const s = played(['e2e4', 'e7e5', 'g1f3']);
      run(s, propose(WHITE));
      const before = [s.game.fen, s.game.moveCount, s.clock.state()];
      assert.equal(run(s, answer(WHITE, true)).reply.error.code, 'FORBIDDEN');
      assert.equal(run(s, answer(BLACK, true, 'nope')).reply.error.code, 'TAKEBACK_NOT_FOUND');
      const { decision, reply } = run(s, answer(BLACK, false), now(s));
      assert.equal(reply.value.takeback.status, 'declined');
      assert.equal(reply.value.game, undefined);
      assert.deepEqual(decision.write, { kind: 'close_takeback', takebackId: 'tb-1', status: 'declined', eventSeq: 5 });
      assert.equal(publicEvent(s, decision.events[0]!).type, 'takeback_offer');
      assert.deepEqual([s.game.fen, s.game.moveCount, s.clock.state()], before);
      assert.equal(run(s, answer(BLACK, true)).reply.error.code, 'TAKEBACK_NOT_PENDING');
    });

    it("accepted, undoes the proposer's last move: the board as replayed, the clocks as they show, the mover's running", () => {
      const s = played(['e2e4', 'd7d5', 'e4d5', 'd8d5', 'b1c3']); // captures: the live game forgot the positions before them
      run(s, propose(WHITE), T0 + 6000);
      const at = T0 + 9000;
      const shown = s.clock.times(at);
      const { decision, reply } = run(s, answer(BLACK, true), at);
      const replayed = new ChessGame({ moves: ['e2e4', 'd7d5', 'e4d5', 'd8d5'] });
      assert.deepEqual([s.game.fen, s.game.movetext, [...s.game.sanList], s.game.turn], [replayed.fen, replayed.movetext, ['e4', 'd5', 'exd5', 'Qxd5'], 'white']);
      assert.deepEqual(s.clock.times(at), shown);
      assert.equal(s.clock.turnStart, at);
      assert.equal(s.clock.remaining('white', at + 500), shown.white - 500);
      assert.equal(s.clock.remaining('black', at + 500), shown.black);
      assert.equal(s.takebacks[0]!.status, 'accepted');
      assert.deepEqual(decision.write, {
        kind: 'take_back', takebackId: 'tb-1', plies: 1, toPly: 4, fen: replayed.fen, pgn: '1. e4 d5 2. exd5 Qxd5', whiteMs: shown.white, blackMs: shown.black,
        turnStartedAt: new Date(at), roomState: { whiteQuotaMs: s.clock.quota('white'), blackQuotaMs: s.clock.quota('black') }, eventSeq: 7,
      });
      assert.deepEqual(publicEvent(s, decision.events[0]!), {
        type: 'takeback', takeback_id: 'tb-1', plies: 1, fen: replayed.fen, move_count: 4, current_turn: 'white', times: { white: shown.white / 1000, black: shown.black / 1000 },
      });
      assert.deepEqual(reply.value.game, {
        status: 'active', fen: replayed.fen, current_turn: 'white', move_count: 4, white_time_remaining: shown.white / 1000, black_time_remaining: shown.black / 1000,
      });
      // Play goes on from there, at the plies the takeback freed.
      const next = run(s, move(WHITE, 'g1f3'), at + 1000);
      assert.equal((next.decision.write as any).move.ply, 5);
      assert.equal((next.decision.write as any).move.pgn, '1. e4 d5 2. exd5 Qxd5 3. Nf3');
    });

    it('accepted on the proposer\'s turn, undoes two plies: their move and the reply', () => {
      const s = played(['e2e4', 'e7e5', 'g1f3', 'b8c6']);
      run(s, propose(WHITE), T0 + 5000);
      const { reply } = run(s, answer(BLACK, true), T0 + 5500);
      assert.deepEqual([reply.value.game.move_count, reply.value.game.current_turn, [...s.game.sanList]], [2, 'white', ['e4', 'e5']]);
      assert.equal(s.game.fen, new ChessGame({ moves: ['e2e4', 'e7e5'] }).fen);
    });

    it('counts repetitions of the moves left only: a taken-back position does not count', () => {
      const s = played(['g1f3', 'g8f6', 'f3g1', 'f6g8', 'g1f3', 'g8f6', 'f3g1']); // the position after 2. Ng1 stands twice
      run(s, propose(WHITE), T0 + 8000);
      run(s, answer(BLACK, true), T0 + 8500);
      // Ng1 again: the second time, not the third (the taken-back one is gone); Ng8 then makes the start's third.
      assert.equal(run(s, move(WHITE, 'f3g1'), T0 + 9000).reply.value.game.in_draw, false);
      assert.equal(s.status, 'active');
      run(s, move(BLACK, 'f6g8'), T0 + 9500);
      assert.deepEqual([s.status, s.ending?.termination], ['finished', 'repetition']);
    });

    it('lapses with any move, the proposer\'s own included, in the move\'s write', () => {
      const s = played(['e2e4', 'e7e5', 'g1f3']);
      run(s, propose(WHITE), T0 + 4000);
      const { decision } = run(s, move(BLACK, 'b8c6'), T0 + 5000);
      assert.deepEqual(decision.events.map((e) => e.type), ['takeback_closed', 'moved']);
      assert.equal((decision.write as any).move.lapsesTakeback, true);
      assert.equal((decision.write as any).move.eventSeq, 6);
      assert.equal(s.takebacks[0]!.status, 'expired');
      assert.equal(run(s, answer(BLACK, true)).reply.error.code, 'TAKEBACK_NOT_PENDING');

      const t = played(['e2e4', 'e7e5', 'g1f3', 'b8c6']);
      run(t, propose(WHITE), T0 + 5000); // White's turn: 2 plies
      assert.deepEqual(run(t, move(WHITE, 'f1c4'), T0 + 6000).decision.events.map((e) => e.type), ['takeback_closed', 'moved']);
      // A move without a pending proposal lapses nothing.
      assert.equal((run(t, move(BLACK, 'g8f6'), T0 + 7000).decision.write as any).move.lapsesTakeback, undefined);
    });

    it('lapses at its deadline (the timer), and cannot be accepted once past it', () => {
      const s = played(['e2e4', 'e7e5', 'g1f3'], { initialMs: 600_000 });
      run(s, propose(WHITE), T0 + 4000);
      const expiresAt = T0 + 4000 + RULES.drawOfferTtlMs;
      assert.equal(run(s, { type: 'expire_takeback', takebackId: 'tb-1' }, expiresAt - 1).decision.write, null);
      assert.equal(run(s, answer(BLACK, true, 'tb-1'), expiresAt).reply.error.code, 'TAKEBACK_NOT_PENDING');
      const { decision } = run(s, { type: 'expire_takeback', takebackId: 'tb-1' }, expiresAt);
      assert.deepEqual(decision.write, { kind: 'close_takeback', takebackId: 'tb-1', status: 'expired', eventSeq: 5 });
      assert.equal(s.takebacks[0]!.status, 'expired');
      assert.equal(nextDeadlines(s).takeback, null);
    });

    it('keeps the joined seats in the room state it writes (a claim after a takeover needs them)', () => {
      const s = played(['e2e4', 'e7e5', 'g1f3']);
      notePresence(s, 'black', true, T0);
      run(s, propose(WHITE), T0 + 4000);
      const { decision } = run(s, answer(BLACK, true), T0 + 4500);
      assert.deepEqual((decision.write as { roomState: { joined?: string[] } }).roomState.joined, ['black']);
    });

    it('lapses when the game ends', () => {
      const s = played(['e2e4', 'e7e5', 'g1f3']);
      run(s, propose(WHITE), T0 + 4000);
      run(s, { type: 'resign', userId: BLACK }, T0 + 4500);
      assert.equal(s.takebacks[0]!.status, 'expired');
    });
  });
});

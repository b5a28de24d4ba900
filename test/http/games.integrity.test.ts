import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Chess, type Move as ChessJsMove } from 'chess.js';
import type { GameRoom } from '../../rooms/GameRoom.ts';
import type { Pool } from '../../src/db/pool.ts';
import { expireLease } from '../support/fixtures.ts';
import { as, createActiveGame, getGame, play, playLine, sendMove, type ActiveGame } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';
import { sleep } from '../../src/time.ts';


/** A game of its own, between two users of its own (make-move is limited per user). */
async function newGame(): Promise<ActiveGame> {
  const [a, b] = await Promise.all([createUser(), createUser()]);
  return createActiveGame(a, b);
}

/** mulberry32: a deterministic PRNG, so a seed always replays the same game. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random legal move that does not end the game, or undefined when every move ends it. */
function pickMove(chess: Chess, rand: () => number): ChessJsMove | undefined {
  const options = chess.moves({ verbose: true });
  for (let left = options.length; left > 0; left--) {
    const [pick] = options.splice(Math.floor(rand() * left), 1);
    chess.move(pick!);
    const over = chess.isGameOver();
    chess.undo();
    if (!over) return pick;
  }
  return undefined;
}

/** chess.js's PGN without its tag pairs and result marker: what the game's `pgn` field holds. */
const movetextOf = (chess: Chess) =>
  chess.pgn().split('\n\n').pop()!.replace(/\s*(\*|1-0|0-1|1\/2-1\/2)$/, '');

const colorToMove = (chess: Chess) => (chess.turn() === 'w' ? 'white' : 'black');

/** The ending chess.js sees in a finished position, in the service's terms. */
function endingOf(chess: Chess) {
  const mover = chess.turn() === 'w' ? 'black' : 'white';
  if (chess.isCheckmate()) return { result: mover === 'white' ? '1-0' : '0-1', winner: mover, termination: 'checkmate' };
  const termination = chess.isStalemate()
    ? 'stalemate'
    : chess.isInsufficientMaterial()
      ? 'insufficient_material'
      : chess.isThreefoldRepetition()
        ? 'repetition'
        : 'fifty_moves';
  return { result: '1/2-1/2', winner: null, termination };
}

/** Kills the game's room the way a dead node leaves it: the room is gone, its lease still held. */
async function killRoom(gameId: string): Promise<void> {
  const room = matchMaker.getLocalRoomById(gameId) as GameRoom | undefined;
  assert.ok(room?.live, 'the game has no room on this node');
  const disposed = new Promise<void>((resolve) => room['_events'].once('disconnect', () => resolve()));
  room.live.markLost();
  await disposed;
  assert.equal(matchMaker.getLocalRoomById(gameId), undefined);
}

describe('Game integrity over REST', () => {
  describe('seeded random games replayed against chess.js', () => {
    for (const { seed, plies } of [
      { seed: 7, plies: 61 },
      { seed: 1234, plies: 64 },
      { seed: 20240601, plies: 70 },
    ]) {
      it(`keeps board, SAN, PGN and move rows identical to chess.js (seed ${seed}, ${plies} plies)`, async () => {
        const game = await newGame();
        const chess = new Chess();
        const rand = prng(seed);
        const moverClocks: number[] = [];
        let ended = false;
        while (chess.history().length < plies) {
          const color = colorToMove(chess);
          // Only a position where every move ends the game makes the sequence end early.
          const pick = pickMove(chess, rand) ?? chess.moves({ verbose: true })[0]!;
          chess.move(pick);
          const res = await sendMove(game, color === 'white' ? game.white : game.black, pick.from, pick.to, pick.promotion);
          const ply = chess.history().length;
          assert.equal(res.status, 200, `ply ${ply} ${pick.lan}: ${res.text}`);
          const { move, game: after } = res.body.data;
          assert.deepEqual(move, {
            from: pick.from, to: pick.to, san: pick.san, piece: pick.piece,
            captured: pick.captured ?? null, promotion: pick.promotion ?? null, flags: pick.flags,
          }, `ply ${ply}`);
          assert.equal(after.fen, chess.fen(), `fen after ply ${ply} ${pick.san}`);
          assert.equal(after.move_count, ply);
          assert.equal(after.current_turn, colorToMove(chess));
          assert.equal(after.in_check, chess.inCheck(), `in_check after ply ${ply}`);
          moverClocks.push(color === 'white' ? after.white_time_remaining : after.black_time_remaining);
          if (chess.isGameOver()) {
            assert.equal(after.status, 'finished');
            assert.deepEqual([after.in_checkmate, after.in_stalemate, after.in_draw], [chess.isCheckmate(), chess.isStalemate(), chess.isDraw()]);
            ended = true;
            break;
          }
          assert.equal(after.status, 'active', `status after ply ${ply} ${pick.san}`);
        }

        const detail = (await getGame(game.id, game.white)).body.data;
        assert.equal(detail.fen, chess.fen());
        assert.equal(detail.move_count, chess.history().length);
        assert.equal(detail.pgn, movetextOf(chess));
        const sans = chess.history();
        assert.deepEqual(
          detail.moves,
          Array.from({ length: Math.ceil(sans.length / 2) }, (_, i) => ({
            number: i + 1,
            white: sans[2 * i],
            black: sans[2 * i + 1] ?? null,
            white_time: moverClocks[2 * i],
            black_time: moverClocks[2 * i + 1] ?? null,
          })),
        );
        if (ended) {
          const ending = endingOf(chess);
          assert.deepEqual([detail.status, detail.result, detail.winner, detail.termination], ['finished', ending.result, ending.winner, ending.termination]);
        } else {
          assert.equal(detail.status, 'active');
        }
      });
    }
  });

  it('accepts exactly one of 20 identical concurrent moves; the others are NOT_YOUR_TURN', async () => {
    const game = await newGame();
    const answers = await Promise.all(Array.from({ length: 20 }, () => sendMove(game, game.white, 'e2', 'e4')));
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
    for (const r of answers.filter((r) => r.status !== 200)) {
      assert.equal(r.status, 403, r.text);
      assert.equal(r.body.error.code, 'NOT_YOUR_TURN');
    }
    const detail = (await getGame(game.id, game.black)).body.data;
    assert.equal(detail.move_count, 1);
    assert.equal(detail.pgn, '1. e4');
    assert.deepEqual(detail.moves.map((m: any) => [m.white, m.black]), [['e4', null]]);
  });

  describe('a room that died abruptly', () => {
    let pool: Pool;
    before(async () => {
      pool = (await testService()).service.ctx.pool;
    });

    it('is rehydrated by the next move once its lease lapsed: same board, moves and clocks', async () => {
      const game = await newGame();
      const lastMove = await playLine(game, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
      const before = (await getGame(game.id, game.white)).body.data;
      await killRoom(game.id);
      await sleep(500); // nobody hosts the game: this time is charged to no one
      await expireLease(pool, game.id);

      const moved = await play(game, game.white, 'f1', 'b5');
      assert.equal(moved.move.san, 'Bb5');
      assert.equal(moved.game.move_count, 5);
      const after = (await getGame(game.id, game.white)).body.data;
      const chess = new Chess();
      for (const san of ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']) chess.move(san);
      assert.equal(after.status, 'active');
      assert.equal(after.fen, chess.fen());
      assert.equal(after.pgn, '1. e4 e5 2. Nf3 Nc6 3. Bb5');
      assert.deepEqual(after.moves.map((m: any) => [m.white, m.black]), [['e4', 'e5'], ['Nf3', 'Nc6'], ['Bb5', null]]);
      assert.deepEqual(after.moves.slice(0, 2), before.moves);
      // Black was not to move: its clock is untouched (as the move's answer has it: the detail read
      // after it shows Black's clock running again). White was, but not for the 500 ms gap: White
      // is charged from Black's move at most until the dead room was last known to host the game
      // (its last renewal, or that move itself), so White's clock after Bb5 lies between the one
      // Black's move left (never more) and that less what passed outside the gap (well under 400 ms).
      assert.ok(Math.abs(moved.game.black_time_remaining - before.black_time_remaining) <= 0.001, `black ${before.black_time_remaining} → ${moved.game.black_time_remaining}`);
      const whiteAtNc6 = lastMove.game.white_time_remaining;
      assert.ok(after.white_time_remaining <= whiteAtNc6 + 0.001, `white ${whiteAtNc6} → ${after.white_time_remaining}: gained time`);
      assert.ok(after.white_time_remaining > whiteAtNc6 - 0.4, `white ${whiteAtNc6} → ${after.white_time_remaining}: charged for the gap`);
    });

    it('answers 503 SERVICE_UNAVAILABLE while the dead room still holds the lease, and plays once it lapsed', async () => {
      const game = await newGame();
      await playLine(game, ['d2d4', 'd7d5']);
      await killRoom(game.id);
      const refused = await sendMove(game, game.white, 'c2', 'c4');
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal((await getGame(game.id, game.white)).body.data.move_count, 2);
      await expireLease(pool, game.id);
      assert.equal((await play(game, game.white, 'c2', 'c4')).move.san, 'c4');
    });

    it('shows in GET the clocks of the rehydrated room, without charging the side to move for the gap', async () => {
      const game = await newGame();
      await playLine(game, ['e2e4', 'c7c5']);
      const before = (await getGame(game.id, game.white)).body.data;
      await killRoom(game.id);
      await sleep(500);
      await expireLease(pool, game.id);
      // A request that changes nothing brings the room back: Black tries to move out of turn.
      const outOfTurn = await sendMove(game, game.black, 'd7', 'd6');
      assert.equal(outOfTurn.body.error?.code, 'NOT_YOUR_TURN', outOfTurn.text);
      const room = matchMaker.getLocalRoomById(game.id) as GameRoom;
      const after = (await getGame(game.id, game.white)).body.data;
      const live = room.live.times();
      assert.ok(Math.abs(after.white_time_remaining - live.white) <= 0.05, `GET white ${after.white_time_remaining}, room white ${live.white}`);
      assert.ok(Math.abs(after.white_time_remaining - before.white_time_remaining) <= 0.05, `white ${before.white_time_remaining} → ${after.white_time_remaining}`);
    });
  });

  describe('a pending draw offer and the moves', () => {
    const offer = async (game: ActiveGame, by: 'white' | 'black') => {
      const res = await api('POST', `/v1/games/${game.id}/draw`, as(game[by]));
      assert.equal(res.status, 200, res.text);
      return res.body.data.draw_offer;
    };

    it("keeps the offer pending when the offerer moves", async () => {
      const game = await newGame();
      await playLine(game, ['e2e4', 'e7e5']);
      const pending = await offer(game, 'white');
      await play(game, game.white, 'g1', 'f3');
      assert.deepEqual((await getGame(game.id, game.black)).body.data.draw_offer, pending);
    });

    it('lapses the offer when its recipient moves: gone from the game, answering it is 409 DRAW_OFFER_NOT_PENDING', async () => {
      const game = await newGame();
      await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
      const pending = await offer(game, 'white');
      await play(game, game.black, 'b8', 'c6');
      assert.equal((await getGame(game.id, game.black)).body.data.draw_offer, null);
      const answer = await api('POST', `/v1/games/${game.id}/draw/${pending.id}`, as(game.black, { accept: true }));
      assert.equal(answer.status, 409, answer.text);
      assert.equal(answer.body.error.code, 'DRAW_OFFER_NOT_PENDING');
      assert.match(answer.body.error.message, /expired/);
    });
  });
});

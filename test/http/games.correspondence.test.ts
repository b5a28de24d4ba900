import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { matchMaker } from '@colyseus/core';
import { GameRoom } from '../../rooms/GameRoom.ts';
import { as, getGame, play, sendChallenge, sendMove } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { expectOk, leaveRooms } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const DAY_S = 86_400;

/**
 * Correspondence games through the running service (DESIGN 2.11). Such a game has no room while
 * nobody is connected, so the time a turn has taken is set in its row ("time travel": the turn's
 * start and its deadline moved back), which is all a node reads when it makes the room again.
 * Rooms going away are Colyseus's own disposal (a real-time second), waited for with `until`.
 */
describe('Correspondence games', function () {
  this.timeout(20_000);
  let white: TestUser;
  let black: TestUser;
  const joined: Room[] = [];

  beforeEach(async () => {
    [white, black] = await Promise.all([createUser(), createUser()]);
  });
  afterEach(async () => {
    // A room a test already left answers no second leave: a second is enough to tell.
    await leaveRooms(joined);
  });

  const correspondence = (days = 3) => ({ time_control: 'correspondence', days_per_move: days });
  /** A correspondence challenge from White to Black, accepted: the game's id. */
  const startGame = async (days = 1) => {
    const created = await sendChallenge(white, black, correspondence(days));
    assert.equal(created.status, 201, created.text);
    const accepted = await api('POST', `/v1/games/${created.body.data.id}/accept`, as(black));
    assert.equal(accepted.status, 200, accepted.text);
    return created.body.data.id as string;
  };
  const row = async (id: string) => {
    const { service } = await testService();
    return (await service.ctx.pool.query('SELECT * FROM games WHERE id = $1', [id])).rows[0];
  };
  /** The side to move has already used `ms` of its period. */
  const turnTookMs = async (id: string, ms: number) => {
    const { service } = await testService();
    const { rowCount } = await service.ctx.pool.query(
      `UPDATE games SET turn_started_at = turn_started_at - make_interval(secs => $2::double precision / 1000),
              move_deadline = move_deadline - make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 AND host IS NULL`,
      [id, ms],
    );
    assert.equal(rowCount, 1, 'the game is hosted: its row is not the whole truth');
  };
  const hosted = (id: string) => GameRoom.deps.host.find(id) !== undefined;
  const listed = async (id: string) => (await matchMaker.findRoomsByIds([id])).has(id);
  /** The room went: no actor, no listing, the lease released. */
  const roomGone = (id: string) =>
    until('the room to go', async () => !hosted(id) && !(await listed(id)) && (await row(id)).lease_expires_at === null, { ms: 10_000 });
  const join = async (id: string, user: TestUser) => {
    const { service } = await testService();
    const room = await new Client(service.url.replace('http', 'ws')).joinById(id, { token: user.accessToken });
    joined.push(room);
    await new Promise<void>((resolve) => (room.state?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return room;
  };

  it('starts from an accepted challenge with days_per_move, initial_time and increment reported 0, and no room', async () => {
    const created = await sendChallenge(white, black, { ...correspondence(3), initial_time: 300, increment: 5 });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const accepted = await api('POST', `/v1/games/${id}/accept`, as(black));
    assert.equal(accepted.status, 200, accepted.text);
    const game = accepted.body.data;
    assert.equal(game.status, 'active');
    assert.equal(game.time_control, 'correspondence');
    assert.equal(game.days_per_move, 3);
    assert.equal(game.initial_time, 0);
    assert.equal(game.increment, 0);
    assert.ok(game.white_time_remaining > 3 * DAY_S - 5 && game.white_time_remaining <= 3 * DAY_S, String(game.white_time_remaining));
    assert.equal(game.black_time_remaining, 3 * DAY_S);
    assert.equal(hosted(id) || (await listed(id)), false, 'nobody is connected: no room');
    assert.equal((await row(id)).first_move_deadline, null, 'no first-move abort');
    const list = await api('GET', `/v1/games?player_id=${white.id}&status=active`, as(white));
    assert.equal(list.body.data.find((g: { id: string }) => g.id === id)?.days_per_move, 3);
  });

  it('refuses a correspondence game without a valid days_per_move, and days_per_move on a clocked game', async () => {
    const cases: [object, string][] = [
      [{ time_control: 'correspondence' }, 'days_per_move'],
      [{ time_control: 'correspondence', days_per_move: 4 }, 'days_per_move'],
      [{ time_control: 'correspondence', days_per_move: '3' }, 'days_per_move'],
      [{ time_control: 'blitz', initial_time: 300, increment: 0, days_per_move: 3 }, 'days_per_move'],
      [{ time_control: 'blitz' }, 'initial_time'],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', '/v1/games', as(white, { type: 'challenge', opponent_id: black.id, ...body }));
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.ok(res.body.error.details[field], `${JSON.stringify(body)}: ${res.text}`);
    }
    const { service } = await testService();
    const { rows } = await service.ctx.pool.query('SELECT count(*)::int AS n FROM games WHERE created_by = $1', [white.id]);
    assert.equal(rows[0].n, 0, 'nothing was made');
  });

  it('refuses correspondence for matchmaking and for an arena', async () => {
    const seek = await api('POST', '/v1/games', as(white, { type: 'matchmaking', ...correspondence(3) }));
    assert.equal(seek.status, 400, seek.text);
    assert.ok(seek.body.error.details.time_control);
    const arena = await api('POST', '/v1/tournaments', as(white, {
      name: 'Slow arena', ...correspondence(3), initial_time: 0, increment: 0, starts_at: new Date(Date.now() + 3_600_000).toISOString(), duration_minutes: 60,
    }));
    assert.equal(arena.status, 400, arena.text);
    assert.ok(arena.body.error.details.time_control, arena.text);
  });

  it('makes nobody busy: a second correspondence game and a live one start beside it', async () => {
    await startGame(3);
    await startGame(5);
    const live = await sendChallenge(white, black);
    assert.equal(live.status, 201, live.text);
    const accepted = await api('POST', `/v1/games/${live.body.data.id}/accept`, as(black));
    assert.equal(accepted.status, 200, accepted.text);
  });

  it('plays a REST move on a game with no room, resets the mover to the whole period, and leaves no room behind', async () => {
    const id = await startGame(1);
    await turnTookMs(id, 23 * 3_600_000); // White has an hour left
    const before = (await getGame(id, white)).body.data;
    assert.ok(Math.abs(before.white_time_remaining - 3600) <= 5, String(before.white_time_remaining));

    const moved = await play(id, white, 'e2', 'e4');
    assert.equal(moved.game.white_time_remaining, DAY_S, "the mover's period starts again");
    assert.equal(moved.game.black_time_remaining, DAY_S, 'Black has the whole period');
    const stored = await row(id);
    assert.ok(Math.abs(stored.move_deadline.getTime() - (Date.now() + DAY_S * 1000)) < 5000, 'the next deadline is stored');
    await roomGone(id);

    await turnTookMs(id, 20 * 3_600_000);
    const reply = await play(id, black, 'e7', 'e5');
    assert.equal(reply.game.black_time_remaining, DAY_S);
    assert.equal(reply.game.white_time_remaining, DAY_S);
    await roomGone(id);
    const after = (await getGame(id, white)).body.data;
    assert.equal(after.move_count, 2);
    assert.equal(after.status, 'active');
  });

  it('does not abort a game whose first moves come long after the usual first-move deadline', async () => {
    const { config } = await testService();
    const id = await startGame(1);
    await turnTookMs(id, config.firstMoveMs * 100);
    await play(id, white, 'd2', 'd4');
    await roomGone(id);
    assert.equal((await row(id)).first_move_deadline, null, "Black's first move has no deadline of its own");
    await turnTookMs(id, config.firstMoveMs * 100);
    await play(id, black, 'd7', 'd5');
    assert.equal((await getGame(id, white)).body.data.status, 'active');
  });

  it('refuses a move after the deadline with nobody connected: the game is flagged as the room is made again', async () => {
    const id = await startGame(1);
    await turnTookMs(id, 24 * 3_600_000 + 1000);
    const late = await sendMove(id, white, 'e2', 'e4');
    assert.equal(late.status, 409, late.text);
    assert.equal(late.body.error.code, 'GAME_NOT_ACTIVE');
    const game = (await getGame(id, white)).body.data;
    assert.equal(game.status, 'finished');
    assert.equal(game.termination, 'timeout');
    assert.equal(game.winner, 'black');
  });

  it('disposes of the room when its last client leaves, releasing the lease; a join makes it again with the same state', async () => {
    const id = await startGame(2);
    const w = await join(id, white);
    assert.ok(hosted(id), 'a join makes the room');
    assert.ok((await row(id)).lease_expires_at, 'and takes the lease');
    await expectOk(w, 'move', { from: 'g1', to: 'f3' });
    const b = await join(id, black);
    await expectOk(b, 'move', { from: 'g8', to: 'f6' });
    await w.leave();
    assert.ok(hosted(id), 'Black is still in it');
    await b.leave();
    joined.length = 0;
    await roomGone(id);
    assert.equal((await row(id)).host, null);

    const again = await join(id, white);
    const s = again.state as any;
    assert.deepEqual([...s.moves], ['Nf3', 'Nf6']);
    assert.equal(s.turn, 'white');
    assert.equal(s.status, 'active');
    assert.equal(s.fen, (await getGame(id, white)).body.data.fen);
  });

  it('starts no claim count when a player leaves the room: leaving is how correspondence is played', async () => {
    const id = await startGame(3);
    const w = await join(id, white);
    const b = await join(id, black);
    await until('White to show as connected', () => (b.state as any).white.connected);
    await w.leave();
    await until('White to show as gone', () => !(b.state as any).white.connected);
    assert.equal((b.state as any).white.claimableAt, 0, 'no claim count');
    const claim = await api('POST', `/v1/games/${id}/claim`, as(black, { result: 'win' }));
    assert.equal(claim.status, 409, claim.text);
    assert.equal(claim.body.error.code, 'CLAIM_NOT_ALLOWED');
  });

  it('gives the side to move the whole period again after a takeback, and stores its deadline', async () => {
    const id = await startGame(2);
    await play(id, white, 'e2', 'e4');
    await play(id, black, 'e7', 'e5');
    await play(id, white, 'g1', 'f3');
    const proposed = await api('POST', `/v1/games/${id}/takeback`, as(white));
    assert.equal(proposed.status, 200, proposed.text);
    const answered = await api('POST', `/v1/games/${id}/takeback/${proposed.body.data.takeback.id}`, as(black, { accept: true }));
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.body.data.game.current_turn, 'white');
    assert.equal(answered.body.data.game.white_time_remaining, 2 * DAY_S);
    assert.equal(answered.body.data.game.black_time_remaining, 2 * DAY_S);
    const stored = await row(id);
    assert.ok(Math.abs(stored.move_deadline.getTime() - (Date.now() + 2 * DAY_S * 1000)) < 5000, 'the new turn\'s deadline is stored');
  });

  it('rematches with the same days per move', async () => {
    const id = await startGame(7);
    const resigned = await api('POST', `/v1/games/${id}/resign`, as(white));
    assert.equal(resigned.status, 200, resigned.text);
    const rematch = await api('POST', `/v1/games/${id}/rematch`, as(black));
    assert.equal(rematch.status, 201, rematch.text);
    const accepted = await api('POST', `/v1/games/${rematch.body.data.id}/accept`, as(white));
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.data.time_control, 'correspondence');
    assert.equal(accepted.body.data.days_per_move, 7);
  });

  it("lists a player's correspondence games where it is their turn", async () => {
    const id = await startGame(3);
    const mine = async (user: TestUser, myTurn: boolean) =>
      (await api('GET', `/v1/games?time_control=correspondence&my_turn=${myTurn}`, as(user))).body.data.map((g: { id: string }) => g.id);
    assert.deepEqual(await mine(white, true), [id]);
    assert.deepEqual(await mine(black, true), []);
    assert.deepEqual(await mine(black, false), [id]);
    await play(id, white, 'e2', 'e4');
    assert.deepEqual(await mine(white, true), []);
    assert.deepEqual(await mine(black, true), [id]);
    const bad = await api('GET', '/v1/games?my_turn=yes', as(white));
    assert.equal(bad.status, 400);
  });
});

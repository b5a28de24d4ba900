import assert from 'node:assert/strict';
import { api } from '../helpers/http.ts';
import { as, BLITZ, createActiveGame, getGame, type ActiveGame } from '../helpers/games.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { subscribeUser } from '../helpers/ws.ts';
import { Client, type Room } from '@colyseus/sdk';
import { nextMessage } from '../helpers/rooms.ts';
import { until } from '../helpers/poll.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';

const rematch = (id: string, user: TestUser) => api('POST', `/v1/games/${id}/rematch`, as(user));

/** A game between `a` (White) and `b`, finished by White's resignation. */
async function finishedGame(a: TestUser, b: TestUser, o: { rated?: boolean } = {}): Promise<ActiveGame> {
  const game = await createActiveGame(a, b, { rated: o.rated ?? true, time_control: 'blitz', initial_time: 180, increment: 2 });
  const res = await api('POST', `/v1/games/${game.id}/resign`, as(game.white));
  assert.equal(res.status, 200, res.text);
  return game;
}

describe('POST /games/{id}/rematch (DESIGN 2.11)', () => {
  let a: TestUser;
  let b: TestUser;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
  });

  it('answers 201 with a pending challenge to the opponent: same time control and rating, colours swapped', async () => {
    const game = await finishedGame(a, b, { rated: false });
    const res = await rematch(game.id, a);
    assert.equal(res.status, 201, res.text);
    const data = res.body.data;
    assert.deepEqual(Object.keys(data).sort(), ['expires_at', 'id', 'invite_url', 'rematch_of', 'status']);
    assert.equal(data.status, 'pending');
    assert.equal(data.rematch_of, game.id);
    const detail = (await getGame(data.id, b)).body.data;
    assert.equal(detail.status, 'pending');
    assert.equal(detail.white_player.id, b.id, 'a played White, so the rematch gives b White');
    assert.equal(detail.black_player.id, a.id);
    assert.deepEqual([detail.time_control, detail.initial_time, detail.increment, detail.rated], ['blitz', 180, 2, false]);
    assert.equal(detail.rematch_of, game.id);
    // It expires like a challenge (CHALLENGE_TTL_SECONDS is 2 in tests).
    const { config } = await testService();
    const ttl = Date.parse(data.expires_at) - Date.now();
    assert.ok(ttl > 0 && ttl <= config.challengeTtlMs, `expires in ${ttl} ms`);
  });

  it('keeps `rated` as it was', async () => {
    const game = await finishedGame(a, b, { rated: true });
    const res = await rematch(game.id, b);
    assert.equal(res.status, 201, res.text);
    assert.equal((await getGame(res.body.data.id, a)).body.data.rated, true);
  });

  it('answers the same pending game with 200 when the same player asks again', async () => {
    const game = await finishedGame(a, b);
    const first = await rematch(game.id, a);
    const again = await rematch(game.id, a);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data, first.body.data);
  });

  it("accepts the opponent's rematch when the opponent already asked: 200 with the new game, active", async () => {
    const game = await finishedGame(a, b);
    const offered = await rematch(game.id, a);
    const res = await rematch(game.id, b);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.id, offered.body.data.id);
    assert.equal(res.body.data.status, 'active');
    assert.equal(res.body.data.white_player.id, b.id);
    assert.equal(res.body.data.rematch_of, game.id);
  });

  it('makes exactly one game of two asks crossing at the same instant', async () => {
    const game = await finishedGame(a, b);
    const answers = await Promise.all([rematch(game.id, a), rematch(game.id, b)]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 201], answers.map((r) => r.text).join('\n'));
    assert.equal(answers[0].body.data.id, answers[1].body.data.id);
    const active = answers.find((r) => r.status === 200)!.body.data;
    assert.equal(active.status, 'active');
    const { service } = await testService();
    const { rows } = await service.ctx.pool.query('SELECT id, status FROM games WHERE rematch_of = $1', [game.id]);
    assert.deepEqual(rows, [{ id: active.id, status: 'active' }]);
  });

  it('may be accepted or declined by the opponent through the challenge routes', async () => {
    const accepted = await finishedGame(a, b);
    const offer = (await rematch(accepted.id, a)).body.data;
    const accept = await api('POST', `/v1/games/${offer.id}/accept`, as(b));
    assert.equal(accept.status, 200, accept.text);
    assert.equal(accept.body.data.status, 'active');
    await api('POST', `/v1/games/${offer.id}/resign`, as(b));

    const declined = await finishedGame(a, b);
    const second = (await rematch(declined.id, b)).body.data;
    const decline = await api('POST', `/v1/games/${second.id}/decline`, as(a));
    assert.equal(decline.status, 200, decline.text);
    assert.equal(decline.body.data.abort_reason, 'declined');
  });

  it('shows the rematch in the finished game’s detail, and how it stands', async () => {
    const game = await finishedGame(a, b);
    assert.equal((await getGame(game.id, a)).body.data.rematch, null);
    const offer = (await rematch(game.id, a)).body.data;
    assert.deepEqual((await getGame(game.id, b)).body.data.rematch, { game_id: offer.id, offered_by: a.id, status: 'pending' });
    await api('POST', `/v1/games/${offer.id}/decline`, as(b));
    assert.deepEqual((await getGame(game.id, a)).body.data.rematch, { game_id: offer.id, offered_by: a.id, status: 'declined' });
  });

  it('shows an accepted rematch as accepted', async () => {
    const game = await finishedGame(a, b);
    const offer = (await rematch(game.id, b)).body.data;
    await rematch(game.id, a);
    assert.deepEqual((await getGame(game.id, a)).body.data.rematch, { game_id: offer.id, offered_by: b.id, status: 'accepted' });
    await api('POST', `/v1/games/${offer.id}/resign`, as(a));
  });

  it('allows one rematch per finished game: once it is declined, later asks of either player are 409 REMATCH_NOT_ALLOWED', async () => {
    const game = await finishedGame(a, b);
    const offer = (await rematch(game.id, a)).body.data;
    await api('POST', `/v1/games/${offer.id}/decline`, as(b));
    for (const user of [a, b]) {
      const res = await rematch(game.id, user);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'REMATCH_NOT_ALLOWED');
    }
  });

  it('refuses a game that is not finished: active or abandoned → 409 GAME_NOT_FINISHED', async () => {
    const active = await createActiveGame(a, b);
    const res = await rematch(active.id, a);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'GAME_NOT_FINISHED');
    const aborted = await api('POST', `/v1/games/${active.id}/abort`, as(b));
    assert.equal(aborted.status, 200, aborted.text);
    const after = await rematch(active.id, a);
    assert.equal(after.status, 409);
    assert.equal(after.body.error.code, 'GAME_NOT_FINISHED');
  });

  it('refuses an arena game: 409 REMATCH_NOT_ALLOWED', async () => {
    const game = await finishedGame(a, b);
    const { service } = await testService();
    await service.ctx.pool.query(`UPDATE games SET kind = 'tournament' WHERE id = $1`, [game.id]);
    const res = await rematch(game.id, a);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'REMATCH_NOT_ALLOWED');
  });

  it('answers 409 PLAYER_BUSY when either player is in an active game, as a challenge does', async () => {
    const game = await finishedGame(a, b);
    const c = await createUser();
    const busy = await createActiveGame(b, c);
    const res = await rematch(game.id, a);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'PLAYER_BUSY');
    assert.equal((await getGame(game.id, a)).body.data.rematch, null, 'nothing was made');
    await api('POST', `/v1/games/${busy.id}/abort`, as(c));
  });

  it('shows how the rematch stands to anyone, without a token, in the `state` of the finished game’s stream (GET /games/{id} stays 401): how a signed-out spectator follows the players', async () => {
    const game = await finishedGame(a, b);
    const publicRematch = async () => {
      const stream = await NdjsonClient.open(`/v1/games/${game.id}/stream`);
      const state = await stream.next('state');
      await stream.next('game_end');
      assert.equal(await stream.ended, 'complete', 'a finished game’s stream ends after its game_end');
      return state.game.rematch;
    };
    assert.equal(await publicRematch(), null);
    const offer = (await rematch(game.id, a)).body.data;
    assert.deepEqual(await publicRematch(), { game_id: offer.id, offered_by: a.id, status: 'pending' });
    await api('POST', `/v1/games/${offer.id}/accept`, as(b));
    assert.deepEqual(await publicRematch(), { game_id: offer.id, offered_by: a.id, status: 'accepted' });
    assert.equal((await api('GET', `/v1/games/${game.id}`)).status, 401);
    await api('POST', `/v1/games/${offer.id}/resign`, as(a));
  });

  it('answers 403 NOT_A_PLAYER to anyone else, 404 to an unknown game, 401 without a token', async () => {
    const game = await finishedGame(a, b);
    const stranger = await createUser();
    const other = await rematch(game.id, stranger);
    assert.equal(other.status, 403);
    assert.equal(other.body.error.code, 'NOT_A_PLAYER');
    const unknown = await rematch('00000000-0000-4000-8000-000000000000', a);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'GAME_NOT_FOUND');
    const anonymous = await api('POST', `/v1/games/${game.id}/rematch`);
    assert.equal(anonymous.status, 401);
  });

  it("tells the opponent on their user channel: rematch_offer {game_id, rematch_of, from}", async () => {
    const game = await finishedGame(a, b);
    const socket = await subscribeUser(b);
    const offer = (await rematch(game.id, a)).body.data;
    const event = await socket.until('rematch_offer');
    assert.deepEqual(
      { game_id: event.game_id, rematch_of: event.rematch_of, from: event.from, channel: event.channel },
      { game_id: offer.id, rematch_of: game.id, from: { id: a.id, username: a.username }, channel: `user:${b.id}` },
    );
    socket.close();
  });

  it('says rematch_offer {game_id, offered_by} in the finished game’s room while it lingers after the end', async () => {
    const game = await createActiveGame(a, b);
    const sdk = new Client((await testService()).service.url.replace('http', 'ws'));
    const rooms: Room[] = [];
    for (const user of [game.white, game.black]) {
      const room = await sdk.joinById(game.id, { token: user.accessToken });
      rooms.push(room);
      await new Promise<void>((resolve) => ((room.state as any)?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    }
    const ended = nextMessage(rooms[1], 'game_end');
    await api('POST', `/v1/games/${game.id}/resign`, as(game.white));
    await ended;
    const offered = nextMessage(rooms[1], 'rematch_offer');
    // The room follows the game's channel from the end on: wait until its subscription is in place.
    const { service } = await testService();
    const redis = service.ctx.redis;
    if (redis) await until('the room to follow the game channel', async () => ((await redis.pubsub('NUMSUB', `game:${game.id}`)) as [string, number])[1] > 0);
    const offer = (await rematch(game.id, game.white)).body.data;
    assert.deepEqual(await offered, { game_id: offer.id, offered_by: game.white.id });
    await Promise.all(rooms.map((r) => r.leave().catch(() => {})));
  });

  it('is a pending challenge of the challenger in GET /games?status=pending', async () => {
    const game = await finishedGame(a, b);
    const offer = (await rematch(game.id, a)).body.data;
    const list = await api('GET', '/v1/games?status=pending', as(b));
    assert.equal(list.status, 200);
    const row = list.body.data.find((g: { id: string }) => g.id === offer.id);
    assert.equal(row?.direction, 'incoming');
    assert.deepEqual([row.time_control, row.initial_time], [BLITZ.time_control, 180]);
  });
});

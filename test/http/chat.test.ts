import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { insertActiveGame } from '../support/fixtures.ts';
import { as, challenge } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// DESIGN 2.11 "Chat" over REST: POST/GET /games/{id}/chat and the mute.

const post = (gameId: string, user: TestUser, body: unknown) => api('POST', `/v1/games/${gameId}/chat`, as(user, body));
const read = (gameId: string, user: TestUser, room: string) => api('GET', `/v1/games/${gameId}/chat?room=${encodeURIComponent(room)}`, as(user));
const texts = (res: { body: any }) => res.body.data.map((m: any) => m.text);

describe('game chat over REST', () => {
  let white: TestUser;
  let black: TestUser;
  let watcher: TestUser;
  let gameId: string;

  beforeEach(async () => {
    const { service } = await testService();
    [white, black, watcher] = await Promise.all([createUser(), createUser(), createUser()]);
    // No first-move deadline: the game stays active however long the test takes.
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
  });

  it('stores a player-room message and answers 201 with the message as readers get it', async () => {
    const res = await post(gameId, white, { text: '  good luck, have fun  ', room: 'player' });
    assert.equal(res.status, 201, res.text);
    const m = res.body.data;
    assert.match(m.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual({ ...m, id: undefined, created_at: undefined }, {
      id: undefined,
      room: 'player',
      user: { id: white.id, username: white.username },
      text: 'good luck, have fun',
      created_at: undefined,
    });
    assert.ok(Math.abs(Date.parse(m.created_at) - Date.now()) < 60_000);
    const got = await read(gameId, black, 'player');
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, [m]);
  });

  it('stores a message once when it is sent again with the same Idempotency-Key', async () => {
    const send = () => api('POST', `/v1/games/${gameId}/chat`, { ...as(white, { text: 'once', room: 'player' }), headers: { 'idempotency-key': `chat-${gameId}` } });
    const first = await send();
    const again = await send();
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.deepEqual(texts(await read(gameId, black, 'player')), ['once']);
  });

  it('reads a room oldest first, the last 100 only, and keeps the rooms apart', async () => {
    const { service } = await testService();
    // 105 older messages of one sender, written as the service stores them (each user may send 30 by the API).
    const senders = await Promise.all(Array.from({ length: 4 }, () => createUser()));
    let n = 0;
    for (const [i, sender] of senders.entries()) {
      for (let k = 1; k <= (i < 3 ? 30 : 15); k++) {
        await service.ctx.pool.query(
          `INSERT INTO game_chat_messages (id, game_id, room, user_id, n, text, created_at) VALUES ($1, $2, 'spectator', $3, $4, $5, now())`,
          [randomUUID(), gameId, sender.id, k, `m${++n}`],
        );
      }
    }
    assert.equal((await post(gameId, white, { text: 'private', room: 'player' })).status, 201);
    const got = await read(gameId, watcher, 'spectator');
    assert.equal(got.status, 200);
    assert.equal(got.body.data.length, 100);
    assert.deepEqual(texts(got), Array.from({ length: 100 }, (_, i) => `m${i + 6}`));
    assert.deepEqual(texts(await read(gameId, black, 'player')), ['private']);
  });

  it('masks offensive words with * and leaves innocent words alone', async () => {
    const res = await post(gameId, white, { text: 'what a SHIT move, you ass. Scunthorpe class', room: 'player' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.text, 'what a **** move, you ***. Scunthorpe class');
    assert.deepEqual(texts(await read(gameId, black, 'player')), ['what a **** move, you ***. Scunthorpe class']);
  });

  it('masks words behind spaces, dots, look-alike letters, combining marks and spellings by ear, and only them', async () => {
    const sent = ['f u c k', 'f.u.c.k', 'fu\u0441k', 'f\u0332u\u0332c\u0332k\u0332', 'phuck', 'Scunthorpe classic assess skill document grape'];
    // Three each: a user's pace allows three at once.
    const answers = [];
    for (const [i, text] of sent.entries()) answers.push(await post(gameId, i % 2 ? black : white, { text, room: 'player' }));
    const masked = ['* * * *', '*.*.*.*', '****', '****', '*****', 'Scunthorpe classic assess skill document grape'];
    assert.deepEqual(answers.map((res) => [res.status, res.body.data?.text]), masked.map((text) => [201, text]));
    assert.deepEqual(texts(await read(gameId, black, 'player')), masked);
  });

  it('accepts 140 characters (emoji count as one, joined emoji included) and refuses 141', async () => {
    assert.equal((await post(gameId, white, { text: '♞'.repeat(140), room: 'player' })).status, 201);
    assert.equal((await post(gameId, white, { text: '👩‍💻 nice', room: 'player' })).status, 201);
    const res = await post(gameId, black, { text: 'x'.repeat(141), room: 'player' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.ok(res.body.error.details.text);
  });

  const refused: [string, unknown, string][] = [
    ['no text', { room: 'player' }, 'text'],
    ['a number', { text: 42, room: 'player' }, 'text'],
    ['null', { text: null, room: 'player' }, 'text'],
    ['an array', { text: ['hi'], room: 'player' }, 'text'],
    ['an object', { text: { hi: 1 }, room: 'player' }, 'text'],
    ['an empty text', { text: '', room: 'player' }, 'text'],
    ['only spaces', { text: '   \u3000 ', room: 'player' }, 'text'],
    ['a NUL', { text: 'hi\u0000there', room: 'player' }, 'text'],
    ['a line break', { text: 'hi\nthere', room: 'player' }, 'text'],
    ['a bell', { text: 'hi\u0007', room: 'player' }, 'text'],
    ['a direction override', { text: 'hi \u202Eereht', room: 'player' }, 'text'],
    ['a zero-width space', { text: 'fu\u200Bck', room: 'player' }, 'text'],
    ['a lone joiner', { text: 'a\u200Db', room: 'player' }, 'text'],
    ['an unpaired surrogate', { text: 'hi \uD800', room: 'player' }, 'text'],
    ['10,000 characters', { text: 'y'.repeat(10_000), room: 'player' }, 'text'],
    ['no room', { text: 'hi' }, 'room'],
    ['another room', { text: 'hi', room: 'lobby' }, 'room'],
    ['a room of another type', { text: 'hi', room: 1 }, 'room'],
  ];
  for (const [name, body, field] of refused) {
    it(`refuses ${name} with 400 VALIDATION_ERROR naming ${field}, and stores nothing`, async () => {
      const res = await post(gameId, white, body);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.ok(res.body.error.details[field], JSON.stringify(res.body.error));
      assert.deepEqual((await read(gameId, white, 'player')).body.data, []);
    });
  }

  it('refuses a body that is not an object, and one over 64 KB (413)', async () => {
    for (const rawBody of ['"hi"', '[1]', 'null', '{"text":']) {
      const res = await api('POST', `/v1/games/${gameId}/chat`, { ...as(white), rawBody });
      assert.equal(res.status, 400, rawBody);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    const huge = await post(gameId, white, { text: 'z'.repeat(100_000), room: 'player' });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.error.code, 'PAYLOAD_TOO_LARGE');
    assert.deepEqual((await read(gameId, white, 'player')).body.data, []);
  });

  it('refuses a read without a valid room', async () => {
    for (const q of ['', '?room=', '?room=players', '?room[]=player']) {
      const res = await api('GET', `/v1/games/${gameId}/chat${q}`, as(white));
      assert.equal(res.status, 400, q);
      assert.ok(res.body.error.details.room, q);
    }
  });

  it('keeps the player room to the players: 403 NOT_A_PLAYER to write or read it', async () => {
    const write = await post(gameId, watcher, { text: 'hello', room: 'player' });
    assert.equal(write.status, 403);
    assert.equal(write.body.error.code, 'NOT_A_PLAYER');
    const got = await read(gameId, watcher, 'player');
    assert.equal(got.status, 403);
    assert.equal(got.body.error.code, 'NOT_A_PLAYER');
    assert.deepEqual((await read(gameId, white, 'player')).body.data, []);
  });

  it('lets anyone signed in write and read the spectator room', async () => {
    const res = await post(gameId, watcher, { text: 'nice opening', room: 'spectator' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(texts(await read(gameId, white, 'spectator')), ['nice opening']);
    assert.deepEqual(texts(await read(gameId, watcher, 'spectator')), ['nice opening']);
  });

  it('refuses a player in the spectator room while the game is active (403 FORBIDDEN), and lets them in once it ended', async () => {
    const res = await post(gameId, white, { text: 'psst', room: 'spectator' });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'FORBIDDEN');
    assert.equal((await api('POST', `/v1/games/${gameId}/resign`, as(black))).status, 200);
    const after = await post(gameId, white, { text: 'gg', room: 'spectator' });
    assert.equal(after.status, 201, after.text);
    assert.deepEqual(texts(await read(gameId, watcher, 'spectator')), ['gg']);
  });

  it('answers 404 GAME_NOT_FOUND for an unknown, malformed or hidden game, and 401 without a token', async () => {
    const pending = await challenge(...(await Promise.all([createUser(), createUser()])));
    for (const id of [randomUUID(), 'not-a-uuid', pending]) {
      const write = await post(id, watcher, { text: 'hi', room: 'spectator' });
      assert.equal(write.status, 404, id);
      assert.equal(write.body.error.code, 'GAME_NOT_FOUND');
      const got = await read(id, watcher, 'spectator');
      assert.equal(got.status, 404, id);
      const mute = await api('POST', `/v1/games/${id}/chat/mute`, as(watcher));
      assert.equal(mute.status, 404, id);
    }
    const anonymous = await api('POST', `/v1/games/${gameId}/chat`, { body: { text: 'hi', room: 'spectator' } });
    assert.equal(anonymous.status, 401);
    assert.equal((await api('GET', `/v1/games/${gameId}/chat?room=spectator`)).status, 401);
  });

  it('lets a user send three messages at once, then refuses the fourth with 429 and the rate-limit headers', async () => {
    for (const text of ['one', 'two', 'three']) assert.equal((await post(gameId, white, { text, room: 'player' })).status, 201, text);
    const res = await post(gameId, white, { text: 'four', room: 'player' });
    assert.equal(res.status, 429);
    assert.equal(res.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(res.headers.get('retry-after'), '1');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(res.headers.get(h), h);
    assert.deepEqual(texts(await read(gameId, black, 'player')), ['one', 'two', 'three']);
    // The pace is the sender's: the opponent writes on.
    assert.equal((await post(gameId, black, { text: 'calm down', room: 'player' })).status, 201);
  });

  it('counts the pace across games: three at once in all of a user’s games', async () => {
    const { service } = await testService();
    const other = await insertActiveGame(service.ctx.pool, white.id, watcher.id, { firstMoveDeadline: null });
    assert.equal((await post(gameId, white, { text: 'a', room: 'player' })).status, 201);
    assert.equal((await post(other, white, { text: 'b', room: 'player' })).status, 201);
    assert.equal((await post(gameId, white, { text: 'c', room: 'player' })).status, 201);
    assert.equal((await post(other, white, { text: 'd', room: 'player' })).status, 429);
  });

  it('caps a user at 30 messages per game in each room (429), counted in the database', async () => {
    const { service } = await testService();
    // 28 sent earlier, as the service stores them.
    for (let n = 1; n <= 28; n++) {
      await service.ctx.pool.query(
        `INSERT INTO game_chat_messages (id, game_id, room, user_id, n, text, created_at) VALUES ($1, $2, 'player', $3, $4, 'earlier', now())`,
        [randomUUID(), gameId, white.id, n],
      );
    }
    assert.equal((await post(gameId, white, { text: 'the 29th', room: 'player' })).status, 201);
    assert.equal((await post(gameId, white, { text: 'the 30th', room: 'player' })).status, 201);
    // The third of a burst: the pace allows it, the cap does not.
    const capped = await post(gameId, white, { text: 'the 31st', room: 'player' });
    assert.equal(capped.status, 429, capped.text);
    assert.equal(capped.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.deepEqual(capped.body.error.details, { room: ['at most 30 messages per game'] });
    assert.equal(capped.headers.get('retry-after'), null, 'waiting does not lift the cap');
    assert.ok(capped.headers.get('x-ratelimit-limit'));
    const got = await read(gameId, black, 'player');
    assert.equal(got.body.data.length, 30);
    assert.equal(got.body.data.at(-1).text, 'the 30th');
    // Each room has its own 30.
    assert.equal((await post(gameId, watcher, { text: 'fine', room: 'spectator' })).status, 201);
  });

  it('lets only one of three sends at once be the 30th', async () => {
    const { service } = await testService();
    for (let n = 1; n <= 29; n++) {
      await service.ctx.pool.query(
        `INSERT INTO game_chat_messages (id, game_id, room, user_id, n, text, created_at) VALUES ($1, $2, 'player', $3, $4, 'earlier', now())`,
        [randomUUID(), gameId, black.id, n],
      );
    }
    const answers = await Promise.all(['a', 'b', 'c'].map((text) => post(gameId, black, { text, room: 'player' })));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 429, 429]);
    for (const r of answers.filter((r) => r.status === 429)) assert.ok(r.body.error.details.room, 'refused by the cap, not the pace');
    assert.equal((await read(gameId, white, 'player')).body.data.length, 30);
  });

  it('lets a player mute the opponent: their messages stop reaching the muter, not the sender, until unmuted', async () => {
    assert.equal((await post(gameId, black, { text: 'before', room: 'player' })).status, 201);
    const mute = await api('POST', `/v1/games/${gameId}/chat/mute`, as(white));
    assert.equal(mute.status, 200, mute.text);
    assert.deepEqual(mute.body.data, { game_id: gameId, muted: true });
    assert.equal((await api('POST', `/v1/games/${gameId}/chat/mute`, as(white))).status, 200, 'muting twice is fine');
    const sent = await post(gameId, black, { text: 'after', room: 'player' });
    assert.equal(sent.status, 201, 'the sender is not told');
    assert.equal((await post(gameId, white, { text: 'mine', room: 'player' })).status, 201);
    assert.deepEqual(texts(await read(gameId, white, 'player')), ['mine']);
    assert.deepEqual(texts(await read(gameId, black, 'player')), ['before', 'after', 'mine']);
    const unmute = await api('DELETE', `/v1/games/${gameId}/chat/mute`, as(white));
    assert.equal(unmute.status, 200);
    assert.deepEqual(unmute.body.data, { game_id: gameId, muted: false });
    assert.deepEqual(texts(await read(gameId, white, 'player')), ['before', 'after', 'mine']);
  });

  it('mutes per game: the same opponent is heard in another game', async () => {
    const { service } = await testService();
    const other = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
    assert.equal((await api('POST', `/v1/games/${gameId}/chat/mute`, as(white))).status, 200);
    assert.equal((await post(other, black, { text: 'here', room: 'player' })).status, 201);
    assert.deepEqual(texts(await read(other, white, 'player')), ['here']);
  });

  it('lets only a player mute (403 NOT_A_PLAYER)', async () => {
    for (const method of ['POST', 'DELETE']) {
      const res = await api(method, `/v1/games/${gameId}/chat/mute`, as(watcher));
      assert.equal(res.status, 403, method);
      assert.equal(res.body.error.code, 'NOT_A_PLAYER');
    }
  });
});

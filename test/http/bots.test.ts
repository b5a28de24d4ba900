import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { personalToken } from '../helpers/credentials.ts';
import { as, createActiveGame, play, uniquePool } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { leaveRooms } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// DESIGN 2.13: a bot account (made one by Lichess's POST /api/bot/account/upgrade) plays through
// challenges only: no seek, no quick pairing, no arena, whichever surface asks (/v1, a room);
// anyone may challenge it, and it may challenge.

const BOT_ONLY = /bot account plays through challenges only/;

async function newBot(): Promise<TestUser> {
  const user = await createUser();
  const { token } = await personalToken(user, ['bot:play']);
  const res = await api('POST', '/api/bot/account/upgrade', { token, ip: user.ip });
  assert.equal(res.status, 200, res.text);
  return user;
}

function assertForbidden(res: ApiResponse) {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.error.code, 'FORBIDDEN');
  assert.match(res.body.error.message, BOT_ONLY);
}

describe('bot accounts on /v1 and in rooms (DESIGN 2.13)', () => {
  const joined: Room[] = [];
  afterEach(() => leaveRooms(joined));

  it("says bot in the account's public profile once it is one", async () => {
    const [bot, person] = await Promise.all([newBot(), createUser()]);
    const botProfile = (await api('GET', `/v1/users/${bot.id}`, as(person))).body.data;
    const personProfile = (await api('GET', `/v1/users/${person.id}`, as(bot))).body.data;
    assert.equal(botProfile.bot, true);
    assert.equal(botProfile.title, 'BOT', 'the title, as on a game\'s player objects');
    assert.equal(personProfile.bot, false);
    assert.equal('title' in personProfile, false);
  });

  it("refuses a bot's seek (POST /v1/games, type matchmaking) with 403 FORBIDDEN, placing nothing", async () => {
    const bot = await newBot();
    const pool = { ...uniquePool(), rated: true };
    assertForbidden(await api('POST', '/v1/games', as(bot, { type: 'matchmaking', ...pool, color: 'random' })));
    // As a bot's first, whatever the seek: a correspondence one (400 for a person) too.
    assertForbidden(await api('POST', '/v1/games', as(bot, { type: 'matchmaking', time_control: 'correspondence', days_per_move: 3, rated: false, color: 'random' })));
    const pending = await api('GET', '/v1/games?status=pending', as(bot));
    assert.deepEqual(pending.body.data, [], 'no seek left behind');
  });

  it("refuses a bot's socket seek (the seek pool room) with FORBIDDEN", async () => {
    const bot = await newBot();
    const { service } = await testService();
    const sdk = new Client(service.url.replace('http', 'ws'), { headers: { 'x-forwarded-for': newIp() } });
    await assert.rejects(
      sdk.joinOrCreate('seek_pool', { ...uniquePool(), rated: true, color: 'random', token: bot.accessToken }).then((room) => joined.push(room)),
      (err: Error) => /FORBIDDEN/.test(err.message) && BOT_ONLY.test(err.message),
    );
  });

  it("refuses a bot's arena join with 403 FORBIDDEN; the arena is left as it was", async () => {
    const [bot, creator] = await Promise.all([newBot(), createUser()]);
    const starts = new Date(Date.now() + 600_000).toISOString();
    const arena = await api('POST', '/v1/tournaments', as(creator, { name: 'Arena for people', time_control: 'blitz', initial_time: 180, increment: 2, starts_at: starts, duration_minutes: 30 }));
    assert.equal(arena.status, 201, arena.text);
    assertForbidden(await api('POST', `/v1/tournaments/${arena.body.data.id}/join`, as(bot)));
    assert.equal((await api('GET', `/v1/tournaments/${arena.body.data.id}`, as(creator))).body.data.player_count, 0);
  });

  it('lets anyone challenge a bot, and a bot challenge anyone: the games play as any other', async () => {
    const [bot, person] = await Promise.all([newBot(), createUser()]);
    const challenged = await createActiveGame(person, bot);
    await play(challenged, person, 'e2', 'e4');
    await play(challenged, bot, 'e7', 'e5');
    const challenging = await createActiveGame(bot, person, { time_control: 'correspondence', days_per_move: 3 });
    await play(challenging, bot, 'd2', 'd4');
  });
});

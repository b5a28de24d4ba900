import assert from 'node:assert/strict';
import { personalToken } from '../helpers/credentials.ts';
import { as, uniquePool } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { heldPost, type HeldPost } from './heldPost.ts';

// `POST /api/board/seek` (DESIGN 2.13) as a Lichess Board API client makes it: a form body, the
// answer held open while the seek waits (Lichess: "keep the connection open to keep the seek
// active"), ended with no data once paired; closing it cancels the seek.

/** A seek as a Board API client posts it: a form (`Record<string, string>`) or JSON (`{json}`), with `user`'s board:play token or `token`. */
async function seek(user: TestUser, form: Record<string, string> | { json: unknown }, o: { token?: string; path?: string } = {}): Promise<HeldPost> {
  const { service } = await testService();
  const token = o.token ?? (await personalToken(user, ['board:play'])).token;
  const json = 'json' in form;
  const body = json ? JSON.stringify(form.json) : new URLSearchParams(form as Record<string, string>).toString();
  const headers = { authorization: `Bearer ${token}`, 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded', 'x-forwarded-for': newIp() };
  return heldPost(`${service.url}${o.path ?? '/api/board/seek'}`, headers, body);
}

/** A realtime seek's form in a pool no other test uses: `time` in minutes, `increment` in seconds. */
const realtime = (pool = uniquePool()) => ({ time: String(pool.initial_time / 60), increment: String(pool.increment) });

describe("Lichess's board seek (DESIGN 2.13)", () => {
  it('holds a realtime seek open until another seeker is paired with it, then ends the answer with no data; the game is on', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const pool = uniquePool();
    const form = realtime(pool);
    const first = await seek(a, form);
    assert.equal(first.status, 200);
    assert.match(first.contentType ?? '', /^application\/x-ndjson/);
    const second = await seek(b, form);
    assert.equal(second.status, 200);
    assert.equal(await second.ended, 'complete', 'paired at once: the answer ends');
    assert.equal(await first.ended, 'complete', 'the waiting seek ends once paired');
    assert.equal((await first.body).trim(), '', 'no data, blank lines at most');
    assert.equal((await second.body).trim(), '');
    const games = (await api('GET', '/v1/games', as(a))).body.data;
    const paired = games.find((g: any) => g.status === 'active');
    assert.ok(paired, JSON.stringify(games));
    assert.deepEqual(new Set([paired.white_player.id, paired.black_player.id]), new Set([a.id, b.id]));
    assert.equal(paired.initial_time, pool.initial_time, 'the minutes of the form, in seconds');
  });

  it('takes a JSON body as well as a form, with JSON numbers and booleans, and nulls for what a client leaves unset', async () => {
    const a = await createUser();
    const pool = uniquePool();
    const held = await seek(a, { json: { time: pool.initial_time / 60, increment: pool.increment, rated: false, days: null, variant: null, color: null, ratingRange: null } });
    assert.equal(held.status, 200, await Promise.race([held.body, Promise.resolve('(held open)')]));
    const pending = (await api('GET', '/v1/games?status=pending', as(a))).body.data;
    assert.deepEqual(pending.map((g: any) => [g.initial_time, g.increment]), [[pool.initial_time, pool.increment]]);
    held.close();
  });

  it('is served under /lichess too', async () => {
    const a = await createUser();
    const held = await seek(a, realtime(), { path: '/lichess/api/board/seek' });
    assert.equal(held.status, 200);
    assert.equal((await api('GET', '/v1/games?status=pending', as(a))).body.data.length, 1);
    held.close();
  });

  it('cancels the seek when the client closes the answer', async () => {
    const a = await createUser();
    const held = await seek(a, realtime());
    assert.equal(held.status, 200);
    const pending = (await api('GET', '/v1/games?status=pending', as(a))).body.data;
    assert.equal(pending.length, 1, JSON.stringify(pending));
    const watch = await NdjsonClient.open(`/v1/games/${pending[0].id}/stream`, { authorization: `Bearer ${a.accessToken}` });
    assert.equal((await watch.next('state')).game.status, 'pending');
    held.close();
    const state = await watch.next('state');
    assert.deepEqual([state.game.status, state.game.abort_reason], ['abandoned', 'cancelled']);
    await watch.next('game_end');
  });

  it('refuses a correspondence seek (correspondence games are made by challenge here) and a seek without its clock, with 400 {"error"}', async () => {
    const a = await createUser();
    const forms: Record<string, string>[] = [{ days: '3' }, { time: '5' }, { increment: '3' }, { time: 'five', increment: '0' }, { ...realtime(), variant: 'chess960' }, { ...realtime(), color: 'green' }];
    for (const form of forms) {
      const res = await seek(a, form);
      assert.equal(res.status, 400, `${JSON.stringify(form)}: ${await res.body}`);
      assert.deepEqual(Object.keys(JSON.parse(await res.body)), ['error']);
    }
    // The rule's own words, not only the heading of a refusal.
    assert.match(JSON.parse(await (await seek(a, { ...realtime(), days: '3' })).body).error, /correspondence games are made by challenge/);
  });

  it('refuses a second seek while one waits (400), as the pool does', async () => {
    const a = await createUser();
    const held = await seek(a, realtime());
    assert.equal(held.status, 200);
    const again = await seek(a, realtime());
    assert.equal(again.status, 400);
    assert.match(JSON.parse(await again.body).error, /seek/);
    held.close();
  });

  it('refuses a bot account’s seek with 403 {"error"}, as Lichess does (a bot plays through challenges only), placing nothing', async () => {
    const bot = await createUser();
    const { token } = await personalToken(bot, ['bot:play', 'board:play']);
    assert.equal((await api('POST', '/api/bot/account/upgrade', { token, ip: bot.ip })).status, 200);
    for (const form of [realtime(), { days: '3' }]) {
      const res = await seek(bot, form, { token });
      assert.equal(res.status, 403, `${JSON.stringify(form)}: ${await res.body}`);
      const body = JSON.parse(await res.body);
      assert.deepEqual(Object.keys(body), ['error']);
      assert.match(body.error, /bot account plays through challenges only/);
    }
    assert.deepEqual((await api('GET', '/v1/games?status=pending', as(bot))).body.data, [], 'no seek left behind');
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { personalToken } from '../helpers/credentials.ts';
import { as, challenge, createActiveGame, getGame } from '../helpers/games.ts';
import { api, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// Lichess's challenges (DESIGN 2.13) through the running service, as Lichess's clients call them
// (lichess-bot posts JSON with dotted keys, berserk JSON with nulls for what it leaves unset,
// scripts a form): the shapes and statuses of Lichess's published OpenAPI
// (tags/challenges/api-challenge*.yaml, schemas/ChallengeJson.yaml), over the same challenges
// and games as /v1's.

type Player = TestUser & { token: string };

/** A user with a personal token of Lichess's scopes (a bot's, a board app's). */
async function player(scopes = ['challenge:read', 'challenge:write', 'bot:play', 'board:play']): Promise<Player> {
  const user = await createUser();
  return { ...user, token: (await personalToken(user, scopes)).token };
}

/** A Lichess call as a client makes it: a form (`form`), JSON (`json`) or no body. */
function lichess(method: string, path: string, who: Player | undefined, o: { form?: Record<string, string>; json?: unknown } = {}): Promise<ApiResponse> {
  return api(method, path, {
    ip: who?.ip,
    token: who?.token,
    ...(o.form ? { rawBody: new URLSearchParams(o.form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
    ...(o.json !== undefined ? { body: o.json } : {}),
  });
}

const challengeOf = (from: Player, to: TestUser, form: Record<string, string> = { 'clock.limit': '300', 'clock.increment': '3' }) =>
  lichess('POST', `/api/challenge/${to.username}`, from, { form });

/** A Lichess error answer: the status and a `{"error": "..."}` body, nothing else. */
function assertError(res: ApiResponse, status: number, pattern?: RegExp): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.body), ['error'], res.text);
  assert.equal(typeof res.body.error, 'string');
  if (pattern) assert.match(res.body.error, pattern);
}

describe("Lichess's challenges (DESIGN 2.13)", () => {
  describe('POST /api/challenge/{username}', () => {
    it('makes a challenge from a form with dotted keys and answers it as Lichess does: the ChallengeJson, its id the game’s', async () => {
      const [a, b] = await Promise.all([player(), createUser()]);
      const res = await challengeOf(a, b, { 'clock.limit': '300', 'clock.increment': '3', rated: 'true', color: 'white' });
      assert.equal(res.status, 200, res.text);
      const c = res.body;
      assert.equal(c.status, 'created');
      assert.deepEqual(c.challenger, { id: a.username.toLowerCase(), name: a.username, rating: 1500 });
      assert.deepEqual(c.destUser, { id: b.username.toLowerCase(), name: b.username, rating: 1500 });
      assert.deepEqual(c.variant, { key: 'standard', name: 'Standard', short: 'Std' });
      assert.equal(c.rated, true);
      assert.equal(c.speed, 'blitz', '5+3 is blitz in Lichess’s bands (300 + 40 × 3 = 420 s)');
      assert.deepEqual(c.timeControl, { type: 'clock', limit: 300, increment: 3, show: '5+3' });
      assert.equal(c.color, 'white');
      assert.equal(c.finalColor, 'white');
      assert.deepEqual(c.perf, { icon: '', name: 'Blitz' });
      assert.equal(c.direction, 'out');
      assert.equal(c.url, `http://chess.test/play/${c.id}`);
      // The same challenge on /v1: a pending game of that id, the challenger White, 5+3 blitz.
      const game = (await getGame(c.id, b)).body.data;
      assert.equal(game.status, 'pending');
      assert.equal(game.white_player.id, a.id);
      assert.deepEqual([game.time_control, game.initial_time, game.increment, game.rated], ['blitz', 300, 3, true]);
    });

    it('takes JSON with dotted keys as lichess-bot sends it, and JSON nulls for what berserk leaves unset', async () => {
      const [a, b, c] = await Promise.all([player(), createUser(), createUser()]);
      const bot = await lichess('POST', `/api/challenge/${b.username}`, a, { json: { rated: false, variant: 'standard', 'clock.limit': 60, 'clock.increment': 1 } });
      assert.equal(bot.status, 200, bot.text);
      assert.deepEqual([bot.body.speed, bot.body.rated, bot.body.color], ['bullet', false, 'random'], 'casual and random unless asked (Lichess’s defaults)');
      assert.deepEqual(bot.body.timeControl, { type: 'clock', limit: 60, increment: 1, show: '1+1' });
      assert.ok(['white', 'black'].includes(bot.body.finalColor), 'the colour drawn for random');
      const berserk = await lichess('POST', `/api/challenge/${c.username}`, a, {
        json: { rated: true, 'clock.limit': 15, 'clock.increment': 0, days: null, color: 'black', variant: null, fen: null },
      });
      assert.equal(berserk.status, 200, berserk.text);
      assert.deepEqual([berserk.body.speed, berserk.body.timeControl.show, berserk.body.finalColor], ['ultraBullet', '¼+0', 'black']);
    });

    it('makes a correspondence challenge from days: timeControl {type: correspondence, daysPerTurn}', async () => {
      const [a, b] = await Promise.all([player(), createUser()]);
      const res = await challengeOf(a, b, { days: '3' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.speed, 'correspondence');
      assert.deepEqual(res.body.timeControl, { type: 'correspondence', daysPerTurn: 3 });
      assert.equal(res.body.perf.name, 'Correspondence');
      const game = (await getGame(res.body.id, a)).body.data;
      assert.deepEqual([game.time_control, game.days_per_move], ['correspondence', 3]);
    });

    it('names a bot account BOT (challenger.title), as Lichess’s clients tell bots apart', async () => {
      const [a, b] = await Promise.all([player(), createUser()]);
      // Nothing of this area makes a bot account (the upgrade is Lichess's account route): the row says so.
      const { service } = await testService();
      await service.ctx.pool.query('UPDATE users SET bot = true WHERE id = $1', [a.id]);
      const res = await challengeOf(a, b);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.challenger.title, 'BOT');
      assert.equal(res.body.destUser.title, undefined, 'a person has no title');
    });

    it('refuses what is not played here with 400 {"error"}: another variant, a position, unlimited games, a bad clock or days', async () => {
      const b = await createUser();
      const clock = { 'clock.limit': '300', 'clock.increment': '0' };
      const refused: Array<[Record<string, string>, RegExp]> = [
        [{ ...clock, variant: 'chess960' }, /variant.*standard/],
        [{ ...clock, fen: '8/8/8/8/8/8/8/K6k w - - 0 1' }, /fen/],
        [{}, /unlimited/],
        [{ ...clock, days: '3' }, /not both/],
        [{ 'clock.limit': '300' }, /go together/],
        [{ 'clock.limit': 'five', 'clock.increment': '0' }, /clock\.limit/],
        [{ 'clock.limit': '10801', 'clock.increment': '0' }, /clock\.limit/],
        [{ 'clock.limit': '300', 'clock.increment': '61' }, /clock\.increment/],
        [{ 'clock.limit': '0', 'clock.increment': '0' }, /both be 0/],
        [{ days: '4' }, /days/],
        [{ ...clock, rated: 'yes' }, /rated/],
        [{ ...clock, color: 'green' }, /color/],
      ];
      // Each from a challenger of its own: a refused challenge counts in the challenge limit (5 a minute) too.
      for (const [form, error] of refused) assertError(await challengeOf(await player(), b, form), 400, error);
      assert.equal((await challengeOf(await player(), b, { ...clock, variant: 'standard' })).status, 200, 'standard is');
    });

    it('refuses what it does not support, and says so: keepAliveStream, acceptByToken, rules', async () => {
      const [a, b] = await Promise.all([player(), createUser()]);
      const clock = { 'clock.limit': '300', 'clock.increment': '0' };
      assertError(await challengeOf(a, b, { ...clock, keepAliveStream: 'true' }), 400, /keepAliveStream.*not supported/);
      assertError(await challengeOf(a, b, { ...clock, acceptByToken: 'lip_x' }), 400, /acceptByToken.*not supported/);
      assertError(await challengeOf(a, b, { ...clock, rules: 'noAbort' }), 400, /rules.*not supported/);
      assert.equal((await challengeOf(a, b, { ...clock, keepAliveStream: 'false' })).status, 200, 'keepAliveStream=false is the default');
    });

    it('refuses a challenge to oneself (400), to nobody (404), and to a player in a game (400, as /v1’s PLAYER_BUSY)', async () => {
      const [a, b, c] = await Promise.all([player(), createUser(), createUser()]);
      assertError(await challengeOf(a, a), 400, /yourself/);
      assertError(await challengeOf(a, { ...b, username: 'nobody_here_at_all' }), 404);
      await createActiveGame(b, c);
      assertError(await challengeOf(a, b), 400, /opponent is already playing/);
      assertError(await lichess('POST', '/api/challenge/ai', a, { form: { level: '1' } }), 404, /not served/);
    });

    it('needs a token (401) with challenge:write, bot:play or board:play (403)', async () => {
      const [reader, b] = await Promise.all([player(['games:read', 'challenge:read']), createUser()]);
      assertError(await challengeOf(undefined as unknown as Player, b), 401);
      assertError(await challengeOf(reader, b), 403, /challenge:write/);
      for (const scope of ['challenge:write', 'bot:play', 'board:play']) {
        const writer = await player([scope]);
        assert.equal((await challengeOf(writer, b)).status, 200, scope);
      }
    });

    it('counts in the challenge limit of POST /v1/games (5 a minute): past it, 429 {"error"} with Retry-After', async () => {
      const [a, b] = await Promise.all([player(), createUser()]);
      // Refused ones count too (a bad clock): nothing is left pending for b to be busy with.
      for (let i = 0; i < 5; i++) assertError(await challengeOf(a, b, { 'clock.limit': 'x', 'clock.increment': '0' }), 400);
      const limited = await challengeOf(a, b);
      assertError(limited, 429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${limited.headers.get('retry-after')}`);
    });

    it('is served under /lichess too, for a proxy that routes by prefix', async () => {
      const [a, b] = await Promise.all([player(), createUser()]);
      const res = await lichess('POST', `/lichess/api/challenge/${b.username}`, a, { form: { 'clock.limit': '600', 'clock.increment': '0' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.speed, 'rapid');
    });
  });

  describe('GET /api/challenge', () => {
    it('lists the challenges received (in) and sent (out), each with its direction, not the seeks nor the answered ones', async () => {
      const [a, b, c, d] = await Promise.all([player(), player(), createUser(), createUser()]);
      const sent = (await challengeOf(a, b)).body.id;
      const received = await challenge(c, { ...a, accessToken: a.accessToken }, { color: 'black' });
      const declined = (await challengeOf(a, d)).body.id;
      await api('POST', `/v1/games/${declined}/decline`, as(d));
      const res = await lichess('GET', '/api/challenge', a);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.out.map((x: any) => [x.id, x.direction, x.destUser.name]), [[sent, 'out', b.username]]);
      assert.deepEqual(res.body.in.map((x: any) => [x.id, x.direction, x.challenger.name, x.color]), [[received, 'in', c.username, 'black']]);
      const theirs = await lichess('GET', '/api/challenge', b);
      assert.deepEqual(theirs.body, { in: [{ ...res.body.out[0], direction: 'in' }], out: [] }, 'the same challenge, seen from the other side');
    });

    it('needs challenge:read', async () => {
      const writer = await player(['challenge:write']);
      assertError(await lichess('GET', '/api/challenge', writer), 403, /challenge:read/);
    });
  });

  describe('accept, decline, cancel', () => {
    it('accepts: {"ok": true}, and the game of the same id is on, for /v1 too', async () => {
      const [a, b] = await Promise.all([player(), player()]);
      const id = (await challengeOf(a, b, { 'clock.limit': '300', 'clock.increment': '3', color: 'black' })).body.id;
      const res = await lichess('POST', `/api/challenge/${id}/accept`, b);
      assert.deepEqual([res.status, res.body], [200, { ok: true }]);
      const game = (await getGame(id, a)).body.data;
      assert.equal(game.status, 'active');
      assert.deepEqual([game.white_player.id, game.black_player.id], [b.id, a.id]);
    });

    it('refuses to accept a challenge that is not the caller’s to accept (404) or is no longer open (400)', async () => {
      const [a, b, c] = await Promise.all([player(), player(), player()]);
      const id = (await challengeOf(a, b)).body.id;
      assertError(await lichess('POST', `/api/challenge/${id}/accept`, a), 404, /Challenge not found/);
      assertError(await lichess('POST', `/api/challenge/${id}/accept`, c), 404);
      assertError(await lichess('POST', '/api/challenge/not-an-id/accept', b), 404);
      for (const verb of ['accept', 'decline', 'cancel']) assertError(await lichess('POST', `/api/challenge/${randomUUID()}/${verb}`, b), 404, /Challenge not found/);
      assert.equal((await lichess('POST', `/api/challenge/${id}/accept`, b)).status, 200);
      assertError(await lichess('POST', `/api/challenge/${id}/accept`, b), 400);
    });

    it('declines, with a reason in any case or none: {"ok": true}, the game abandoned as declined', async () => {
      const [a, b] = await Promise.all([player(), player()]);
      const first = (await challengeOf(a, b)).body.id;
      const res = await lichess('POST', `/api/challenge/${first}/decline`, b, { form: { reason: 'tooFast' } });
      assert.deepEqual([res.status, res.body], [200, { ok: true }]);
      const game = (await getGame(first, a)).body.data;
      assert.deepEqual([game.status, game.abort_reason], ['abandoned', 'declined']);
      const second = (await challengeOf(a, b)).body.id;
      assert.equal((await lichess('POST', `/api/challenge/${second}/decline`, b, { json: { reason: 'TOOSLOW' } })).status, 200);
      const third = (await challengeOf(a, b)).body.id;
      assert.equal((await lichess('POST', `/api/challenge/${third}/decline`, b)).status, 200, 'no reason: generic');
    });

    it('refuses a decline reason Lichess does not have, and a decline by the challenger', async () => {
      const [a, b] = await Promise.all([player(), player()]);
      const id = (await challengeOf(a, b)).body.id;
      assertError(await lichess('POST', `/api/challenge/${id}/decline`, b, { form: { reason: 'bored' } }), 400, /reason/);
      assertError(await lichess('POST', `/api/challenge/${id}/decline`, a), 404);
      assert.equal((await getGame(id, a)).body.data.status, 'pending', 'still open');
    });

    it('cancels a challenge sent, and aborts the game an accepted one became while nobody has moved', async () => {
      const [a, b] = await Promise.all([player(), player()]);
      const sent = (await challengeOf(a, b)).body.id;
      assertError(await lichess('POST', `/api/challenge/${sent}/cancel`, b), 404, /Challenge not found/);
      assert.deepEqual((await lichess('POST', `/api/challenge/${sent}/cancel`, a)).body, { ok: true });
      assert.deepEqual(
        await getGame(sent, a).then((r) => [r.body.data.status, r.body.data.abort_reason]),
        ['abandoned', 'cancelled'],
      );
      const accepted = (await challengeOf(a, b)).body.id;
      assert.equal((await lichess('POST', `/api/challenge/${accepted}/accept`, b)).status, 200);
      assert.deepEqual((await lichess('POST', `/api/challenge/${accepted}/cancel`, a)).body, { ok: true });
      assert.deepEqual(
        await getGame(accepted, a).then((r) => [r.body.data.status, r.body.data.abort_reason]),
        ['abandoned', 'aborted'],
      );
      assertError(await lichess('POST', `/api/challenge/${accepted}/cancel`, a), 400, /no longer pending/);
    });
  });
});

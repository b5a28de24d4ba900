import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { deleteToken, personalToken, withClockSkipped } from '../helpers/credentials.ts';
import { as, createActiveGame, play, playLine, sendChallenge, uniquePool, type ActiveGame } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// Lichess's account, token, user, bot and export reads (DESIGN 2.13), through the running service
// as Lichess's clients call them (lichess-bot's lib/lichess.py, berserk): a personal token as the
// bearer, Lichess's paths from the root, Lichess's shapes (doc/specs of lichess-org/api).

type Token = { id: string; token: string };
const bearer = (token: string, ip = newIp()) => ({ token, ip });
const get = (path: string, token?: string, headers: Record<string, string> = {}) => api('GET', path, { ...(token ? bearer(token) : { ip: newIp() }), headers });
const post = (path: string, token?: string) => api('POST', path, token ? bearer(token) : { ip: newIp() });
const lichessId = (u: TestUser) => u.username.toLowerCase();
const ndjsonLines = (res: ApiResponse) => res.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

/** A Lichess error: the status, `{"error": "..."}` and nothing else. */
function assertLichessError(res: ApiResponse, status: number, pattern?: RegExp) {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.body ?? {}), ['error'], res.text);
  assert.equal(typeof res.body.error, 'string');
  if (pattern) assert.match(res.body.error, pattern);
}

/** A user with a personal token of these scopes. */
async function withToken(scopes: string[]): Promise<{ user: TestUser; token: Token }> {
  const user = await createUser();
  return { user, token: await personalToken(user, scopes) };
}

/** A bot account, upgraded as lichess-bot does it: POST /api/bot/account/upgrade with a bot:play token. */
async function newBot(): Promise<{ user: TestUser; token: Token }> {
  const bot = await withToken(['bot:play']);
  const res = await post('/api/bot/account/upgrade', bot.token.token);
  assert.equal(res.status, 200, res.text);
  return bot;
}

/** A rated blitz game (5+0) that Black wins by mate in four plies: White f3, g4; Black e5, Qh4#. */
async function foolsMate(white: TestUser, black: TestUser, o: object = {}): Promise<ActiveGame> {
  const game = await createActiveGame(white, black, o);
  await playLine(game, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  return game;
}

/** POST with a body and exactly the headers given (none of fetch's own Content-Type). */
function rawPost(path: string, body: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return testService().then(
    ({ service }) =>
      new Promise((resolve, reject) => {
        const req = http.request(`${service.url}${path}`, { method: 'POST', headers: { 'x-forwarded-for': newIp(), 'content-length': Buffer.byteLength(body), ...headers } });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body: JSON.parse(text), text }));
        });
        req.on('error', reject);
        req.end(body);
      }),
  );
}

/** The user's event channel, open: presence counts them online while it is (the event stream does the same). */
const openChannel = (u: TestUser) => NdjsonClient.open('/v1/stream/events', { authorization: `Bearer ${u.accessToken}` });

describe("Lichess's account, user and bot reads (DESIGN 2.13)", () => {
  describe('GET /api/account', () => {
    it("answers the caller's profile as Lichess's UserExtended: id the lower-cased username, perfs, createdAt in ms, seenAt now, url, count", async () => {
      const { user, token } = await withToken(['board:play']);
      const { clock } = await testService();
      const before = clock.now();
      const res = await get('/api/account', token.token);
      const after = clock.now();
      assert.equal(res.status, 200, res.text);
      const me = res.body;
      assert.ok(me.seenAt >= before && me.seenAt <= after, `seenAt ${me.seenAt}: a new account is seen by this very request, before any presence write`);
      assert.equal(me.id, lichessId(user));
      assert.equal(me.username, user.username);
      assert.equal(me.title, undefined, 'no title for a person');
      assert.equal(typeof me.createdAt, 'number');
      assert.ok(Math.abs(me.createdAt - Date.now()) < 60_000, 'createdAt is ms since the epoch');
      assert.equal(me.url, `http://chess.test/@/${user.username}`);
      assert.deepEqual(Object.keys(me.perfs).sort(), ['blitz', 'bullet', 'classical', 'correspondence', 'puzzle', 'rapid']);
      assert.deepEqual(me.perfs.blitz, { games: 0, rating: 1500, rd: 500, prog: 0, prov: true }, 'a new rating is provisional');
      assert.deepEqual(me.count, { all: 0, rated: 0, draw: 0, loss: 0, win: 0, bookmark: 0, playing: 0, import: 0, me: 0 });
    });

    it('is served again under /lichess for a proxy that routes by prefix', async () => {
      const { user, token } = await withToken(['board:play']);
      const res = await get('/lichess/api/account', token.token);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.username, user.username);
    });

    it('gives each perf its games, rating, rd and prog as the rated games left them (lichess-bot matches opponents by them)', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      await foolsMate(w, b);
      const token = await personalToken(b, ['bot:play']);
      const me = (await get('/api/account', token.token)).body;
      const v1 = (await api('GET', `/v1/users/${b.id}`, as(b))).body.data;
      assert.equal(me.perfs.blitz.games, 1);
      assert.equal(me.perfs.blitz.rating, v1.ratings.blitz, "this service's blitz rating");
      assert.equal(me.perfs.blitz.prog, v1.ratings.blitz - 1500, 'prog: the change over the last rated games');
      assert.ok(me.perfs.blitz.rd < 500 && me.perfs.blitz.rd > 110, `rd ${me.perfs.blitz.rd}`);
      assert.equal(me.perfs.blitz.prov, true, 'still provisional after one game');
      assert.deepEqual(me.perfs.bullet, { games: 0, rating: 1500, rd: 500, prog: 0, prov: true }, 'the other categories untouched');
      assert.deepEqual(me.count, { all: 1, rated: 1, draw: 0, loss: 0, win: 1, bookmark: 0, playing: 0, import: 0, me: 0 });
    });

    it('reads with any personal token, whatever its scopes, and names a bot BOT (lichess-bot upgrades an account without it)', async () => {
      const { token } = await withToken(['challenge:read']);
      assert.equal((await get('/api/account', token.token)).status, 200);
      const bot = await newBot();
      assert.equal((await get('/api/account', bot.token.token)).body.title, 'BOT');
    });

    it('answers 401 {"error"} without a token, with an unknown one, and with a deleted one', async () => {
      assertLichessError(await get('/api/account'), 401);
      assertLichessError(await get('/api/account', 'cst_nothing'), 401);
      const { user, token } = await withToken(['bot:play']);
      await deleteToken(user, token.id);
      assertLichessError(await get('/api/account', token.token), 401);
    });
  });

  describe('GET /api/account/playing', () => {
    it('lists the games in progress as nowPlaying, each as the player sees it: colour, fen, turn, last move in UCI, opponent, clock', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b, { initial_time: 300, increment: 3 });
      await play(game, w, 'e2', 'e4');
      const [wt, bt] = await Promise.all([personalToken(w, ['board:play']), personalToken(b, ['board:play'])]);
      const white = (await get('/api/account/playing', wt.token)).body;
      const black = (await get('/api/account/playing', bt.token)).body;
      assert.equal(white.nowPlaying.length, 1);
      assert.deepEqual({ ...black.nowPlaying[0], secondsLeft: 0 }, {
        gameId: game.id,
        fullId: game.id,
        color: 'black',
        fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1',
        hasMoved: false,
        isMyTurn: true,
        lastMove: 'e2e4',
        opponent: { id: lichessId(w), username: w.username, rating: 1500 },
        perf: 'blitz',
        rated: true,
        secondsLeft: 0,
        source: 'friend',
        speed: 'blitz',
        status: 'started',
        variant: { key: 'standard', name: 'Standard' },
      });
      assert.ok(black.nowPlaying[0].secondsLeft > 290 && black.nowPlaying[0].secondsLeft <= 300, `secondsLeft ${black.nowPlaying[0].secondsLeft}`);
      assert.equal(black.nbMyTurn, 1);
      assert.equal(white.nbMyTurn, 0);
      assert.deepEqual([white.nowPlaying[0].isMyTurn, white.nowPlaying[0].hasMoved, white.nowPlaying[0].color], [false, true, 'white']);
    });

    it('lists the games where it is your turn first, counts them in nbMyTurn, and keeps to nb', async () => {
      const [me, a, c] = await Promise.all([createUser(), createUser(), createUser()]);
      const correspondence = { time_control: 'correspondence', days_per_move: 3 } as const;
      // Two correspondence games: in the first the opponent (White) has moved, in the second it is the opponent's turn.
      const first = await createActiveGame(a, me, correspondence);
      await play(first, a, 'd2', 'd4');
      const second = await createActiveGame(c, me, correspondence);
      const token = await personalToken(me, ['bot:play']);
      const all = (await get('/api/account/playing', token.token)).body;
      assert.deepEqual(all.nowPlaying.map((g: { gameId: string }) => g.gameId), [first.id, second.id]);
      assert.equal(all.nbMyTurn, 1);
      assert.equal(all.nowPlaying[0].speed, 'correspondence');
      assert.ok(all.nowPlaying[0].secondsLeft > 3 * 86_400 - 60, 'the time left of the period on my turn');
      const one = (await get('/api/account/playing?nb=1', token.token)).body;
      assert.deepEqual([one.nowPlaying.length, one.nbMyTurn], [1, 1]);
      for (const nb of ['0', '51', 'x']) assertLichessError(await get(`/api/account/playing?nb=${nb}`, token.token), 400, /^nb: /);
    });
  });

  describe('POST /api/token/test', () => {
    it("answers each token with its user's id, its scopes comma-separated and its expiry in ms (null: never); an unknown one null", async () => {
      const { user, token } = await withToken(['bot:play', 'challenge:read']);
      const expiring = await personalToken(user, ['board:play'], new Date(Date.now() + 3_600_000));
      const res = await api('POST', '/api/token/test', { rawBody: `${token.token},cst_unknown, ${expiring.token}`, headers: { 'content-type': 'text/plain' }, ip: newIp() });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body[token.token], { userId: lichessId(user), scopes: 'bot:play,challenge:read', expires: null });
      assert.equal(res.body.cst_unknown, null);
      assert.equal(res.body[expiring.token].scopes, 'board:play');
      assert.ok(Math.abs(res.body[expiring.token].expires - (Date.now() + 3_600_000)) < 60_000, 'expires: ms since the epoch');
    });

    it('reads the body whatever its Content-Type: none (lichess-bot posts a bare string) or a form (curl -d)', async () => {
      const { user, token } = await withToken(['bot:play']);
      const bare = await rawPost('/api/token/test', token.token);
      assert.equal(bare.status, 200, bare.text);
      assert.equal(bare.body[token.token].userId, lichessId(user));
      const form = await rawPost('/api/token/test', token.token, { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(form.body[token.token].scopes, 'bot:play');
    });

    it('answers null for a deleted token and for an expired one', async () => {
      const { user, token } = await withToken(['bot:play']);
      const expiring = await personalToken(user, ['bot:play'], new Date(Date.now() + 60_000));
      await deleteToken(user, token.id);
      const res = await rawPost('/api/token/test', `${token.token},${expiring.token}`);
      assert.deepEqual(res.body, { [token.token]: null, [expiring.token]: res.body[expiring.token] });
      assert.notEqual(res.body[expiring.token], null);
      const later = await withClockSkipped(120_000, () => rawPost('/api/token/test', expiring.token));
      assert.deepEqual(later.body, { [expiring.token]: null });
    });

    it('answers 400 {"error"} to an empty body and to more than 1,000 tokens', async () => {
      assertLichessError(await rawPost('/api/token/test', ''), 400);
      assertLichessError(await rawPost('/api/token/test', ' , '), 400, /tokens/);
      assertLichessError(await rawPost('/api/token/test', Array.from({ length: 1001 }, (_, i) => `t${i}`).join(',')), 400, /1000/);
    });
  });

  describe('GET /api/user/{username}', () => {
    it("answers anyone's public data by their name in any case, without a token; 404 {\"error\"} for nobody", async () => {
      const [u, v] = await Promise.all([createUser({ full_name: 'Ada Lovelace' }), createUser()]);
      const game = await createActiveGame(u, v);
      const res = await get(`/api/user/${u.username.toUpperCase()}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, lichessId(u));
      assert.equal(res.body.username, u.username);
      assert.deepEqual(res.body.profile, { realName: 'Ada Lovelace' });
      assert.equal(res.body.playing, `http://chess.test/play/${game.id}`, 'the live game it plays');
      assert.equal(res.body.count.playing, 1);
      assert.equal((await get(`/api/user/${u.username}?profile=false`)).body.profile, undefined);
      assertLichessError(await get('/api/user/nobody_by_this_name'), 404);
      assertLichessError(await get('/api/user/%ZZ'), 400, /decode/);
      assertLichessError(await get(`/api/user/${u.username}?profile=maybe`), 400, /^profile: /);
    });
  });

  describe('GET /api/users/status', () => {
    it('says who is online (a live event channel) and who plays a live game, leaving unknown ids out', async () => {
      const [online, player, opponent, idle] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
      const channel = await openChannel(online);
      const game = await createActiveGame(player, opponent);
      // The channel's presence write lands as it opens: wait for it, not for time.
      await until('online once its channel is open', async () => (await get(`/api/users/status?ids=${lichessId(online)}`)).body[0]?.online);
      const ids = [online, player, idle].map(lichessId).join(',');
      const res = await get(`/api/users/status?ids=${ids},nobody_at_all`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.map((s: { id: string }) => s.id), [online, player, idle].map(lichessId), 'in the order asked, nobody left out');
      assert.deepEqual(res.body[0], { id: lichessId(online), name: online.username, online: true });
      assert.equal(res.body[1].playing, true);
      assert.deepEqual(res.body[2], { id: lichessId(idle), name: idle.username }, 'never seen, not playing');
      const withIds = await get(`/api/users/status?ids=${lichessId(player)}&withGameIds=true`);
      assert.equal(withIds.body[0].playingId, game.id);
      channel.close();
      await until('offline once the channel closed', async () => (await get(`/api/users/status?ids=${lichessId(online)}`)).body[0].online === undefined);
    });

    it('answers 400 {"error"} without ids, and past 100 of them', async () => {
      assertLichessError(await get('/api/users/status'), 400, /^ids: /);
      assertLichessError(await get('/api/users/status?ids=,'), 400, /^ids: /);
      assertLichessError(await get(`/api/users/status?ids=${Array.from({ length: 101 }, (_, i) => `u${i}`).join(',')}`), 400, /100/);
    });
  });

  describe('POST /api/bot/account/upgrade', () => {
    it('makes an account that never played a bot for good: {"ok": true}, title BOT, and /v1 and the web profile say bot', async () => {
      const { user, token } = await withToken(['bot:play']);
      assert.equal((await api('GET', `/v1/users/${user.id}`, as(user))).body.data.bot, false);
      const res = await post('/api/bot/account/upgrade', token.token);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { ok: true });
      assert.equal((await get(`/api/user/${user.username}`)).body.title, 'BOT');
      assert.equal((await api('GET', `/v1/users/by-username/${user.username}`, as(user))).body.data.bot, true);
      assert.deepEqual((await post('/api/bot/account/upgrade', token.token)).body, { ok: true }, 'a bot stays a bot');
    });

    it('refuses with 400 {"error"} an account that has played a game, as Lichess does', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      await foolsMate(w, b);
      const token = await personalToken(w, ['bot:play']);
      assertLichessError(await post('/api/bot/account/upgrade', token.token), 400, /played/);
      assert.equal((await get('/api/account', token.token)).body.title, undefined);
    });

    it('refuses with 400 {"error"} while the account has an open seek or is in an arena (a bot may not)', async () => {
      const { user, token } = await withToken(['bot:play']);
      const seek = await api('POST', '/v1/games', as(user, { type: 'matchmaking', ...uniquePool(), color: 'random' }));
      assert.equal(seek.status, 201, seek.text);
      assertLichessError(await post('/api/bot/account/upgrade', token.token), 400, /seek/);
      assert.equal((await api('POST', `/v1/games/${seek.body.data.id}/cancel`, as(user))).status, 200);
      const starts = new Date(Date.now() + 600_000).toISOString();
      const arena = await api('POST', '/v1/tournaments', as(user, { name: `Arena no${process.hrtime.bigint() % 100000n}`, time_control: 'blitz', initial_time: 180, increment: 2, starts_at: starts, duration_minutes: 30 }));
      assert.equal(arena.status, 201, arena.text);
      assert.equal((await api('POST', `/v1/tournaments/${arena.body.data.id}/join`, as(user))).status, 200);
      assertLichessError(await post('/api/bot/account/upgrade', token.token), 400, /arena/);
      assert.equal((await api('POST', `/v1/tournaments/${arena.body.data.id}/withdraw`, as(user))).status, 200);
      assert.equal((await post('/api/bot/account/upgrade', token.token)).status, 200, 'nothing in the way any more');
    });

    it('needs bot:play: 401 without a token, 403 {"error"} with a token without it', async () => {
      assertLichessError(await post('/api/bot/account/upgrade'), 401);
      const { token } = await withToken(['board:play']);
      assertLichessError(await post('/api/bot/account/upgrade', token.token), 403, /bot:play/);
    });
  });

  describe('GET /api/bot/online', () => {
    it('streams the bots online as NDJSON, one Lichess User a line with title BOT; not people, not bots that left', async () => {
      const [a, b] = await Promise.all([newBot(), newBot()]);
      const person = await createUser();
      const [channelA, channelB, channelP] = await Promise.all([openChannel(a.user), openChannel(b.user), openChannel(person)]);
      const online = async () => {
        const res = await get('/api/bot/online?nb=512');
        assert.equal(res.status, 200, res.text);
        assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
        return ndjsonLines(res);
      };
      const listed = (bots: Array<{ id: string }>, u: TestUser) => bots.some((x) => x.id === lichessId(u));
      // The channels' presence writes land as they open: wait for them, not for time.
      const bots = await until('both bots listed', async () => {
        const list = await online();
        return listed(list, a.user) && listed(list, b.user) && list;
      });
      const mine = bots.find((u) => u.id === lichessId(a.user));
      assert.equal(mine.username, a.user.username);
      assert.equal(mine.title, 'BOT');
      assert.deepEqual(mine.perfs.blitz, { games: 0, rating: 1500, rd: 500, prog: 0, prov: true });
      assert.equal(typeof mine.seenAt, 'number');
      assert.ok(!listed(bots, person), 'a person is no bot');
      assert.ok(bots.every((u) => u.title === 'BOT'));
      channelB.close();
      await until('the bot that left is no longer listed', async () => !listed(await online(), b.user));
      assert.ok(listed(await online(), a.user), 'the other one still is');
      assert.equal(ndjsonLines(await get('/api/bot/online?nb=1')).length, 1, 'nb caps the list');
      assertLichessError(await get('/api/bot/online?nb=0'), 400, /^nb: /);
      channelA.close();
      channelP.close();
    });
  });

  describe('GET /api/games/user/{username}', () => {
    it("exports a user's finished games newest first as PGN by default (Lichess's default), one game after another", async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const first = await foolsMate(w, b);
      const second = await foolsMate(b, w);
      const res = await get(`/api/games/user/${w.username}`);
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/x-chess-pgn/);
      const sites = [...res.text.matchAll(/\[Site "http:\/\/chess\.test\/play\/([0-9a-f-]+)"\]/g)].map((m) => m[1]);
      assert.deepEqual(sites, [second.id, first.id]);
      assert.doesNotMatch(res.text, /%clk/, 'no clocks unless asked (clocks=false by default on Lichess)');
      assert.doesNotMatch(res.text, /\[Opening /, 'no opening unless asked');
      const asked = (await get(`/api/games/user/${w.username}?clocks=true&opening=true&max=1`)).text;
      assert.match(asked, /\[%clk /);
      assert.match(asked, /\[Opening "/);
      assert.equal([...asked.matchAll(/\[Site /g)].length, 1, 'max=1');
    });

    it("streams Lichess's GameJson, one a line, with Accept: application/x-ndjson", async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await foolsMate(w, b);
      const res = await get(`/api/games/user/${b.username}?clocks=true&opening=true`, undefined, { accept: 'application/x-ndjson' });
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
      const [line, ...rest] = ndjsonLines(res);
      assert.deepEqual(rest, []);
      assert.equal(line.id, game.id);
      assert.equal(line.rated, true);
      assert.equal(line.variant, 'standard');
      assert.equal(line.speed, 'blitz');
      assert.equal(line.perf, 'blitz');
      assert.equal(line.status, 'mate');
      assert.equal(line.winner, 'black');
      assert.equal(line.moves, 'f3 e5 g4 Qh4#');
      assert.deepEqual(line.players.white.user, { id: lichessId(w), name: w.username });
      assert.equal(line.players.white.rating, 1500);
      assert.equal(typeof line.players.black.ratingDiff, 'number');
      assert.deepEqual(line.clock, { initial: 300, increment: 0, totalTime: 300 });
      assert.equal(line.clocks.length, 4, 'a clock per ply, centiseconds');
      assert.ok(line.clocks.every((c: number) => c > 29_000 && c <= 30_000));
      assert.equal(typeof line.opening.eco, 'string');
      assert.equal(typeof line.createdAt, 'number');
      assert.ok(line.lastMoveAt >= line.createdAt);
    });

    it('filters as Lichess does: max, color, vs, rated, perfType (several), since and until in ms', async () => {
      const [me, a, c] = await Promise.all([createUser(), createUser(), createUser()]);
      const g1 = await foolsMate(me, a); // me White, rated blitz
      const g2 = await foolsMate(c, me, { rated: false }); // me Black, casual
      const g3 = await foolsMate(me, c, { time_control: 'rapid', initial_time: 900, increment: 10 }); // me White, rapid
      const ids = async (query: string) =>
        ndjsonLines(await get(`/api/games/user/${me.username}?${query}`, undefined, { accept: 'application/x-ndjson' })).map((g) => g.id);
      assert.deepEqual(await ids(''), [g3.id, g2.id, g1.id]);
      assert.deepEqual(await ids('max=2'), [g3.id, g2.id]);
      assert.deepEqual(await ids('color=black'), [g2.id]);
      assert.deepEqual(await ids(`vs=${c.username.toUpperCase()}`), [g3.id, g2.id]);
      assert.deepEqual(await ids('rated=false'), [g2.id]);
      assert.deepEqual(await ids('perfType=rapid'), [g3.id]);
      assert.deepEqual(await ids('perfType=blitz,rapid'), [g3.id, g2.id, g1.id]);
      assert.deepEqual(await ids('perfType=chess960'), [], 'a variant: no game here is one');
      assert.deepEqual(await ids('finished=false'), [], 'only finished games are exported');
      const { service } = await testService();
      const { rows } = await service.ctx.pool.query('SELECT id, finished_at FROM games WHERE id = ANY($1::uuid[])', [[g2.id]]);
      const t = (rows[0].finished_at as Date).getTime();
      assert.deepEqual(await ids(`since=${t}`), [g3.id, g2.id]);
      assert.deepEqual(await ids(`until=${t}`), [g1.id]);
    });

    it('answers 404 {"error"} for nobody and 400 {"error"} for a bad parameter', async () => {
      const u = await createUser();
      assertLichessError(await get('/api/games/user/nobody_by_this_name'), 404);
      for (const [query, field] of [['max=0', 'max'], ['color=green', 'color'], ['perfType=fast', 'perfType'], ['since=yesterday', 'since'], ['sort=dateAsc', 'sort'], ['clocks=yes', 'clocks']]) {
        assertLichessError(await get(`/api/games/user/${u.username}?${query}`), 400, new RegExp(`^${field}: `));
      }
    });
  });

  describe('GET /game/export/{id}', () => {
    it("answers one game's PGN by default (lichess-bot saves it after each game), with clocks and the opening", async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await foolsMate(w, b);
      const res = await get(`/game/export/${game.id}`);
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/x-chess-pgn/);
      assert.match(res.text, new RegExp(`\\[White "${w.username}"\\]`));
      assert.match(res.text, /\[Result "0-1"\]/);
      assert.match(res.text, /\[%clk /);
      assert.match(res.text, /\[ECO "/);
      assert.doesNotMatch((await get(`/game/export/${game.id}?clocks=false`)).text, /%clk/);
    });

    it("answers Lichess's GameJson with Accept: application/json, the PGN inside with pgnInJson", async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b);
      await play(game, w, 'e2', 'e4');
      const res = await get(`/game/export/${game.id}?pgnInJson=true`, undefined, { accept: 'application/json' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, game.id);
      assert.equal(res.body.status, 'started', 'a game in progress');
      assert.equal(res.body.moves, 'e4');
      assert.match(res.body.pgn, /1\. e4/);
      assert.equal(res.body.winner, undefined);
    });

    it('answers 404 {"error"} for an unknown game, a malformed id and a pending challenge', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const pending = await sendChallenge(w, b);
      assertLichessError(await get(`/game/export/${randomUUID()}`), 404);
      assertLichessError(await get('/game/export/abcdefgh'), 404);
      assertLichessError(await get(`/game/export/${pending.body.data.id}`, undefined, { accept: 'application/json' }), 404);
    });
  });
});

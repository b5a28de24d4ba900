import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client, type Room } from '@colyseus/sdk';
import { as } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { expectNo500 } from '../helpers/malformed.ts';
import { until } from '../helpers/poll.ts';
import { receiverPerTest, type Received } from '../support/receiver.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { subscribeUser, WsClient } from '../helpers/ws.ts';

const TOURNAMENT_KEYS = [
  'creator', 'ends_at', 'id', 'increment', 'initial_time', 'joined', 'max_players', 'name', 'player_count', 'rated',
  'standings', 'standings_total', 'starts_at', 'status', 'time_control',
].sort();
const STANDING_KEYS = ['draws', 'games', 'losses', 'performance', 'rank', 'score', 'streak', 'user', 'wins', 'withdrawn'];
const BLITZ = { time_control: 'blitz', initial_time: 180, increment: 2 } as const;
const MINUTE = 60_000;

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
// Numbered, not random: random hex can spell a refused word ("c117" reads "clit", and the name
// is refused with 400 once in a few thousand runs).
let arenas = 0;
const body = (o: object = {}) => ({ name: `Arena no${++arenas}`, ...BLITZ, starts_at: inMs(10 * MINUTE), duration_minutes: 30, ...o });
const anonymous = () => ({ ip: newIp() });
const who = (u: TestUser) => ({ id: u.id, username: u.username });
const sql = async (text: string, params: unknown[] = []) => (await (await testService()).service.ctx.pool.query(text, params)).rows;

const create = (user: TestUser, o: object = {}) => api('POST', '/v1/tournaments', as(user, body(o)));
async function newTournament(user: TestUser, o: object = {}) {
  const res = await create(user, o);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}
const get = (id: string, user?: TestUser) => api('GET', `/v1/tournaments/${id}`, user ? as(user) : anonymous());
const join = (id: string, user: TestUser) => api('POST', `/v1/tournaments/${id}/join`, as(user));
const withdraw = (id: string, user: TestUser) => api('POST', `/v1/tournaments/${id}/withdraw`, as(user));
/** A join as a bot makes it: again after `Retry-After` while the tournament is busy (503). */
async function joinRetrying(id: string, user: TestUser): Promise<ApiResponse> {
  for (;;) {
    const res = await join(id, user);
    if (res.status !== 503) return res;
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
  }
}
const users = (n: number) => Promise.all(Array.from({ length: n }, () => createUser()));

function assertError(res: ApiResponse, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

/** Waits until the sweeper started the tournament (it starts within a second of starts_at). */
const running = (id: string) => until(`tournament ${id} running`, async () => (await get(id)).body.data.status === 'running', { ms: 10_000, everyMs: 50 });

describe('tournaments', () => {
  // A creator of its own for each test: creating counts against the write limit (30 a minute).
  let creator: TestUser;
  beforeEach(async () => {
    creator = await createUser();
  });

  describe('creating', () => {
    it('creates an upcoming arena: 201 Tournament with every field, the creator not joined', async () => {
      const startsAt = inMs(10 * MINUTE);
      const res = await create(creator, { name: '  Sunday Blitz Arena  ', starts_at: startsAt, duration_minutes: 45 });
      assert.equal(res.status, 201, res.text);
      const t = res.body.data;
      assert.deepEqual(Object.keys(t).sort(), TOURNAMENT_KEYS);
      assert.deepEqual(
        { ...t, id: 0 },
        {
          id: 0,
          name: 'Sunday Blitz Arena',
          creator: who(creator),
          time_control: 'blitz',
          initial_time: 180,
          increment: 2,
          rated: true,
          starts_at: new Date(startsAt).toISOString(),
          ends_at: new Date(Date.parse(startsAt) + 45 * MINUTE).toISOString(),
          status: 'upcoming',
          player_count: 0,
          max_players: null,
          joined: false,
          standings: [],
          standings_total: 0,
        },
      );
    });

    it('keeps rated: false and max_players, and accepts a start up to 5 s in the past and 30 days ahead', async () => {
      const t = await newTournament(creator, { rated: false, max_players: 2, starts_at: inMs(-3000) });
      assert.deepEqual([t.rated, t.max_players], [false, 2]);
      assert.equal((await create(creator, { starts_at: inMs(30 * 24 * 60 * MINUTE - MINUTE) })).status, 201);
    });

    it('refuses bad fields, naming each: name, time control, start, duration, max_players', async () => {
      const cases: Array<[object, string[]]> = [
        [{ name: 'ab' }, ['name']],
        [{ name: 'x'.repeat(61) }, ['name']],
        [{ name: 'Shit Happens Arena' }, ['name']],
        [{ name: 'Tab\there' }, ['name']],
        [{ time_control: 'bullet' }, ['time_control']],
        [{ initial_time: 0, increment: 0 }, ['initial_time']],
        [{ starts_at: inMs(-60_000) }, ['starts_at']],
        [{ starts_at: inMs(31 * 24 * 60 * MINUTE) }, ['starts_at']],
        [{ starts_at: 'tomorrow' }, ['starts_at']],
        [{ starts_at: '2030-01-01T10:00:00' }, ['starts_at']],
        [{ duration_minutes: 0 }, ['duration_minutes']],
        [{ duration_minutes: 361 }, ['duration_minutes']],
        [{ duration_minutes: 2.5 }, ['duration_minutes']],
        [{ max_players: 1 }, ['max_players']],
        [{ max_players: 10_001 }, ['max_players']],
        [{ rated: 'yes', duration_minutes: '30' }, ['duration_minutes', 'rated']],
      ];
      for (const [o, fields] of cases) {
        const res = await create(creator, o);
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(Object.keys(res.body.error.details).sort(), fields, JSON.stringify(o));
      }
    });

    it('refuses names with direction overrides, zero-width or other format characters, and look-alike letters from another script', async () => {
      const names = ['Arena \u202eCup', 'Zero\u200bWidth', 'BOM\ufeffArena', 'Join\u200dArena', 'Bl\u0456tz Arena', 'P\u0430ypal Cup'];
      for (const name of names) {
        const res = await create(creator, { name });
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(Object.keys(res.body.error.details), ['name'], JSON.stringify(name));
      }
    });

    it('stores a name in its plain form (NFKC: full-width and styled letters fold) and keeps names in one other script', async () => {
      assert.equal((await newTournament(creator, { name: '  ＢＬＩＴＺ \u{1d400}rena  ' })).name, 'BLITZ Arena');
      assert.equal((await newTournament(creator, { name: 'Шахматы Arena' })).name, 'Шахматы Arena');
    });

    it('counts the shortest duration from TOURNAMENT_MIN_MINUTES (1 in the tests, 10 by default)', async () => {
      assert.equal((await create(creator, { duration_minutes: 1 })).status, 201);
      const { config } = await testService();
      assert.equal(config.tournamentMinMinutes, 1);
    });

    it('lets a user have at most 5 arenas upcoming or running (409 TOURNAMENT_LIMIT); a finished one no longer counts', async () => {
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await newTournament(creator));
      const refused = await create(creator);
      assertError(refused, 409, 'TOURNAMENT_LIMIT');
      assert.match(refused.body.error.message, /5/);
      // Running ones count too; finished ones do not.
      await sql(`UPDATE tournaments SET status = 'running' WHERE id = $1`, [made[0].id]);
      assertError(await create(creator), 409, 'TOURNAMENT_LIMIT');
      await sql(`UPDATE tournaments SET status = 'finished' WHERE id = $1`, [made[1].id]);
      assert.equal((await create(creator)).status, 201);
      // Someone else's arenas are theirs.
      assert.equal((await create(await createUser())).status, 201);
    });

    it('lets exactly 5 of many concurrent creations by one user in', async () => {
      const answers = await Promise.all(Array.from({ length: 9 }, () => create(creator)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 201, 201, 201, 409, 409, 409, 409]);
    });

    it('needs a token (401) and answers every malformed body with a 4xx envelope', async () => {
      assertError(await api('POST', '/v1/tournaments', { body: body(), ...anonymous() }), 401, 'UNAUTHORIZED');
      await expectNo500('POST', '/v1/tournaments', {
        fields: ['name', 'time_control', 'initial_time', 'increment', 'rated', 'starts_at', 'duration_minutes', 'max_players'],
        token: async () => (await createUser()).accessToken,
      });
    });
  });

  describe('reading and listing', () => {
    it('reads an arena publicly, with `joined` for the caller; unknown and malformed ids are 404 TOURNAMENT_NOT_FOUND', async () => {
      const t = await newTournament(creator);
      const [player] = await users(1);
      assert.equal((await join(t.id, player)).status, 200);
      const seen = await get(t.id, player);
      assert.equal(seen.status, 200);
      assert.deepEqual([seen.body.data.joined, seen.body.data.player_count], [true, 1]);
      assert.equal((await get(t.id)).body.data.joined, false);
      assert.equal((await get(t.id, creator)).body.data.joined, false);
      for (const id of [randomUUID(), 'not-a-uuid', '1']) assertError(await get(id), 404, 'TOURNAMENT_NOT_FOUND');
      assertError(await api('GET', `/v1/tournaments/${t.id}`, { token: 'junk', ...anonymous() }), 401, 'UNAUTHORIZED');
    });

    it('lists upcoming arenas by starts_at ascending, without their standings; -starts_at reverses', async () => {
      const base = 20 * 24 * 60 * MINUTE + Math.floor(Math.random() * 1000) * MINUTE;
      const made: any[] = [];
      for (const offset of [3, 1, 2]) made.push(await newTournament(creator, { starts_at: inMs(base + offset * MINUTE) }));
      const mine = async (query: string) => {
        const res = await api('GET', `/v1/tournaments?status=upcoming&limit=100${query}`, anonymous());
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.pagination.total >= 3 && res.body.pagination.total <= 100, 'one page holds them all');
        for (const item of res.body.data) assert.equal(item.standings, undefined);
        const ids = made.map((t) => t.id);
        return res.body.data.filter((t: any) => ids.includes(t.id)).map((t: any) => made.findIndex((m) => m.id === t.id));
      };
      assert.deepEqual(await mine(''), [1, 2, 0]);
      assert.deepEqual(await mine('&sort=-starts_at'), [0, 2, 1]);
    });

    it('lists finished arenas by ends_at, newest first, and running ones by default', async () => {
      const [a, b] = [await newTournament(creator), await newTournament(creator)];
      await sql(`UPDATE tournaments SET status = 'finished', ends_at = now() + interval '1 hour' + $2 * interval '1 second' WHERE id = $1`, [a.id, 1]);
      await sql(`UPDATE tournaments SET status = 'finished', ends_at = now() + interval '1 hour' + $2 * interval '1 second' WHERE id = $1`, [b.id, 2]);
      const finished = await api('GET', '/v1/tournaments?status=finished&limit=2', anonymous());
      assert.deepEqual(finished.body.data.map((t: any) => t.id), [b.id, a.id]);
      const live = await newTournament(creator, { starts_at: inMs(0) });
      await running(live.id);
      const listed = await api('GET', '/v1/tournaments?limit=100', anonymous());
      assert.ok(listed.body.data.every((t: any) => t.status === 'running'));
      assert.ok(listed.body.data.some((t: any) => t.id === live.id));
    });

    it('refuses an unknown status, sort or order and bad pages, naming each', async () => {
      const res = await api('GET', '/v1/tournaments?status=paused&sort=name&order=up&page=0&limit=101', anonymous());
      assertError(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(res.body.error.details).sort(), ['limit', 'order', 'page', 'sort', 'status']);
    });

    it('pages through every standing with GET /tournaments/{id}/standings', async () => {
      const t = await newTournament(creator);
      const players = await users(3);
      for (const p of players) assert.equal((await join(t.id, p)).status, 200);
      const page = await api('GET', `/v1/tournaments/${t.id}/standings?limit=2&page=2`, anonymous());
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(page.body.pagination, { page: 2, limit: 2, total: 3, total_pages: 2, totalPages: 2, hasNext: false, hasPrev: true });
      assert.equal(page.body.data.length, 1);
      const [s] = page.body.data;
      assert.deepEqual(Object.keys(s).sort(), STANDING_KEYS);
      // Nobody has played: equal scores, no performance, so the order is the order of joining.
      assert.deepEqual(s, { rank: 3, user: who(players[2]), score: 0, games: 0, wins: 0, draws: 0, losses: 0, streak: 0, performance: null, withdrawn: false });
      const detail = (await get(t.id)).body.data;
      assert.deepEqual(detail.standings.map((x: any) => x.user.id), players.map((p) => p.id));
      assert.equal(detail.standings_total, 3);
      assertError(await api('GET', `/v1/tournaments/${randomUUID()}/standings`, anonymous()), 404, 'TOURNAMENT_NOT_FOUND');
    });
  });

  describe('joining and withdrawing', () => {
    it('joins (200, joined), and joining again changes nothing', async () => {
      const t = await newTournament(creator);
      const [p] = await users(1);
      const first = await join(t.id, p);
      assert.equal(first.status, 200);
      assert.deepEqual([first.body.data.joined, first.body.data.player_count, first.body.data.standings_total], [true, 1, 1]);
      const again = await join(t.id, p);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.data, first.body.data);
    });

    it('refuses a join past max_players with 409 TOURNAMENT_FULL, and lets a withdrawn place be taken', async () => {
      const t = await newTournament(creator, { max_players: 2 });
      const [a, b, c] = await users(3);
      assert.equal((await join(t.id, a)).status, 200);
      assert.equal((await join(t.id, b)).status, 200);
      assertError(await join(t.id, c), 409, 'TOURNAMENT_FULL');
      assert.equal((await join(t.id, a)).status, 200, 'a player already in is not refused');
      assert.equal((await withdraw(t.id, a)).status, 200);
      assert.equal((await join(t.id, c)).status, 200);
      assertError(await join(t.id, a), 409, 'TOURNAMENT_FULL');
    });

    it('lets exactly max_players of many concurrent joiners in', async () => {
      const t = await newTournament(creator, { max_players: 5 });
      const joiners = await users(12);
      const answers = await Promise.all(joiners.map((p) => join(t.id, p)));
      assert.equal(answers.filter((r) => r.status === 200).length, 5);
      for (const r of answers.filter((x) => x.status !== 200)) assertError(r, 409, 'TOURNAMENT_FULL');
      assert.equal((await get(t.id)).body.data.player_count, 5);
    });

    it('removes a player entirely who withdraws before the start; withdrawing when not joined is 200 as is', async () => {
      const t = await newTournament(creator);
      const [p, q] = await users(2);
      await join(t.id, p);
      const res = await withdraw(t.id, p);
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.data.joined, res.body.data.player_count, res.body.data.standings_total], [false, 0, 0]);
      const notJoined = await withdraw(t.id, q);
      assert.equal(notJoined.status, 200);
      assert.equal(notJoined.body.data.joined, false);
    });

    it('keeps a player who withdraws while it runs in the standings as withdrawn; joining again brings them back', async () => {
      const t = await newTournament(creator, { starts_at: inMs(0) });
      const [p] = await users(1);
      await join(t.id, p);
      await running(t.id);
      const res = await withdraw(t.id, p);
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.data.joined, res.body.data.player_count, res.body.data.standings_total], [false, 0, 1]);
      assert.equal(res.body.data.standings[0].withdrawn, true);
      const back = await join(t.id, p);
      assert.deepEqual([back.body.data.joined, back.body.data.standings[0].withdrawn], [true, false]);
    });

    it('refuses any join or withdrawal once the tournament is over (409 TOURNAMENT_FINISHED); unknown is 404', async () => {
      const t = await newTournament(creator);
      const [p, q] = await users(2);
      await join(t.id, p);
      await sql(`UPDATE tournaments SET status = 'finished' WHERE id = $1`, [t.id]);
      assertError(await join(t.id, q), 409, 'TOURNAMENT_FINISHED');
      assertError(await join(t.id, p), 409, 'TOURNAMENT_FINISHED');
      assertError(await withdraw(t.id, p), 409, 'TOURNAMENT_FINISHED');
      for (const id of [randomUUID(), 'nope']) {
        assertError(await join(id, p), 404, 'TOURNAMENT_NOT_FOUND');
        assertError(await withdraw(id, p), 404, 'TOURNAMENT_NOT_FOUND');
      }
      assertError(await api('POST', `/v1/tournaments/${t.id}/join`, anonymous()), 401, 'UNAUTHORIZED');
    });
  });

  describe('documentation and rooms', () => {
    it('documents every tournament route with its body and errors, and the tournament channel', async () => {
      const { body: doc } = await api('GET', '/v1/openapi.json');
      const create = doc.paths['/tournaments'].post;
      const props = create.requestBody.content['application/json'].schema.properties;
      assert.deepEqual(Object.keys(props).sort(), ['duration_minutes', 'increment', 'initial_time', 'max_players', 'name', 'rated', 'starts_at', 'time_control']);
      assert.ok(doc.paths['/tournaments'].get.responses['200'].content['application/json'].schema.properties.pagination);
      assert.ok(doc.paths['/tournaments/{id}/standings'].get);
      assert.match(doc.paths['/tournaments/{id}/join'].post.responses['409'].description, /TOURNAMENT_FULL.*TOURNAMENT_FINISHED|TOURNAMENT_FINISHED.*TOURNAMENT_FULL/);
      assert.match(doc.paths['/tournaments/{id}'].get.responses['404'].description, /TOURNAMENT_NOT_FOUND/);
      assert.match(create.responses['409'].description, /TOURNAMENT_LIMIT/);
      const realtime = doc['x-websockets'].find((s: { name: string }) => s.name === 'realtime').description;
      for (const word of ['tournament:<id>', 'pairing', 'standings', 'tournament_pairing', 'tournament_started']) assert.ok(realtime.includes(word), word);
    });

    it('refuses a client that tries to join a tournament’s room (404), leaving it hosting', async () => {
      const t = await newTournament(creator, { starts_at: inMs(0) });
      await running(t.id);
      // Two players: an arena has an actor (and a room) only from its second player on.
      for (const p of await users(2)) await join(t.id, p);
      const [u] = await users(1);
      const { service } = await testService();
      const sdk = new Client(service.url.replace('http', 'ws'));
      await assert.rejects(sdk.joinById(t.id, { token: u.accessToken }), (err: any) => err.code === 404 && /NOT_FOUND/.test(err.message));
      const [row] = await sql('SELECT host, lease_expires_at > now() AS leased FROM tournaments WHERE id = $1', [t.id]);
      assert.equal(row.leased, true);
    });
  });

  describe('running (the actor, over the API)', () => {
    const hooks = receiverPerTest();
    const ofType = (type: string) => (r: Received) => r.json?.type === type;

    it('starts within a second of starts_at: tournament.started to each participant’s webhooks and user channel', async () => {
      const t = await newTournament(creator, { starts_at: inMs(1500) });
      const players = await users(2);
      for (const p of players) {
        await join(t.id, p);
        assert.equal((await api('POST', '/v1/webhooks', as(p, { url: hooks.url, events: ['tournament.started'], secret: 'arena-test-secret-1' }))).status, 201);
      }
      const sockets = await Promise.all(players.map(subscribeUser));
      const started = await Promise.all(sockets.map((s) => s.until('tournament_started', 10_000)));
      for (const m of started) assert.deepEqual(m.tournament, { id: t.id, name: t.name, starts_at: t.starts_at });
      const received = await hooks.receiver.waitFor(2, ofType('tournament.started'));
      assert.deepEqual(received.map((r) => r.json.data), [{ tournament: { id: t.id, name: t.name, starts_at: t.starts_at } }, { tournament: { id: t.id, name: t.name, starts_at: t.starts_at } }]);
      const [row] = await sql('SELECT started_at, starts_at FROM tournaments WHERE id = $1', [t.id]);
      const late = row.started_at.getTime() - row.starts_at.getTime();
      assert.ok(late >= 0, `started ${late} ms early`);
      for (const s of sockets) s.close();
    });

    it('pairs its players into ordinary games a client joins at once, announces the pairing and the standings after the game', async () => {
      const t = await newTournament(creator, { starts_at: inMs(0) });
      const [a, b, watcher] = await users(3);
      const channel = await WsClient.open('/v1/realtime');
      channel.send({ type: 'subscribe', channel: `tournament:${t.id}`, token: watcher.accessToken });
      assert.equal((await channel.next('subscribed')).channel, `tournament:${t.id}`);
      // Following their channels first, as a client does: the second join brings the actor, which pairs at once.
      const [sa, sb] = await Promise.all([subscribeUser(a), subscribeUser(b)]);
      for (const p of [a, b]) await join(t.id, p);
      const [pa, pb] = await Promise.all([sa.until('tournament_pairing', 10_000), sb.until('tournament_pairing', 10_000)]);
      assert.equal(pa.game_id, pb.game_id);
      assert.deepEqual([pa.color, pb.color].sort(), ['black', 'white']);
      assert.deepEqual({ ...pa, ts: 0, color: 0 }, { channel: `user:${a.id}`, type: 'tournament_pairing', tournament_id: t.id, game_id: pa.game_id, color: 0, opponent: who(b), ts: 0 });
      // The client joins the game's room at once, as the player of its colour.
      const { service } = await testService();
      const sdk = new Client(service.url.replace('http', 'ws'));
      const room: Room = await sdk.joinById(pa.game_id, { token: a.accessToken });
      await new Promise<void>((resolve) => (room.state?.fen ? resolve() : room.onStateChange.once(() => resolve())));
      assert.equal((room.state as any)[pa.color].id, a.id);
      const pairing = await channel.until('pairing', 10_000);
      const white = pa.color === 'white' ? a : b;
      const black = white === a ? b : a;
      assert.deepEqual({ ...pairing, ts: 0 }, { channel: `tournament:${t.id}`, type: 'pairing', game_id: pa.game_id, white: who(white), black: who(black), ts: 0 });
      // An ordinary game, marked with its tournament, in the detail and in lists.
      const detail = (await api('GET', `/v1/games/${pa.game_id}`, as(a))).body.data;
      assert.deepEqual([detail.status, detail.tournament_id, detail.white_player.id, detail.black_player.id], ['active', t.id, white.id, black.id]);
      const listed = await api('GET', `/v1/games?tournament_id=${t.id}`, as(a));
      assert.deepEqual(listed.body.data.map((g: any) => [g.id, g.tournament_id]), [[pa.game_id, t.id]]);
      // Black resigns: the standings follow, on the channel and in the detail.
      assert.equal((await api('POST', `/v1/games/${pa.game_id}/resign`, as(black))).status, 200);
      const standings = await channel.until('standings', 10_000);
      assert.equal(standings.standings_total, 2);
      assert.deepEqual(standings.standings.map((s: any) => [s.user.id, s.score, s.games, s.wins, s.losses]), [[white.id, 2, 1, 1, 0], [black.id, 0, 1, 0, 1]]);
      assert.deepEqual((await get(t.id)).body.data.standings, standings.standings);
      await room.leave().catch(() => {});
      for (const s of [sa, sb, channel]) s.close();
      for (const p of [a, b]) await withdraw(t.id, p);
    });

    it('gives a running arena no actor until its second player joins; the join that makes two brings it, and it pairs them', async () => {
      const t = await newTournament(creator, { starts_at: inMs(0) });
      const [a, b] = await users(2);
      const [sa, sb] = await Promise.all([subscribeUser(a), subscribeUser(b)]);
      await join(t.id, a);
      await running(t.id);
      const hosted = async () => (await sql('SELECT host_epoch FROM tournaments WHERE id = $1', [t.id]))[0].host_epoch > 0;
      assert.equal(await hosted(), false, 'one player: started without an actor');
      assert.equal((await join(t.id, b)).status, 200);
      assert.equal(await hosted(), true, 'hosted by the time the second join answers');
      const [pa, pb] = await Promise.all([sa.until('tournament_pairing', 10_000), sb.until('tournament_pairing', 10_000)]);
      assert.equal(pa.game_id, pb.game_id);
      for (const s of [sa, sb]) s.close();
      for (const p of [a, b]) await withdraw(t.id, p);
    });

    it('lets any valid token follow tournament:<id>; refuses no token, an unknown tournament and a malformed id', async () => {
      const t = await newTournament(creator);
      const [u] = await users(1);
      const socket = await WsClient.open('/v1/realtime');
      socket.send({ type: 'subscribe', channel: `tournament:${t.id}`, id: 1 });
      assert.deepEqual([(await socket.next('error')).code], ['UNAUTHORIZED']);
      socket.send({ type: 'subscribe', channel: `tournament:${randomUUID()}`, token: u.accessToken, id: 2 });
      assert.equal((await socket.next('error')).code, 'TOURNAMENT_NOT_FOUND');
      socket.send({ type: 'subscribe', channel: 'tournament:nope', token: u.accessToken, id: 3 });
      assert.equal((await socket.next('error')).code, 'VALIDATION_ERROR');
      socket.send({ type: 'subscribe', channel: `tournament:${t.id}`, token: u.accessToken, id: 4 });
      assert.equal((await socket.next('subscribed')).id, 4);
      socket.close();
    });

    it('pairs every one of 200 bot players who join over REST, and pairs them again after their games', async function () {
      this.timeout(150_000);
      const t = await newTournament(creator, { starts_at: inMs(0), rated: false });
      const bots = await users(200);
      const byId = new Map(bots.map((b) => [b.id, b]));
      const games = new Map<string, Set<string>>(bots.map((b) => [b.id, new Set()]));
      // The bots hear their pairings on their user channels, 50 channels to a socket. Black
      // resigns at once; should the game have been aborted first (White's first-move deadline is
      // 3 s here, and a loaded machine can miss it), both join again, as a real bot would.
      const sockets = [];
      for (let i = 0; i < bots.length; i += 50) {
        const socket = await WsClient.open('/v1/realtime');
        for (const b of bots.slice(i, i + 50)) socket.send({ type: 'subscribe', channel: `user:${b.id}`, token: b.accessToken });
        socket.ws.on('message', (data) => {
          const m = JSON.parse(String(data));
          if (m.type !== 'tournament_pairing' || m.tournament_id !== t.id) return;
          const me = byId.get(m.channel.slice('user:'.length))!;
          games.get(me.id)!.add(m.game_id);
          if (m.color !== 'black') return;
          void (async () => {
            const resigned = await api('POST', `/v1/games/${m.game_id}/resign`, as(me));
            if (resigned.status !== 200) for (const p of [me, byId.get(m.opponent.id)!]) await joinRetrying(t.id, p);
          })();
        });
        await until('subscribed', () => socket.seen.filter((m) => m.type === 'subscribed').length === Math.min(50, bots.length - i));
        sockets.push(socket);
      }
      for (let i = 0; i < bots.length; i += 50) {
        const joined = await Promise.all(bots.slice(i, i + 50).map((b) => joinRetrying(t.id, b)));
        for (const r of joined) assert.equal(r.status, 200, r.text);
      }
      await until('every bot paired twice', () => [...games.values()].every((g) => g.size >= 2), { ms: 120_000, everyMs: 200 });
      // Every pairing was an ordinary game of this tournament, and every bot played.
      const [counts] = await sql(
        `SELECT count(DISTINCT g.id)::int AS games, count(DISTINCT p)::int AS players FROM games g, unnest(ARRAY[g.white_id, g.black_id]) p WHERE g.tournament_id = $1`,
        [t.id],
      );
      assert.equal(counts.players, 200);
      const told = new Set([...games.values()].flatMap((g) => [...g]));
      assert.ok(counts.games >= told.size && told.size >= 200, `${told.size} games told, ${counts.games} made`);
      for (const s of sockets) s.close();
      await Promise.all(bots.map((b) => withdraw(t.id, b)));
    });
  });
});

import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventBus } from '../../src/events.ts';
import { AppError } from '../../src/errors.ts';
import { LichessEventStream, type EventReads } from '../../src/lichess/eventStream.ts';
import { refuseStream } from '../../src/lichess/errors.ts';
import { createLogger } from '../../src/logger.ts';
import type { Realtime } from '../../src/realtime/index.ts';
import { UserChannelSession } from '../../src/realtime/userChannelSession.ts';
import type { EventGame } from '../../src/services/userEventGames.ts';
import type { ManualClock } from '../helpers/clock.ts';
import { deleteToken, personalToken } from '../helpers/credentials.ts';
import { as, challenge, createActiveGame, play } from '../helpers/games.ts';
import { api, type ApiResponse } from '../helpers/http.ts';
import { NdjsonClient, type NdMessage } from '../helpers/ndjson.ts';
import { until } from '../helpers/poll.ts';
import { standaloneRealtime } from '../helpers/realtimeNode.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// Lichess's event stream (DESIGN 2.13) through the running service, read line by line with a
// plain HTTP client as lichess-bot reads it (lib/lichess.py `get_event_stream`: one JSON object a
// line, a blank line as keep-alive): the line types and fields of Lichess's published OpenAPI
// (tags/board/api-stream-event.yaml, schemas/GameEventInfo.yaml, ChallengeJson.yaml), told of
// challenges and games made and played over /v1.

type Player = TestUser & { token: string; tokenId: string };

async function player(scopes = ['bot:play']): Promise<Player> {
  const user = await createUser();
  const { id, token } = await personalToken(user, scopes);
  return { ...user, token, tokenId: id };
}

const events = (who: { token: string }, path = '/api/stream/event') => NdjsonClient.open(path, { authorization: `Bearer ${who.token}` });

const lichess = (method: string, path: string, who: Player, form?: Record<string, string>): Promise<ApiResponse> =>
  api(method, path, {
    ip: who.ip,
    token: who.token,
    ...(form ? { rawBody: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
  });

/** The next line about `id` (lines about other games of the user are passed over). */
async function nextAbout(s: NdjsonClient, type: string, id: string): Promise<NdMessage> {
  for (;;) {
    const m = await s.next();
    if ((m.game?.id ?? m.challenge?.id) === id) {
      assert.equal(m.type, type, JSON.stringify(m));
      return m;
    }
  }
}

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

describe("Lichess's event stream: GET /api/stream/event (DESIGN 2.13)", () => {
  it('refuses as Lichess does: 401 without a valid token, 403 without challenge:read, bot:play or board:play', async () => {
    const none = await NdjsonClient.open('/api/stream/event');
    assert.deepEqual([none.status, none.body], [401, { error: 'No such token' }]);
    const reader = await player(['games:read']);
    const s = await events(reader);
    assert.equal(s.status, 403);
    assert.match(s.body.error, /challenge:read or bot:play or board:play/);
    for (const scope of ['challenge:read', 'bot:play', 'board:play']) {
      const ok = await events(await player([scope]));
      assert.equal(ok.status, 200, scope);
      assert.match(ok.res.headers['content-type'] ?? '', /^application\/x-ndjson/);
      ok.close();
    }
  });

  it('opens with a gameStart for each game in progress, then a challenge for each pending one, received and sent', async () => {
    const [a, b, c, d] = await Promise.all([player(), createUser(), createUser(), createUser()]);
    const game = await createActiveGame(a, b, { initial_time: 300, increment: 3 });
    await play(game, a, 'e2', 'e4');
    // Correspondence challenges: a game in progress keeps nobody from those (DESIGN 2.11).
    const received = await challenge(c, a, { time_control: 'correspondence', days_per_move: 3, color: 'black' });
    const sent = await challenge(a, d, { time_control: 'correspondence', days_per_move: 5, color: 'random' });
    const s = await events(a);
    const start = await s.next('gameStart');
    const g = start.game;
    assert.equal(g.id, game.id);
    assert.equal(g.gameId, game.id);
    assert.equal(g.fullId, game.id);
    assert.equal(g.color, 'white');
    assert.equal(g.fen, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
    assert.equal(g.lastMove, 'e2e4');
    assert.equal(g.isMyTurn, false);
    assert.equal(g.hasMoved, true);
    assert.deepEqual(g.opponent, { id: b.username.toLowerCase(), username: b.username, rating: 1500 });
    assert.deepEqual([g.speed, g.perf, g.rated, g.source, g.rating], ['blitz', 'blitz', true, 'friend', 1500]);
    assert.deepEqual(g.status, { id: 20, name: 'started' });
    assert.deepEqual(g.variant, { key: 'standard', name: 'Standard', short: 'Std' });
    assert.ok(g.secondsLeft > 290 && g.secondsLeft <= 303, `secondsLeft ${g.secondsLeft}`);
    assert.deepEqual(g.compat, { bot: true, board: true });
    assert.equal(g.winner, undefined);
    const first = await s.next('challenge');
    const second = await s.next('challenge');
    assert.deepEqual([first.challenge.id, first.challenge.direction, first.challenge.challenger.name, first.challenge.color], [received, 'in', c.username, 'black']);
    assert.deepEqual([second.challenge.id, second.challenge.direction, second.challenge.destUser.name], [sent, 'out', d.username]);
    assert.deepEqual(first.challenge.timeControl, { type: 'correspondence', daysPerTurn: 3 });
    assert.equal(first.challenge.speed, 'correspondence');
    assert.deepEqual(s.pending, [], 'nothing else');
    s.close();
  });

  it('tells a challenge made over /v1 to both players as a challenge line, and its acceptance as a gameStart to both', async () => {
    const [a, b] = await Promise.all([player(), player()]);
    const [sa, sb] = await Promise.all([events(a), events(b)]);
    const id = await challenge(a, b, { initial_time: 300, increment: 3, rated: true, color: 'random' });
    const toB = await nextAbout(sb, 'challenge', id);
    const c = toB.challenge;
    assert.equal(c.status, 'created');
    assert.equal(c.direction, 'in');
    assert.deepEqual(c.challenger, { id: a.username.toLowerCase(), name: a.username, rating: 1500 });
    assert.deepEqual(c.destUser, { id: b.username.toLowerCase(), name: b.username, rating: 1500 });
    assert.deepEqual([c.speed, c.rated, c.color, c.perf.name, c.variant.key], ['blitz', true, 'random', 'Blitz', 'standard']);
    assert.deepEqual(c.timeControl, { type: 'clock', limit: 300, increment: 3, show: '5+3' });
    assert.ok(['white', 'black'].includes(c.finalColor));
    assert.deepEqual(toB.compat, { bot: true, board: true });
    const toA = await nextAbout(sa, 'challenge', id);
    assert.deepEqual(toA.challenge, { ...c, direction: 'out' }, 'the challenger is told of their own challenge (Lichess: "or you challenge someone")');

    await api('POST', `/v1/games/${id}/accept`, as(b));
    const [startA, startB] = await Promise.all([nextAbout(sa, 'gameStart', id), nextAbout(sb, 'gameStart', id)]);
    const aColor = c.finalColor;
    assert.equal(startA.game.color, aColor, 'the challenger plays finalColor');
    assert.equal(startB.game.color, aColor === 'white' ? 'black' : 'white');
    for (const [start, opponent] of [[startA, b], [startB, a]] as const) {
      const g = start.game;
      assert.deepEqual([g.gameId, g.fullId, g.id, g.fen, g.lastMove, g.hasMoved], [id, id, id, START, '', false]);
      assert.equal(g.isMyTurn, g.color === 'white');
      assert.equal(g.opponent.username, opponent.username);
      assert.deepEqual([g.speed, g.perf, g.rated, g.source, g.status.name, g.secondsLeft], ['blitz', 'blitz', true, 'friend', 'started', 300]);
    }
    assert.deepEqual([...sa.pending, ...sb.pending], [], 'told once each');
    sa.close();
    sb.close();
  });

  it('tells the end of a game to both players as a gameFinish: the winner, Lichess’s status, the rating changes', async () => {
    const [a, b] = await Promise.all([player(), player()]);
    const game = await createActiveGame(a, b, { rated: true });
    const [sa, sb] = await Promise.all([events(a), events(b)]);
    await Promise.all([nextAbout(sa, 'gameStart', game.id), nextAbout(sb, 'gameStart', game.id)]);
    await play(game, a, 'e2', 'e4');
    await api('POST', `/v1/games/${game.id}/resign`, as(b));
    const [endA, endB] = await Promise.all([nextAbout(sa, 'gameFinish', game.id), nextAbout(sb, 'gameFinish', game.id)]);
    for (const end of [endA, endB]) {
      assert.equal(end.game.winner, 'white');
      assert.deepEqual(end.game.status, { id: 31, name: 'resign' });
      assert.equal(end.game.isMyTurn, false, 'nobody’s turn once it is over');
      assert.equal(end.game.lastMove, 'e2e4');
    }
    assert.equal(endA.game.color, 'white');
    assert.ok(endA.game.ratingDiff > 0 && endB.game.ratingDiff < 0, 'rated: each side’s rating change');
    assert.equal(endA.game.opponent.ratingDiff, endB.game.ratingDiff);
    sa.close();
    sb.close();
  });

  it('tells an aborted game’s end too (status aborted), as a client waits for it to free its slot', async () => {
    const [a, b] = await Promise.all([player(), player()]);
    const game = await createActiveGame(a, b);
    const sa = await events(a);
    await nextAbout(sa, 'gameStart', game.id);
    await api('POST', `/v1/games/${game.id}/abort`, as(a));
    const end = await nextAbout(sa, 'gameFinish', game.id);
    assert.deepEqual(end.game.status, { id: 25, name: 'aborted' });
    assert.equal(end.game.winner, undefined);
    sa.close();
  });

  it('tells the challenger a decline with its reason: declineReason and declineReasonKey (generic from /v1)', async () => {
    const [a, b] = await Promise.all([player(), player()]);
    const sa = await events(a);
    const first = await challenge(a, b);
    await nextAbout(sa, 'challenge', first);
    assert.deepEqual((await lichess('POST', `/api/challenge/${first}/decline`, b, { reason: 'tooFast' })).body, { ok: true });
    const declined = await nextAbout(sa, 'challengeDeclined', first);
    assert.equal(declined.challenge.status, 'declined');
    assert.equal(declined.challenge.declineReasonKey, 'toofast');
    assert.match(declined.challenge.declineReason, /too fast/);
    assert.equal(declined.challenge.destUser.name, b.username);
    const second = await challenge(a, b);
    await nextAbout(sa, 'challenge', second);
    await api('POST', `/v1/games/${second}/decline`, as(b));
    const generic = await nextAbout(sa, 'challengeDeclined', second);
    assert.deepEqual([generic.challenge.declineReasonKey, generic.challenge.declineReason], ['generic', "I'm not accepting challenges at the moment."]);
    sa.close();
  });

  it('tells the challenged player a challenge cancelled (challengeCanceled), and both players one that lapsed', async () => {
    const [a, b] = await Promise.all([player(), player()]);
    const [sa, sb] = await Promise.all([events(a), events(b)]);
    const cancelled = await challenge(a, b);
    await nextAbout(sb, 'challenge', cancelled);
    assert.deepEqual((await lichess('POST', `/api/challenge/${cancelled}/cancel`, a)).body, { ok: true });
    const gone = await nextAbout(sb, 'challengeCanceled', cancelled);
    assert.deepEqual([gone.challenge.status, gone.challenge.direction], ['canceled', 'in']);
    // CHALLENGE_TTL_SECONDS is 2 in tests: the sweeper lets this one lapse.
    const lapsed = await challenge(a, b);
    await Promise.all([nextAbout(sa, 'challenge', lapsed), nextAbout(sb, 'challenge', lapsed)]);
    const [toA, toB] = await Promise.all([nextAbout(sa, 'challengeCanceled', lapsed), nextAbout(sb, 'challengeCanceled', lapsed)]);
    assert.equal(toA.challenge.direction, 'out');
    assert.equal(toB.challenge.status, 'canceled');
    sa.close();
    sb.close();
  });

  it('lets one token hold several streams (Lichess closes the older one), each told every event', async () => {
    const [a, b] = await Promise.all([player(), createUser()]);
    const [one, two] = await Promise.all([events(a), events(a)]);
    const id = await challenge(b, a);
    assert.equal((await nextAbout(one, 'challenge', id)).challenge.id, id);
    assert.equal((await nextAbout(two, 'challenge', id)).challenge.id, id);
    assert.equal(one.res.destroyed, false, 'the first is still open');
    one.close();
    two.close();
  });

  it('counts each stream as one of the user’s sockets: past the cap, 429 {"error"} with Retry-After', async () => {
    const a = await player();
    const { config } = await testService();
    const open = await Promise.all(Array.from({ length: config.realtimeSocketsPerUser }, () => events(a)));
    assert.ok(open.every((s) => s.status === 200));
    const over = await events(a);
    assert.equal(over.status, 429);
    assert.match(over.body.error, /sockets per user/);
    assert.equal(over.res.headers['retry-after'], '5');
    for (const s of open) s.close();
  });

  it('keeps its user online while it is open, however quiet (a bot with a live stream is online)', async () => {
    const [a, b] = await Promise.all([createUser(), player()]);
    const { service } = await testService();
    const sql = (text: string, params: unknown[]) => service.ctx.pool.query(text, params);
    await sql(
      `INSERT INTO friendships (user_low, user_high, status, requested_by, since) VALUES (least($1::uuid, $2::uuid), greatest($1::uuid, $2::uuid), 'friends', $1, now())`,
      [a.id, b.id],
    );
    const online = async () => (await api('GET', '/v1/friends', as(a))).body.data[0].online;
    const s = await events(b);
    await sql(`UPDATE users SET last_seen_at = now() - interval '301 seconds' WHERE id = $1`, [b.id]);
    // The minute's presence write of every live socket and stream on this node.
    await service.services.presence.flush();
    assert.equal(await online(), true);
    s.close();
    await s.ended;
    await until('b to be offline once the stream is gone', async () => {
      await sql(`UPDATE users SET last_seen_at = now() - interval '301 seconds' WHERE id = $1`, [b.id]);
      await service.services.presence.flush();
      return (await online()) === false;
    });
  });

  it('ends when its token is deleted (DESIGN 2.12), so the client authenticates again', async () => {
    const a = await player();
    const s = await events(a);
    await deleteToken(a, a.tokenId);
    assert.equal(await s.ended, 'complete', 'the body ends');
    const again = await events(a);
    assert.equal(again.status, 401);
  });

  it('leaves the /v1 user channel as it was: no game_finished there, and a Lichess decline’s reason on challenge_declined', async () => {
    const [a, b] = await Promise.all([player(), player()]);
    const v1 = await NdjsonClient.open('/v1/stream/events', { authorization: `Bearer ${a.accessToken}` });
    const lichessStream = await events(a);
    const id = await challenge(a, b);
    await lichess('POST', `/api/challenge/${id}/decline`, b, { reason: 'later' });
    const declined = await v1.until('challenge_declined');
    assert.deepEqual([declined.game_id, declined.by.id, declined.reason], [id, b.id, 'later']);
    const game = await createActiveGame(a, b);
    await api('POST', `/v1/games/${game.id}/abort`, as(a));
    assert.equal((await lichessStream.until('gameFinish')).game.id, game.id);
    // The game's end is on the Lichess stream; the /v1 channel told its start and nothing after it
    // until the next event (a user's events come in the order they were published).
    assert.equal((await v1.until('game_started')).game_id, game.id);
    await lichess('POST', `/api/challenge/${await challenge(b, a)}/decline`, a);
    await v1.until('challenge_received');
    assert.deepEqual(v1.seen.filter((m) => m.type === 'game_finished'), []);
    v1.close();
    lichessStream.close();
  });

  it('answers NDJSON whatever Accept says (none, JSON, HTML, anything), as lichess-bot and berserk send their own', async () => {
    const a = await player();
    // '' is an empty Accept: as good as none.
    for (const accept of ['', 'application/json', 'text/html,application/xhtml+xml', '*/*']) {
      const s = await NdjsonClient.open('/api/stream/event', { authorization: `Bearer ${a.token}`, accept });
      assert.equal(s.status, 200, `${accept}: ${JSON.stringify(s.body)}`);
      assert.match(s.res.headers['content-type'] ?? '', /^application\/x-ndjson/, accept);
      s.close();
    }
  });

  it('is served under /lichess too', async () => {
    const [a, b] = await Promise.all([player(), createUser()]);
    const s = await events(a, '/lichess/api/stream/event');
    assert.equal(s.status, 200);
    const id = await challenge(b, a);
    assert.equal((await nextAbout(s, 'challenge', id)).challenge.direction, 'in');
    s.close();
  });
});

/**
 * The stream as one of the realtime side's HTTP streams, on a node of its own (an HTTP server in
 * this process, an in-process bus, a manual clock): the keep-alive round every HTTP stream has.
 */
describe("Lichess's event stream: keep-alive and order (manual clock)", () => {
  let server: http.Server;
  let realtime: Realtime;
  let bus: EventBus;
  let clock: ManualClock;
  let base: string;
  const USER = { id: '00000000-0000-4000-8000-0000000000c1', email: 'c@example.com', sessionId: '00000000-0000-4000-8000-0000000000c2', scopes: ['bot:play' as const] };

  /** Reads that know one challenge, `game-1`, received from bob. */
  const challengeGame = {
    game: {
      id: '00000000-0000-4000-8000-000000000001', kind: 'challenge', createdBy: 'bob', whiteId: 'bob', blackId: USER.id, colorPreference: 'white',
      status: 'pending', timeControl: 'blitz', initialTime: 180, increment: 2, daysPerMove: null, rated: false, rematchOf: null,
      white: { id: 'bob', username: 'Bob', avatarUrl: null, country: null }, black: { id: USER.id, username: 'Carol', avatarUrl: null, country: null },
    },
    lastMove: null,
    ratings: { white: 1600, black: 1400 },
    bots: new Set(['bob']),
  } as unknown as EventGame;
  const reads: EventReads = {
    game: async () => challengeGame,
    playing: async () => [],
    challenges: async () => [challengeGame],
    publicUrl: 'http://chess.test',
    now: () => clock.now(),
  };

  beforeEach(async () => {
    ({ realtime, bus, clock } = standaloneRealtime({ keepAliveMs: 7000 }));
    // What the route does once the token is checked (src/lichess/events.ts).
    server = http.createServer((req, res) => {
      const peer = realtime.hostStream(req, res, (error) => {
        res.writeHead(503).end(JSON.stringify({ error: String(error) }));
      });
      if (!peer) return;
      const stream = new LichessEventStream(peer, USER.id, reads, createLogger('silent'));
      const session = new UserChannelSession(realtime.sessions, stream, {
        user: USER,
        id: USER.id,
        channel: `user:${USER.id}`,
        scopes: ['bot:play'],
        internal: (e) => stream.internal(e),
      });
      peer.onClose(() => session.close());
      void session.start();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await realtime.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends a blank line every 7 s on the service clock, between its lines (lichess-bot gives up after 15 s of silence)', async () => {
    const s = await NdjsonClient.open(`${base}/api/stream/event`);
    assert.equal(s.status, 200);
    const opening = await s.next('challenge');
    assert.deepEqual(opening.challenge.challenger, { id: 'bob', name: 'Bob', rating: 1600, title: 'BOT' });
    assert.equal(opening.challenge.speed, 'blitz', '3+2: 180 + 80 = 260 s');
    await clock.advance(7000);
    await s.keptAlive(1);
    bus.publishRaw(`user:${USER.id}`, JSON.stringify({ type: 'challenge_declined', game_id: challengeGame.game.id, by: { id: USER.id, username: 'Carol' }, ts: 1 }));
    assert.equal((await s.next('challengeDeclined')).challenge.declineReasonKey, 'generic');
    await clock.advance(7000);
    await s.keptAlive(2);
    assert.equal(s.keepAlives, 2);
    s.close();
  });

  it('tells a challenge once, however many events name it', async () => {
    const s = await NdjsonClient.open(`${base}/api/stream/event`);
    await s.next('challenge');
    const received = { type: 'challenge_received', game_id: challengeGame.game.id, from: { id: 'bob', username: 'Bob' }, ts: 1 };
    bus.publishRaw(`user:${USER.id}`, JSON.stringify({ type: 'challenges_changed', ts: 1 }));
    bus.publishRaw(`user:${USER.id}`, JSON.stringify(received));
    bus.publishRaw(`user:${USER.id}`, JSON.stringify({ type: 'challenge_cancelled', game_id: challengeGame.game.id, by: { id: 'bob', username: 'Bob' }, ts: 2 }));
    assert.equal((await s.next()).type, 'challengeCanceled', 'nothing between: the challenge was told when the stream opened');
    s.close();
  });

  it('answers a refusal before it begins as Lichess does: {"error"} with the status', () => {
    const res = { headersSent: false, status: (n: number) => ((res.code = n), res), set: (h: object) => ((res.headers = h), res), json: (b: unknown) => ((res.body = b), res) } as any;
    refuseStream(res, new AppError('RATE_LIMIT_EXCEEDED', 'Too many requests', undefined, { retryAfter: 3 }));
    assert.deepEqual([res.code, res.body, res.headers], [429, { error: 'Too many requests' }, { 'Retry-After': '3' }]);
    refuseStream(res, new Error('boom'));
    assert.equal(res.code, 503, 'a stream that could not start is worth another try');
  });
});

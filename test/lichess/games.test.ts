import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client, type Room } from '@colyseus/sdk';
import { ChatLine, GameFullLine, GameStateLine, OpponentGoneLine } from '../../src/lichess/gameState.ts';
import { personalToken } from '../helpers/credentials.ts';
import { as, createActiveGame, play, type ActiveGame } from '../helpers/games.ts';
import { api, type ApiResponse } from '../helpers/http.ts';
import { NdjsonClient, type NdMessage } from '../helpers/ndjson.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// Lichess's Board and Bot API on a game (DESIGN 2.13), through the running service as Lichess's
// clients call it (lichess-bot, berserk): a personal token with board:play or bot:play, POSTs with
// form bodies answered {"ok": true} or {"error"}, the game stream read line by line. The shapes
// of the lines are checked against the schemas written from Lichess's OpenAPI (strictly: no field
// Lichess does not name).

type Api = 'board' | 'bot';
type Player = { user: TestUser; token: string; api: Api };

const SCOPE: Record<Api, string> = { board: 'board:play', bot: 'bot:play' };

async function player(user: TestUser, which: Api): Promise<Player> {
  return { user, token: (await personalToken(user, [SCOPE[which]])).token, api: which };
}

/** A POST as a Lichess client sends it: a bearer token, a form body (or none). */
function post(p: Pick<Player, 'token' | 'user'>, path: string, form?: Record<string, string>): Promise<ApiResponse> {
  const rawBody = form ? new URLSearchParams(form).toString() : undefined;
  return api('POST', path, { token: p.token, ip: p.user.ip, rawBody, headers: form ? { 'content-type': 'application/x-www-form-urlencoded' } : {} });
}

/** A command on the player's own API (`/api/board/game/{id}/…` or `/api/bot/game/{id}/…`) that must answer {"ok": true}. */
async function ok(p: Player, gameId: string, command: string, form?: Record<string, string>): Promise<void> {
  const res = await post(p, `/api/${p.api}/game/${gameId}/${command}`, form);
  assert.equal(res.status, 200, `${command}: ${res.text}`);
  assert.deepEqual(res.body, { ok: true });
}

/** A command the rules refuse: 400 {"error"} as Lichess answers. */
async function refused(p: Player, gameId: string, command: string, status = 400): Promise<string> {
  const res = await post(p, `/api/${p.api}/game/${gameId}/${command}`);
  assert.equal(res.status, status, `${command}: ${res.text}`);
  assert.deepEqual(Object.keys(res.body), ['error']);
  assert.equal(typeof res.body.error, 'string');
  return res.body.error;
}

/** The player's game stream, read line by line. */
const stream = (p: Pick<Player, 'token' | 'api'>, gameId: string) =>
  NdjsonClient.open(`/api/${p.api}/game/stream/${gameId}`, { authorization: `Bearer ${p.token}` });

async function gameFull(s: NdjsonClient): Promise<NdMessage> {
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const line = await s.next('gameFull');
  GameFullLine.strict().extend({ state: GameStateLine.strict() }).parse(line);
  return line;
}

async function gameState(s: NdjsonClient): Promise<NdMessage> {
  const line = await s.next('gameState');
  GameStateLine.strict().parse(line);
  return line;
}

/** The next gameState whose moves are `moves` (a draw or takeback offer may send one before). */
async function stateWith(s: NdjsonClient, moves: string): Promise<NdMessage> {
  for (;;) {
    const line = await gameState(s);
    if (line.moves === moves) return line;
  }
}

describe("Lichess's Board and Bot API on a game (DESIGN 2.13)", () => {
  let white: Player;
  let black: Player;
  let game: ActiveGame;
  const open: NdjsonClient[] = [];
  const watch = async (p: Pick<Player, 'token' | 'api'>, id = game.id) => {
    const s = await stream(p, id);
    open.push(s);
    return s;
  };
  /** Both players' streams, each past its gameFull. */
  const watchBoth = async () => {
    const both = [await watch(white), await watch(black)];
    for (const s of both) await gameFull(s);
    return both;
  };

  beforeEach(async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(w, b, { initial_time: 300, increment: 3 });
    [white, black] = await Promise.all([player(w, 'board'), player(b, 'bot')]);
  });

  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  /** `p`'s stream of the game, read past `line` (UCI, White first) played by both players on their APIs. */
  const afterLine = async (p: Pick<Player, 'token' | 'api'>, line: string[]) => {
    const s = await watch(p);
    await gameFull(s);
    for (const [i, uci] of line.entries()) await ok(i % 2 === 0 ? white : black, game.id, `move/${uci}`);
    await stateWith(s, line.join(' '));
    return s;
  };

  it('plays a game to mate: each player reads gameFull, then a gameState per move with the UCI moves and the clocks in ms, the final one with status mate and the winner, then the stream ends', async () => {
    const [ws, bs] = [await watch(white), await watch(black)];
    for (const s of [ws, bs]) {
      const full = await gameFull(s);
      assert.equal(full.id, game.id);
      assert.deepEqual(full.variant, { key: 'standard', name: 'Standard', short: 'Std' });
      assert.equal(full.speed, 'blitz', '5+3 is blitz by Lichess\'s bands');
      assert.deepEqual(full.perf, { name: 'Blitz' });
      assert.equal(full.rated, true);
      assert.equal(full.createdAt, Date.parse(game.detail.created_at));
      assert.deepEqual(full.white, { id: white.user.username.toLowerCase(), name: white.user.username, title: null, rating: 1500 });
      assert.deepEqual(full.black, { id: black.user.username.toLowerCase(), name: black.user.username, title: null, rating: 1500 });
      assert.equal(full.initialFen, 'startpos');
      assert.deepEqual(full.clock, { initial: 300_000, increment: 3000 });
      assert.deepEqual(full.state, { type: 'gameState', moves: '', wtime: 300_000, btime: 300_000, winc: 3000, binc: 3000, status: 'started' });
    }
    const line = ['f2f3', 'e7e5', 'g2g4', 'd8h4'];
    for (const [i, uci] of line.entries()) {
      await ok(i % 2 === 0 ? white : black, game.id, `move/${uci}`);
      for (const s of [ws, bs]) {
        const state = await gameState(s);
        assert.equal(state.moves, line.slice(0, i + 1).join(' '));
        assert.ok(Number.isInteger(state.wtime) && Number.isInteger(state.btime), 'clocks are integers of ms');
        assert.ok(state.wtime > 290_000 && state.wtime <= 306_000 && state.btime > 290_000 && state.btime <= 306_000, JSON.stringify(state));
        assert.equal(state.status, i < 3 ? 'started' : 'mate');
      }
    }
    for (const s of [ws, bs]) {
      assert.equal((s.seen.at(-1) as NdMessage).winner, 'black');
      assert.equal(await s.ended, 'complete', 'the stream ends after the final gameState');
      assert.deepEqual(s.pending, []);
    }
  });

  it('is the same game as /v1 sees it: a /v1 move shows on the Lichess stream, a Lichess move on the /v1 stream', async () => {
    const lichess = await watch(black);
    await gameFull(lichess);
    const v1 = await NdjsonClient.open(`/v1/games/${game.id}/stream`, { authorization: `Bearer ${game.white.accessToken}` });
    open.push(v1);
    await v1.next('state');
    await play(game, game.white, 'e2', 'e4');
    assert.equal((await gameState(lichess)).moves, 'e2e4');
    assert.equal((await v1.next('move')).move.san, 'e4');
    await ok(black, game.id, 'move/c7c5');
    assert.equal((await gameState(lichess)).moves, 'e2e4 c7c5');
    assert.equal((await v1.until('move')).move.san, 'c5');
    const detail = (await api('GET', `/v1/games/${game.id}`, as(game.white))).body.data;
    assert.equal(detail.pgn.trim(), '1. e4 c5');
  });

  it('writes a promotion as the fifth letter of the UCI, played and read back from a fresh stream', async () => {
    const s = await watch(white);
    await gameFull(s);
    const line = ['a2a4', 'h7h5', 'a4a5', 'h5h4', 'a5a6', 'h4h3', 'a6b7', 'h3g2', 'b7a8q', 'g2h1n'];
    for (const [i, uci] of line.entries()) await ok(i % 2 === 0 ? white : black, game.id, `move/${uci}`);
    assert.equal((await stateWith(s, line.join(' '))).status, 'started');
    const fresh = await watch(black);
    assert.equal((await gameFull(fresh)).state.moves, line.join(' '), 'the game read from its detail gives the same UCI');
    const detail = (await api('GET', `/v1/games/${game.id}`, as(game.white))).body.data;
    assert.match(detail.pgn, /bxa8=Q .*gxh1=N/);
  });

  it('gives a correspondence game daysPerTurn instead of a clock, its speed and perf correspondence', async () => {
    const corr = await createActiveGame(white.user, black.user, { time_control: 'correspondence', days_per_move: 3 });
    const full = await gameFull(await watch(black, corr.id));
    assert.deepEqual([full.speed, full.perf.name, full.daysPerTurn, full.clock], ['correspondence', 'Correspondence', 3, undefined]);
    assert.deepEqual([full.state.winc, full.state.binc], [0, 0]);
    assert.ok(full.state.wtime > 0 && full.state.btime > 0, JSON.stringify(full.state));
  });

  it('refuses a move out of turn, an illegal move and a malformed one with 400 {"error"}, and an unknown game with 404', async () => {
    assert.match(await refused(black, game.id, 'move/e7e5'), /turn/i);
    await refused(white, game.id, 'move/e2e5');
    await refused(white, game.id, 'move/e2e9');
    await refused(white, game.id, 'move/e7e8k');
    assert.equal((await post(white, `/api/board/game/${game.id}/move/e2e4?offeringDraw=maybe`)).status, 400);
    await refused(white, randomUUID(), 'move/e2e4', 404);
    await refused(white, 'not-a-game', 'resign', 404);
    const s = await stream(white, randomUUID());
    assert.equal(s.status, 404);
    assert.deepEqual(Object.keys(s.body), ['error']);
  });

  it("takes more moves a minute than /v1's makeMove (100): lichess-bot's random movers made 100 in under a minute of bullet", async () => {
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 11; i++) answers.push(...(await Promise.all(Array.from({ length: 10 }, () => post(white, `/api/board/game/${game.id}/move/e2e5`)))));
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([400]), 'every one of 110 moves is judged by the rules, none is 429');
    await ok(white, game.id, 'move/e2e4');
  });

  it('answers 401 without a valid token and 403 for a token without the API\'s scope', async () => {
    const res = await api('POST', `/api/board/game/${game.id}/move/e2e4`, { token: 'cst_nonsense', ip: white.user.ip });
    assert.equal(res.status, 401);
    assert.deepEqual(Object.keys(res.body), ['error']);
    const boardOnBot = await post(white, `/api/bot/game/${game.id}/move/e2e4`);
    assert.equal(boardOnBot.status, 403, 'a board:play token on the Bot API');
    const v1Token = { user: white.user, token: (await personalToken(white.user, ['games:play', 'games:read'])).token };
    assert.equal((await post(v1Token, `/api/board/game/${game.id}/move/e2e4`)).status, 403, 'a games:play token on the Board API');
    const s = await stream({ token: v1Token.token, api: 'board' }, game.id);
    assert.equal(s.status, 403);
    assert.deepEqual(Object.keys(s.body), ['error']);
  });

  it('offers a draw (wdraw while it is pending), declines it (no), and says ok to a no with nothing pending', async () => {
    await ok(white, game.id, 'move/e2e4');
    await ok(black, game.id, 'move/e7e5');
    const [ws, bs] = await watchBoth();
    await ok(white, game.id, 'draw/yes');
    for (const s of [ws, bs]) assert.equal((await gameState(s)).wdraw, true);
    await ok(black, game.id, 'draw/no');
    for (const s of [ws, bs]) {
      const state = await gameState(s);
      assert.equal(state.wdraw, undefined, 'declined: no longer pending');
      assert.equal(state.status, 'started');
    }
    await ok(black, game.id, 'draw/no');
    assert.match(await refused(white, game.id, 'draw/maybe'), /yes or no/);
  });

  it("folds an offer's lapse into the move that lapses it: one gameState, never one of the old moves showing it is still the mover's turn", async () => {
    for (const [p, move] of [[white, 'e2e4'], [black, 'e7e5'], [white, 'g1f3'], [black, 'b8c6']] as const) await ok(p, game.id, `move/${move}`);
    const [ws, bs] = await watchBoth();
    await ok(white, game.id, 'draw/yes');
    for (const s of [ws, bs]) assert.equal((await gameState(s)).wdraw, true);
    await ok(white, game.id, 'move/f1c4');
    for (const s of [ws, bs]) assert.equal((await gameState(s)).wdraw, true, 'the offer stands after its maker moves');
    await ok(black, game.id, 'takeback/yes');
    for (const s of [ws, bs]) assert.equal((await gameState(s)).btakeback, true);
    // Black moves instead: White's draw offer and Black's own takeback proposal lapse with the move.
    await ok(black, game.id, 'move/g8f6');
    await ok(white, game.id, 'move/d2d3');
    for (const s of [ws, bs]) {
      const lapsed = await gameState(s);
      assert.deepEqual([lapsed.moves, lapsed.wdraw, lapsed.btakeback], ['e2e4 e7e5 g1f3 b8c6 f1c4 g8f6', undefined, undefined]);
      assert.equal((await gameState(s)).moves, 'e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d3', 'no line between the two moves');
    }
  });

  it('tells an offer that ran out of time (DRAW_OFFER_TTL_SECONDS) by a gameState of its own', async () => {
    await ok(white, game.id, 'move/e2e4');
    await ok(black, game.id, 'move/e7e5');
    const s = await watch(black);
    await gameFull(s);
    await ok(white, game.id, 'draw/yes');
    assert.equal((await gameState(s)).wdraw, true);
    const lapsed = await gameState(s);
    assert.deepEqual([lapsed.moves, lapsed.wdraw, lapsed.status], ['e2e4 e7e5', undefined, 'started']);
  });

  it('offers a draw with a move (?offeringDraw=true), which the opponent agrees to: the game ends drawn', async () => {
    const s = await watch(black);
    await gameFull(s);
    await ok(white, game.id, 'move/e2e4?offeringDraw=true');
    const moved = await gameState(s);
    assert.deepEqual([moved.moves, moved.wdraw], ['e2e4', undefined]);
    assert.equal((await gameState(s)).wdraw, true, 'then the offer, which stands after the move');
    await ok(black, game.id, 'move/e7e5?offeringDraw=true');
    const final = await gameState(s);
    assert.equal(final.status, 'draw');
    assert.equal(final.moves, 'e2e4', 'agreeing ends the game: the move is not played');
    assert.equal(final.winner, undefined);
    assert.equal(await s.ended, 'complete');
  });

  it('proposes a takeback (wtakeback), which the opponent accepts with yes: the moves shrink', async () => {
    for (const [p, uci] of [[white, 'e2e4'], [black, 'e7e5'], [white, 'g1f3']] as const) await ok(p, game.id, `move/${uci}`);
    await ok(white, game.id, 'takeback/yes');
    const s = await watch(black);
    const full = await gameFull(s);
    assert.equal(full.state.wtakeback, true, 'a stream opened while it is pending shows it');
    await ok(black, game.id, 'takeback/yes');
    const state = await gameState(s);
    assert.equal(state.moves, 'e2e4 e7e5');
    assert.equal(state.wtakeback, undefined);
    assert.equal(state.status, 'started');
    await ok(black, game.id, 'takeback/no');
    await ok(white, game.id, 'move/b1c3');
    assert.equal((await gameState(s)).moves, 'e2e4 e7e5 b1c3');
  });

  it('declines a takeback with no; the proposer may not answer their own', async () => {
    for (const [p, uci] of [[white, 'e2e4'], [black, 'e7e5'], [white, 'g1f3']] as const) await ok(p, game.id, `move/${uci}`);
    const s = await watch(white);
    await gameFull(s);
    await ok(white, game.id, 'takeback/yes');
    assert.equal((await gameState(s)).wtakeback, true);
    await refused(white, game.id, 'takeback/no');
    await ok(black, game.id, 'takeback/no');
    const state = await gameState(s);
    assert.equal(state.wtakeback, undefined);
    assert.equal(state.moves, 'e2e4 e7e5 g1f3');
  });

  it('sends chat lines: the player room to the players, the spectator room to everyone; a player may greet the spectators during the game, as lichess-bot does', async () => {
    const watcher = await player(await createUser(), 'board');
    const [ws, bs, spectator] = [await watch(white), await watch(black), await watch(watcher)];
    for (const s of [ws, bs, spectator]) await gameFull(s);
    await ok(white, game.id, 'chat', { room: 'player', text: 'good luck' });
    for (const s of [ws, bs]) {
      const line = await s.next('chatLine');
      ChatLine.strict().parse(line);
      assert.deepEqual(line, { type: 'chatLine', room: 'player', username: white.user.username, text: 'good luck' });
    }
    // lichess-bot's hello_spectators, sent as it makes its first move: a refusal would stop it there.
    const res = await post(black, `/api/bot/game/${game.id}/chat`, { room: 'spectator', text: 'hi all' });
    assert.equal(res.status, 200, res.text);
    for (const s of [ws, bs, spectator]) assert.deepEqual(await s.next('chatLine'), { type: 'chatLine', room: 'spectator', username: black.user.username, text: 'hi all' });
    // /v1 keeps DESIGN 2.11's rule: a player writes to the spectators only once the game is over.
    const v1 = await api('POST', `/v1/games/${game.id}/chat`, { token: black.user.accessToken, ip: black.user.ip, body: { room: 'spectator', text: 'hi all' } });
    assert.deepEqual([v1.status, v1.body.error?.code], [403, 'FORBIDDEN'], v1.text);
    await ok({ ...watcher, api: 'board' }, game.id, 'chat', { room: 'spectator', text: 'enjoy' });
    for (const s of [ws, bs, spectator]) assert.deepEqual(await s.next('chatLine'), { type: 'chatLine', room: 'spectator', username: watcher.user.username, text: 'enjoy' });
    assert.ok(!spectator.seen.some((m) => m.room === 'player'), 'a spectator reads no player-room line');
    const history = await api('GET', `/api/bot/game/${game.id}/chat`, { token: black.token, ip: black.user.ip });
    assert.equal(history.status, 200, history.text);
    assert.deepEqual(history.body, [{ text: 'good luck', user: white.user.username }]);
    assert.equal((await post(white, `/api/board/game/${game.id}/chat`, { room: 'lobby', text: 'x' })).status, 400);
  });

  it('resigns: the final gameState says resign and the winner, then the stream ends', async () => {
    await ok(white, game.id, 'move/e2e4');
    await ok(black, game.id, 'move/e7e5');
    const s = await watch(black);
    await gameFull(s);
    await ok(white, game.id, 'resign');
    const final = await gameState(s);
    assert.equal(final.status, 'resign');
    assert.equal(final.winner, 'black');
    assert.equal(await s.ended, 'complete');
    await refused(black, game.id, 'move/d7d5');
  });

  it('aborts before both have moved: status aborted and no winner; refused once both have moved', async () => {
    const s = await watch(white);
    await gameFull(s);
    await ok(black, game.id, 'abort');
    const final = await gameState(s);
    assert.equal(final.status, 'aborted');
    assert.equal(final.winner, undefined);
    assert.equal(await s.ended, 'complete');

    const other = await createActiveGame(white.user, black.user);
    await ok(white, other.id, 'move/e2e4');
    await ok(black, other.id, 'move/e7e5');
    assert.match(await refused(white, other.id, 'abort'), /abort/i);
  });

  it('streams a finished game as gameFull with its final state, then ends', async () => {
    await ok(white, game.id, 'resign');
    const s = await watch(black);
    const full = await gameFull(s);
    assert.equal(full.state.status, 'resign');
    assert.equal(full.state.winner, 'black');
    assert.equal(await s.ended, 'complete');
    assert.deepEqual(s.pending, []);
  });

  it("counts each game stream as one of the user's sockets: past REALTIME_SOCKETS_PER_USER, 429 {\"error\"} with Retry-After", async () => {
    const { config } = await testService();
    const streams = await Promise.all(Array.from({ length: config.realtimeSocketsPerUser }, () => watch(white)));
    assert.ok(streams.every((s) => s.status === 200));
    const over = await watch(white);
    assert.equal(over.status, 429);
    assert.deepEqual(Object.keys(over.body), ['error']);
    assert.ok(Number(over.res.headers['retry-after']) >= 1, JSON.stringify(over.res.headers));
    streams[0].close();
    await streams[0].ended;
    const again = await until('a place is free again', async () => {
      const s = await watch(white);
      return s.status === 200 && s;
    });
    assert.equal(again.status, 200);
  });

  it('lets a spectator with the scope stream the game (no opponentGone, no player chat)', async () => {
    const watcher = await player(await createUser(), 'board');
    const s = await watch(watcher);
    await gameFull(s);
    await ok(white, game.id, 'move/d2d4');
    assert.equal((await gameState(s)).moves, 'd2d4');
  });

  it('serves the stream and the commands again under /lichess, for a proxy that routes by prefix', async () => {
    const s = await NdjsonClient.open(`/lichess/api/board/game/stream/${game.id}`, { authorization: `Bearer ${white.token}` });
    open.push(s);
    await gameFull(s);
    const moved = await post(white, `/lichess/api/board/game/${game.id}/move/e2e4`);
    assert.deepEqual([moved.status, moved.body], [200, { ok: true }]);
    assert.equal((await gameState(s)).moves, 'e2e4');
    assert.deepEqual((await post(black, `/lichess/api/bot/game/${game.id}/resign`)).body, { ok: true });
    assert.equal((await gameState(s)).status, 'resign');
    assert.equal(await s.ended, 'complete');
  });

  it('answers the stream as NDJSON whatever Accept says (none, JSON, HTML, anything)', async () => {
    // '' is an empty Accept: as good as none.
    for (const accept of ['', 'application/json', 'text/html,application/xhtml+xml', '*/*']) {
      const s = await NdjsonClient.open(`/api/board/game/stream/${game.id}`, { authorization: `Bearer ${white.token}`, accept });
      open.push(s);
      assert.equal(s.status, 200, `${accept}: ${JSON.stringify(s.body)}`);
      assert.match(s.res.headers['content-type'] ?? '', /^application\/x-ndjson/, accept);
      await gameFull(s);
      s.close();
    }
  });

  it('keeps a quiet stream alive with a blank line within 7 s (lichess-bot gives up after 15 s of silence)', async function () {
    this.timeout(15_000);
    // Both first moves made: the game stays on (no first-move deadline) while nobody moves.
    await ok(white, game.id, 'move/e2e4');
    await ok(black, game.id, 'move/e7e5');
    const s = await watch(white);
    await gameFull(s);
    // The node's keep-alive round, every 7 s on the service's clock: one comes within 7 s of any moment.
    await s.keptAlive(1, 7500);
    assert.deepEqual(s.pending, [], 'a blank line, no other line');
  });

  it('plays the Bot API as the Board API: a bot offers a draw, resigns, and the Board player reads the final state', async () => {
    const s = await afterLine(white, ['e2e4', 'e7e5']);
    await ok(black, game.id, 'draw/yes');
    assert.equal((await gameState(s)).bdraw, true);
    await ok(black, game.id, 'resign');
    const final = await stateWith(s, 'e2e4 e7e5');
    assert.deepEqual([final.status, final.winner], ['resign', 'white']);
    assert.equal(await s.ended, 'complete');
  });

  it("ends a stalemate with status stalemate and no winner (Lichess's name)", async () => {
    const s = await watch(black);
    await gameFull(s);
    // Sam Loyd's ten-move stalemate.
    const line = 'e2e3 a7a5 d1h5 a8a6 h5a5 h7h5 h2h4 a6h6 a5c7 f7f6 c7d7 e8f7 d7b7 d8d3 b7b8 d3h7 b8c8 f7g6 c8e6'.split(' ');
    for (const [i, uci] of line.entries()) await ok(i % 2 === 0 ? white : black, game.id, `move/${uci}`);
    const final = await stateWith(s, line.join(' '));
    assert.deepEqual([final.status, final.winner], ['stalemate', undefined]);
    assert.equal(await s.ended, 'complete');
  });

  it("ends a game lost on time with status outoftime (Lichess's name for a flag) and the winner", async () => {
    const s = await afterLine(black, ['e2e4', 'e7e5']);
    const { clock } = await testService();
    try {
      clock.skip(301_000);
      // White's move comes after White's time ran out: the flag is what the game tells.
      await post(white, `/api/board/game/${game.id}/move/g1f3`);
      const final = await stateWith(s, 'e2e4 e7e5');
      assert.deepEqual([final.status, final.winner, final.wtime], ['outoftime', 'black', 0]);
      assert.equal(await s.ended, 'complete');
    } finally {
      clock.reset();
    }
  });

  it('names a bot account BOT in gameFull, so a bot knows its opponent is one', async () => {
    const { service } = await testService();
    await service.ctx.pool.query('UPDATE users SET bot = true WHERE id = $1', [black.user.id]);
    const full = await gameFull(await watch(white));
    assert.equal(full.black.title, 'BOT');
    assert.equal(full.white.title, null);
  });

  describe('an opponent who left (DESIGN 2.11, claim)', () => {
    let sdk: Client;
    const rooms: Room[] = [];
    beforeEach(async () => {
      sdk = new Client((await testService()).service.url.replace('http', 'ws'));
      await ok(white, game.id, 'move/e2e4');
      await ok(black, game.id, 'move/e7e5');
    });
    afterEach(async () => {
      (await testService()).clock.reset();
      await Promise.all(rooms.splice(0).map((r) => r.leave(true).catch(() => {})));
    });

    it('says opponentGone with the seconds until a claim, gone false when they come back, and claim-victory wins on time (Lichess\'s timeout)', async () => {
      // The claims are the Board API's.
      const claimant = await player(black.user, 'board');
      const s = await watch(claimant);
      await gameFull(s);
      const room = await sdk.joinById(game.id, { token: game.white.accessToken });
      room.onMessage('*', () => {});
      await room.leave(true);
      const gone = await s.next('opponentGone');
      OpponentGoneLine.strict().parse(gone);
      const { clock, config } = await testService();
      assert.equal(gone.gone, true);
      assert.ok(gone.claimWinInSeconds > config.claimMs / 1000 - 3 && gone.claimWinInSeconds <= config.claimMs / 1000, JSON.stringify(gone));
      assert.match(await refused(claimant, game.id, 'claim-victory'), /gone|come back/i);

      const back = await sdk.joinById(game.id, { token: game.white.accessToken });
      back.onMessage('*', () => {});
      assert.deepEqual(await s.next('opponentGone'), { type: 'opponentGone', gone: false });
      await back.leave(true);
      assert.equal((await s.next('opponentGone')).gone, true);

      clock.skip(config.claimMs);
      await ok(claimant, game.id, 'claim-victory');
      const final = await gameState(s);
      assert.deepEqual([final.status, final.winner], ['timeout', 'black']);
      assert.ok(final.wtime > 0 && final.btime > 0, 'nobody flagged: both clocks stay');
      assert.equal(await s.ended, 'complete');
    });

    it('tells nothing of their own absence to the player who left, even when they act by this API', async () => {
      const [s, opponent] = [await watch(white), await watch(black)];
      await gameFull(s);
      await gameFull(opponent);
      const room = await sdk.joinById(game.id, { token: game.white.accessToken });
      room.onMessage('*', () => {});
      await room.leave(true);
      assert.equal((await opponent.next('opponentGone')).gone, true, 'the opponent is told');
      await ok(white, game.id, 'move/g1f3');
      assert.equal((await gameState(s)).moves, 'e2e4 e7e5 g1f3');
      assert.ok(!s.seen.some((m) => m.type === 'opponentGone'), 'the opponentGone about white went to black only');
    });
  });
});

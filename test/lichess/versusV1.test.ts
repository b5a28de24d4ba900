import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { personalToken } from '../helpers/credentials.ts';
import { api, type ApiResponse } from '../helpers/http.ts';
import { NdjsonClient, type NdMessage } from '../helpers/ndjson.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// One game from challenge to end between the two APIs' clients, each through its own normal flow
// (DESIGN 2.13: "a bot on the Lichess API plays … a client of /v1"): a Board API client (a
// personal token, form POSTs, cued by its event stream and its game stream) against a /v1 client
// (a session's token, JSON with an Idempotency-Key on each command, cued by its user channel and
// its game stream over NDJSON). Then the finished game, read on each API, is one game.

type BoardClient = TestUser & { token: string };

/** A POST as a Board API client sends it: its personal token, a form body (or none). */
function boardPost(p: BoardClient, path: string, form?: Record<string, string>): Promise<ApiResponse> {
  const rawBody = form ? new URLSearchParams(form).toString() : undefined;
  return api('POST', path, { token: p.token, ip: p.ip, rawBody, headers: form ? { 'content-type': 'application/x-www-form-urlencoded' } : {} });
}

async function boardOk(p: BoardClient, path: string, form?: Record<string, string>): Promise<void> {
  const res = await boardPost(p, path, form);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  assert.deepEqual(res.body, { ok: true });
}

/** A /v1 command as a /v1 client sends it: JSON, with a key of its own so a retry is safe. */
async function v1Post(u: TestUser, path: string, body: unknown = {}): Promise<any> {
  const res = await api('POST', path, { token: u.accessToken, ip: u.ip, body, headers: { 'Idempotency-Key': randomUUID() } });
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  assert.equal(res.body.success, true);
  return res.body.data;
}

/** The next line of `type` whose `pick` is `value`, passing over the others (keep-alive states, other games). */
async function lineWhere(s: NdjsonClient, type: string, pick: (m: NdMessage) => unknown, value: unknown): Promise<NdMessage> {
  for (;;) {
    const m = await s.until(type);
    if (pick(m) === value) return m;
  }
}

describe('a Board API client plays a /v1 client, each through its own flow (DESIGN 2.13)', () => {
  const open: NdjsonClient[] = [];
  const stream = async (path: string, token: string) => {
    const s = await NdjsonClient.open(path, { authorization: `Bearer ${token}` });
    open.push(s);
    assert.equal(s.status, 200, `${path}: ${JSON.stringify(s.body)}`);
    return s;
  };
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  it('plays from a Lichess challenge accepted on /v1 to a draw offered on the Board API and accepted on /v1; both APIs then read the same finished game', async () => {
    const [boardUser, v1] = await Promise.all([createUser(), createUser()]);
    const board: BoardClient = { ...boardUser, token: (await personalToken(boardUser, ['board:play', 'challenge:write'])).token };
    const [boardEvents, v1Events] = [await stream('/api/stream/event', board.token), await stream('/v1/stream/events', v1.accessToken)];

    // The Board client challenges by name on Lichess's path; the /v1 client hears of it on its user channel and accepts.
    const sent = await boardPost(board, `/api/challenge/${v1.username}`, { 'clock.limit': '300', 'clock.increment': '3', color: 'white', rated: 'true' });
    assert.equal(sent.status, 200, sent.text);
    const id: string = sent.body.id;
    assert.equal((await lineWhere(boardEvents, 'challenge', (m) => m.challenge.id, id)).challenge.direction, 'out');
    const received = await lineWhere(v1Events, 'challenge_received', (m) => m.game_id, id);
    assert.equal(received.from.username, board.username);
    const accepted = await v1Post(v1, `/v1/games/${id}/accept`);
    assert.deepEqual([accepted.status, accepted.white_player.username, accepted.black_player.username], ['active', board.username, v1.username]);

    // Each side opens its game stream from its own cue: gameStart on Lichess's events, the accept's answer on /v1.
    const start = await lineWhere(boardEvents, 'gameStart', (m) => m.game.gameId, id);
    assert.deepEqual([start.game.color, start.game.isMyTurn, start.game.opponent.username], ['white', true, v1.username]);
    const boardGame = await stream(`/api/board/game/stream/${start.game.gameId}`, board.token);
    const v1Game = await stream(`/v1/games/${id}/stream`, v1.accessToken);
    const full = await boardGame.next('gameFull');
    assert.deepEqual([full.white.name, full.black.name, full.speed, full.rated, full.clock], [board.username, v1.username, 'blitz', true, { initial: 300_000, increment: 3000 }]);
    assert.equal(full.state.moves, '');
    assert.equal((await v1Game.next('state')).game.status, 'active');

    // 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6: each moves when its own stream says it is its turn.
    const line = [['e2', 'e4'], ['e7', 'e5'], ['g1', 'f3'], ['b8', 'c6'], ['f1', 'b5'], ['a7', 'a6']];
    const sans: string[] = [];
    for (const [i, [from, to]] of line.entries()) {
      const ucis = line.slice(0, i + 1).map(([f, t]) => f + t).join(' ');
      if (i % 2 === 0) {
        await boardOk(board, `/api/board/game/${id}/move/${from}${to}`);
      } else {
        const played = await v1Post(v1, `/v1/games/${id}/moves`, { from, to });
        assert.equal(played.game.move_count, i + 1);
      }
      const state = await lineWhere(boardGame, 'gameState', (m) => m.moves, ucis);
      assert.equal(state.status, 'started');
      const move = (await v1Game.until('move')).move;
      assert.deepEqual([move.from, move.to, move.ply], [from, to, i + 1]);
      sans.push(move.san);
    }
    assert.deepEqual(sans, ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6']);

    // The Board client offers a draw; the /v1 client reads the offer on its stream and accepts it by its id.
    await boardOk(board, `/api/board/game/${id}/draw/yes`);
    assert.equal((await boardGame.next('gameState')).wdraw, true);
    const offer = (await v1Game.until('draw_offer')).draw_offer;
    assert.equal(offer.status, 'pending');
    await v1Post(v1, `/v1/games/${id}/draw/${offer.id}`, { accept: true });

    const final = await boardGame.next('gameState');
    assert.deepEqual([final.status, final.winner, final.moves], ['draw', undefined, line.map(([f, t]) => f + t).join(' ')]);
    assert.equal(await boardGame.ended, 'complete', 'the Board stream ends after the final gameState');
    const end = await v1Game.until('game_end');
    assert.deepEqual([end.result.result, end.result.winner, end.result.termination], ['1/2-1/2', null, 'agreement']);
    assert.equal(await v1Game.ended, 'complete', 'the /v1 stream ends after game_end');
    const finish = await lineWhere(boardEvents, 'gameFinish', (m) => m.game.gameId, id);
    assert.equal(finish.game.status.name, 'draw');

    // The finished game as each API reads it: the same moves, the same result.
    const detail = (await api('GET', `/v1/games/${id}`, { token: v1.accessToken, ip: v1.ip })).body.data;
    const exported = await api('GET', `/game/export/${id}?pgnInJson=true`, { token: board.token, ip: board.ip, headers: { accept: 'application/json' } });
    assert.equal(exported.status, 200, exported.text);
    const json = exported.body;
    assert.deepEqual([detail.status, detail.result, detail.winner, detail.termination], ['finished', '1/2-1/2', null, 'agreement']);
    assert.deepEqual([json.status, json.winner], ['draw', undefined]);
    assert.equal(json.moves, sans.join(' '));
    assert.equal(detail.pgn.trim(), '1. e4 e5 2. Nf3 Nc6 3. Bb5 a6');
    assert.match(json.pgn, /\[Result "1\/2-1\/2"\]/);
    assert.match(json.pgn, /1\. e4 .*e5 .*2\. Nf3 .*Nc6 .*3\. Bb5 .*a6 .*1\/2-1\/2/s);
    assert.deepEqual([json.players.white.user.name, json.players.black.user.name], [detail.white_player.username, detail.black_player.username]);
    assert.deepEqual([json.players.white.ratingDiff, json.players.black.ratingDiff], [detail.rating_changes.white, detail.rating_changes.black]);
  });
});

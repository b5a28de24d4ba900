import assert from 'node:assert/strict';
import { as, challenge, createActiveGame, getGame, play, playLine } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DETAIL_KEYS = [
  'id', 'white_player', 'black_player', 'status', 'result', 'winner', 'termination', 'time_control', 'initial_time',
  'increment', 'days_per_move', 'rated', 'current_turn', 'move_count', 'fen', 'pgn', 'white_time_remaining', 'black_time_remaining',
  'moves', 'last_move_at', 'created_at', 'updated_at',
  // Extras (DESIGN 2.4): why an abandoned game ended, rating changes, the pending draw offer, the challenge deadline.
  'abort_reason', 'rating_changes', 'draw_offer', 'expires_at',
  // DESIGN 2.10: the arena that paired the game, null for every other.
  'tournament_id',
  // DESIGN 2.11: the game this one is a rematch of, and a finished game's rematch.
  'rematch_of', 'rematch',
];
const PLAYER_KEYS = ['avatar_url', 'country', 'id', 'rating', 'username'];
const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

describe('GET /games/{id} (detail view)', () => {
  let a: TestUser;
  let b: TestUser;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
  });

  it('shows a pending challenge with every field, current ratings and its deadline', async () => {
    const id = await challenge(a, b, { rated: false });
    const res = await getGame(id, b);
    assert.equal(res.status, 200);
    const g = res.body.data;
    assert.deepEqual(Object.keys(g).sort(), [...DETAIL_KEYS].sort());
    assert.deepEqual(Object.keys(g.white_player).sort(), PLAYER_KEYS);
    assert.deepEqual(g.white_player, {
      id: a.id,
      username: a.username,
      rating: 1500,
      avatar_url: `http://chess.test/v1/users/${a.id}/avatar.svg`,
      country: null,
    });
    assert.equal(g.black_player.id, b.id);
    assert.equal(g.status, 'pending');
    assert.equal(g.rated, false);
    assert.equal(g.time_control, 'blitz');
    assert.equal(g.initial_time, 300);
    assert.equal(g.increment, 0);
    assert.equal(g.fen, START_FEN);
    assert.equal(g.pgn, '');
    assert.equal(g.current_turn, 'white');
    assert.equal(g.move_count, 0);
    assert.deepEqual(g.moves, []);
    assert.equal(g.last_move_at, null);
    assert.equal(g.result, null);
    assert.equal(g.winner, null);
    assert.equal(g.termination, null);
    assert.equal(g.abort_reason, null);
    assert.equal(g.rating_changes, null);
    assert.equal(g.draw_offer, null);
    assert.match(g.expires_at, ISO_UTC);
    assert.match(g.created_at, ISO_UTC);
    assert.match(g.updated_at, ISO_UTC);
  });

  it('shows moves as rows of White and Black, with each mover’s clock in seconds', async () => {
    const game = await createActiveGame(a, b, { time_control: 'blitz', initial_time: 180, increment: 2 });
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    const g = (await getGame(game.id, a)).body.data;
    assert.equal(g.move_count, 3);
    assert.equal(g.current_turn, 'black');
    assert.equal(g.pgn, '1. e4 e5 2. Nf3');
    assert.equal(g.fen, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2');
    assert.equal(g.moves.length, 2);
    // Clocks start with Black's first move: the first two moves are untimed, without increment.
    assert.deepEqual(g.moves[0], { number: 1, white: 'e4', black: 'e5', white_time: 180, black_time: 180 });
    assert.equal(g.moves[1].number, 2);
    assert.equal(g.moves[1].white, 'Nf3');
    assert.equal(g.moves[1].black, null);
    assert.equal(g.moves[1].black_time, null);
    assert.ok(g.moves[1].white_time > 180 && g.moves[1].white_time <= 182, `white_time ${g.moves[1].white_time}`);
    assert.match(g.last_move_at, ISO_UTC);
    assert.equal(g.white_time_remaining, g.moves[1].white_time);
  });

  it("runs the side to move's clock down between reads (seconds, millisecond precision)", async () => {
    const game = await createActiveGame(a, b);
    await playLine(game, ['e2e4', 'e7e5']);
    const first = (await getGame(game.id, a)).body.data;
    await new Promise((r) => setTimeout(r, 250));
    const second = (await getGame(game.id, a)).body.data;
    assert.equal(second.current_turn, 'white');
    assert.ok(first.white_time_remaining < 300, `${first.white_time_remaining}`);
    const spent = first.white_time_remaining - second.white_time_remaining;
    assert.ok(spent >= 0.2 && spent < 1, `spent ${spent}`);
    assert.equal(second.black_time_remaining, 300);
  });

  it('requires a valid access token (401)', async () => {
    const id = await challenge(a, b);
    const res = await api('GET', `/v1/games/${id}`, { ip: newIp() });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });

  it('is served under /api and /api/v1 as well', async () => {
    const id = await challenge(a, b);
    for (const prefix of ['/api', '/api/v1']) {
      const res = await api('GET', `${prefix}/games/${id}`, as(a));
      assert.equal(res.status, 200);
      assert.equal(res.body.data.id, id);
    }
  });

  it('counts reads against the get-game limit (60 a minute)', async () => {
    const id = await challenge(a, b);
    const res = await getGame(id, a);
    assert.equal(res.headers.get('x-ratelimit-limit'), '60');
  });
});

describe('GET /games/{id}/pgn', () => {
  let a: TestUser;
  let b: TestUser;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
  });

  it("exports a finished game with the Seven Tag Roster, ratings, time control, termination and clocks", async () => {
    const game = await createActiveGame(a, b, { time_control: 'bullet', initial_time: 60, increment: 1 });
    await playLine(game, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
    const res = await api('GET', `/v1/games/${game.id}/pgn`, as(a));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-chess-pgn; charset=utf-8');
    const pgn = res.text;
    const today = new Date().toISOString().slice(0, 10).replace(/-/g, '.');
    const tags = Object.fromEntries([...pgn.matchAll(/^\[(\w+) "(.*)"\]$/gm)].map((m) => [m[1], m[2]]));
    assert.deepEqual(Object.keys(tags).slice(0, 7), ['Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result']);
    assert.equal(tags.Event, 'Rated bullet game');
    assert.equal(tags.Site, `http://chess.test/play/${game.id}`);
    assert.equal(tags.Date, today);
    assert.equal(tags.White, a.username);
    assert.equal(tags.Black, b.username);
    assert.equal(tags.Result, '0-1');
    assert.equal(tags.WhiteElo, '1500');
    assert.equal(tags.BlackElo, '1500');
    assert.equal(tags.TimeControl, '60+1');
    assert.equal(tags.Termination, 'checkmate');
    assert.match(tags.WhiteRatingDiff, /^-\d+$/);
    assert.match(tags.BlackRatingDiff, /^\+\d+$/);
    const [, movetext] = pgn.split('\n\n');
    assert.ok(movetext.split('\n').every((line) => line.length <= 80));
    assert.match(
      movetext.replace(/\n/g, ' '),
      /^1\. f3 \{ \[%clk 0:01:00\] \} 1\.\.\. e5 \{ \[%clk 0:01:00\] \} 2\. g4 \{ \[%clk 0:01:0\d\] \} 2\.\.\. Qh4# \{ \[%clk 0:01:0\d\] \} 0-1 $/,
    );
  });

  it('exports a pending game with result * and no moves', async () => {
    const id = await challenge(a, b, { rated: false });
    const res = await api('GET', `/v1/games/${id}/pgn`, as(b));
    assert.equal(res.status, 200);
    assert.match(res.text, /\[Event "Casual blitz game"\]/);
    assert.match(res.text, /\[Result "\*"\]/);
    assert.match(res.text, /\[Termination "unterminated"\]/);
    assert.match(res.text, /\n\n\*\n$/);
  });

  it('answers an unknown game with the JSON 404 envelope', async () => {
    const res = await api('GET', '/v1/games/00000000-0000-4000-8000-000000000000/pgn', as(a));
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'GAME_NOT_FOUND');
  });

  it('exports a game in play with its moves so far and result *', async () => {
    const game = await createActiveGame(a, b);
    await play(game, a, 'd2', 'd4');
    const res = await api('GET', `/v1/games/${game.id}/pgn`, as(b));
    assert.match(res.text, /\n\n1\. d4 \{ \[%clk 0:05:00\] \} \*\n$/);
  });
});

describe('OpenAPI document of the game routes', () => {
  it('documents every game route with its errors, and hides the PATCH alias', async () => {
    const res = await api('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    const paths = res.body.paths;
    const expected: [string, string][] = [
      ['/games', 'get'], ['/games', 'post'], ['/games/{id}', 'get'], ['/games/{id}/pgn', 'get'],
      ['/games/{id}/accept', 'post'], ['/games/{id}/decline', 'post'], ['/games/{id}/cancel', 'post'],
      ['/games/{id}/moves', 'post'], ['/games/{id}/resign', 'post'], ['/games/{id}/draw', 'post'],
      ['/games/{id}/draw/{offer_id}', 'post'],
    ];
    for (const [path, method] of expected) assert.ok(paths[path]?.[method], `${method} ${path} undocumented`);
    assert.equal(paths['/games/{id}/move'], undefined);
    assert.match(paths['/games/{id}/moves'].post.responses['403'].description, /NOT_A_PLAYER/);
    assert.match(paths['/games/{id}/moves'].post.responses['403'].description, /NOT_YOUR_TURN/);
    const detail = paths['/games/{id}'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(detail.properties.data, { $ref: '#/components/schemas/Game' });
    assert.ok(res.body.components.schemas.Game.properties.rating_changes);
  });
});

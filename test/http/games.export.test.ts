import assert from 'node:assert/strict';
import http from 'node:http';
import { as, createActiveGame, getGame, playLine, type ActiveGame } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { createUser, uniqueUsername, type TestUser } from '../helpers/users.ts';
import { createPool } from '../../src/db/pool.ts';
import { EXPORT_BATCH as BATCH } from '../../src/services/gameExport.ts';
import { insertFinishedGames, insertUser } from '../support/fixtures.ts';

const PGN = 'application/x-chess-pgn; charset=utf-8';
const NDJSON = 'application/x-ndjson; charset=utf-8';

type ExportOptions = { accept?: string; token?: string; ip?: string };

function exportGames(userId: string, query = '', o: ExportOptions = {}): Promise<ApiResponse> {
  return api('GET', `/v1/users/${userId}/games/export${query ? `?${query}` : ''}`, {
    token: o.token,
    ip: o.ip,
    headers: o.accept ? { accept: o.accept } : {},
  });
}

/** The games of a PGN export, each as GET /games/{id}/pgn writes it (they end with one newline; a blank line parts them). */
const pgnGames = (text: string) => text.split(/\n\n(?=\[Event )/).map((pgn, i, all) => (i < all.length - 1 ? `${pgn}\n` : pgn.replace(/\n$/, '')));

async function pgnOf(id: string, user: TestUser, query = ''): Promise<string> {
  const res = await api('GET', `/v1/games/${id}/pgn${query ? `?${query}` : ''}`, as(user));
  assert.equal(res.status, 200, res.text);
  return res.text;
}

/** A game played through the API to its end: `loser` resigns after `ucis`. */
async function finishedGame(white: TestUser, black: TestUser, ucis: string[], o: { loser?: 'white' | 'black'; time_control?: string; initial_time?: number; increment?: number; rated?: boolean } = {}) {
  const { loser = 'black', ...options } = o;
  const game = await createActiveGame(white, black, { color: 'white', ...options });
  await playLine(game, ucis);
  const res = await api('POST', `/v1/games/${game.id}/resign`, as(loser === 'white' ? game.white : game.black));
  assert.equal(res.status, 200, res.text);
  return game;
}

/** The service's /metrics, by name (one scrape: the values are of one instant). */
async function metrics(): Promise<Map<string, number>> {
  const { service } = await testService();
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return new Map([...text.matchAll(/^(\w+) (\S+)$/gm)].map((m) => [m[1], Number(m[2])]));
}

async function metric(name: string): Promise<number> {
  const value = (await metrics()).get(name);
  assert.ok(value !== undefined, `${name} missing from /metrics`);
  return value;
}

describe('GET /users/{id}/games/export', () => {
  let a: TestUser;
  let b: TestUser;
  let c: TestUser;
  let g1: ActiveGame;
  let g2: ActiveGame;
  let g3: ActiveGame;
  before(async () => {
    // b's name holds an i (the `vs` filter must not read İ as one).
    [a, b, c] = await Promise.all([createUser(), createUser({ username: uniqueUsername('vis') }), createUser()]);
    // Oldest to newest: a (White) beats b; c (White) loses to a (Black), casual bullet; a (White) mated by b, rapid.
    g1 = await finishedGame(a, b, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
    g2 = await finishedGame(c, a, ['d2d4', 'd7d5'], { loser: 'white', time_control: 'bullet', initial_time: 60, increment: 0, rated: false });
    g3 = await finishedGame(a, b, ['f2f3', 'e7e5', 'g2g4'], { loser: 'white', time_control: 'rapid', initial_time: 600, increment: 5 });
  });

  it('streams every finished game, newest first, as PGN: each exactly as GET /games/{id}/pgn writes it, a blank line between', async () => {
    const res = await exportGames(a.id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), PGN);
    const expected = [await pgnOf(g3.id, a), await pgnOf(g2.id, a), await pgnOf(g1.id, a)];
    assert.equal(res.text, expected.map((pgn) => `${pgn}\n`).join(''));
    assert.deepEqual(pgnGames(res.text), expected);
    // The defaults: clocks and the opening's tags.
    assert.match(expected[2], /\[ECO "C\d\d"\]\n\[Opening "King's Knight Opening: Normal Variation"\]/);
    assert.match(expected[2], /1\. e4 \{ \[%clk 0:05:00\] \} 1\.\.\. e5 \{ \[%clk 0:05:00\] \}/);
  });

  it('answers the same whether asked with a token or without, and for */*', async () => {
    const anonymous = await exportGames(a.id, '', { ip: newIp() });
    const own = await exportGames(a.id, '', { token: a.accessToken, ip: a.ip });
    const other = await exportGames(a.id, '', { token: b.accessToken, ip: b.ip, accept: '*/*' });
    assert.equal(own.text, anonymous.text);
    assert.equal(other.text, anonymous.text);
    assert.equal(other.headers.get('content-type'), PGN);
  });

  it('takes a personal token of any scope: a public read', async () => {
    const made = await api('POST', '/v1/account/tokens', { ...as(b), body: { description: 'export script', scopes: ['puzzles:write'] } });
    assert.equal(made.status, 201, made.text);
    const res = await exportGames(a.id, '', { token: made.body.data.token, ip: b.ip });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, (await exportGames(a.id, '', { ip: newIp() })).text);
  });

  it('answers NDJSON for Accept: application/x-ndjson: one line per game, the data of GET /games/{id}', async () => {
    const res = await exportGames(a.id, '', { accept: 'application/x-ndjson' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), NDJSON);
    assert.ok(res.text.endsWith('\n'));
    const lines = res.text.slice(0, -1).split('\n').map((line) => JSON.parse(line));
    const details = await Promise.all([g3, g2, g1].map(async (g) => (await getGame(g.id, a)).body.data));
    assert.deepEqual(lines, details);
  });

  it('leaves the clocks and the opening out on request, as /pgn does with the same options', async () => {
    const res = await exportGames(a.id, 'clocks=false&opening=false&max=1');
    const pgn = await pgnOf(g3.id, a, 'clocks=false&opening=false');
    assert.equal(res.text, `${pgn}\n`);
    assert.doesNotMatch(pgn, /%clk|\[Opening |\[ECO /);
    assert.match(pgn, /\n\n1\. f3 e5 2\. g4 0-1\n$/);
  });

  it('writes [%eval] comments with evals=true where the analysis is done, before the clock', async () => {
    const { service } = await testService();
    const move = (san: string, evaluation: number, mate: number | null = null) => ({ san, evaluation, mate, best_move: null, classification: 'good' });
    const result = {
      moves: [
        { move_number: 1, white: move('e4', 0.31), black: move('e5', 0.27) },
        { move_number: 2, white: move('Nf3', -1.5), black: move('Nc6', 100, 3) },
      ],
    };
    await service.ctx.pool.query(
      `INSERT INTO game_analyses (game_id, status, progress_total, progress_done, result)
       VALUES ($1, 'done', 5, 5, $2)
       ON CONFLICT (game_id) DO UPDATE SET status = 'done', result = $2`,
      [g1.id, JSON.stringify(result)],
    );
    const res = await exportGames(a.id, 'evals=true');
    const games = pgnGames(res.text);
    assert.equal(games[2], await pgnOf(g1.id, a, 'evals=true'));
    const movetext = games[2].replace(/\n/g, ' ');
    assert.match(movetext, /1\. e4 \{ \[%eval 0\.31\] \[%clk 0:05:00\] \} 1\.\.\. e5 \{ \[%eval 0\.27\] \[%clk 0:05:00\] \}/);
    assert.match(movetext, /2\. Nf3 \{ \[%eval -1\.50\] \[%clk [\d:]+\] \} 2\.\.\. Nc6 \{ \[%eval #3\] \[%clk [\d:]+\] \}/);
    // Without an analysis, no evaluations; without evals=true, none either.
    assert.doesNotMatch(games[0], /%eval/);
    assert.doesNotMatch((await exportGames(a.id)).text, /%eval/);
  });

  describe('filters', () => {
    const ids = async (query: string, user: TestUser = a) => {
      const res = await exportGames(user.id, query, { accept: 'application/x-ndjson' });
      assert.equal(res.status, 200, res.text);
      return res.text.split('\n').filter(Boolean).map((line) => JSON.parse(line).id);
    };

    it('max: the newest games only', async () => {
      assert.deepEqual(await ids('max=2'), [g3.id, g2.id]);
    });

    it('color, rated and time_control', async () => {
      assert.deepEqual(await ids('color=black'), [g2.id]);
      assert.deepEqual(await ids('color=white'), [g3.id, g1.id]);
      assert.deepEqual(await ids('rated=false'), [g2.id]);
      assert.deepEqual(await ids('rated=true'), [g3.id, g1.id]);
      assert.deepEqual(await ids('time_control=rapid'), [g3.id]);
      assert.deepEqual(await ids('time_control=bullet&color=black'), [g2.id]);
      assert.deepEqual(await ids('time_control=classical'), []);
    });

    it('vs: the games against that username, in any case; a name nobody has matches nothing', async () => {
      assert.deepEqual(await ids(`vs=${c.username}`), [g2.id]);
      assert.deepEqual(await ids(`vs=${b.username.toUpperCase()}`), [g3.id, g1.id]);
      assert.deepEqual(await ids('vs=nobody_here_1'), []);
      // The form the login's lookup uses: full-width letters reach the name, İ for an i does not.
      const fullWidth = [...b.username].map((ch) => (/[a-z]/.test(ch) ? String.fromCodePoint(ch.codePointAt(0)! - 0x61 + 0xff41) : ch)).join('');
      assert.deepEqual(await ids(`vs=${encodeURIComponent(fullWidth)}`), [g3.id, g1.id]);
      assert.deepEqual(await ids(`vs=${encodeURIComponent(b.username.replace('i', 'İ'))}`), []);
    });

    it('since and until: on the time the game ended (ms since the epoch), since inclusive, until exclusive', async () => {
      const { service } = await testService();
      const { rows } = await service.ctx.pool.query('SELECT id, finished_at FROM games WHERE id = ANY($1)', [[g1.id, g2.id, g3.id]]);
      const ended = new Map(rows.map((r) => [r.id, (r.finished_at as Date).getTime()]));
      const t2 = ended.get(g2.id)!;
      assert.ok(ended.get(g1.id)! < t2 && t2 < ended.get(g3.id)!, 'the games ended in order, a millisecond apart at least');
      assert.deepEqual(await ids(`since=${t2}`), [g3.id, g2.id]);
      assert.deepEqual(await ids(`until=${t2}`), [g1.id]);
      assert.deepEqual(await ids(`since=${t2}&until=${t2 + 1}`), [g2.id]);
    });

    it('time_control=correspondence: the correspondence games, with their per-move time control', async () => {
      const { service } = await testService();
      const [d, e] = await Promise.all([insertUser(service.ctx.pool), insertUser(service.ctx.pool)]);
      await insertFinishedGames(service.ctx.pool, { whiteId: d, blackId: e, count: 2, plies: 6, newestEnd: new Date(), timeControl: 'blitz' });
      await insertFinishedGames(service.ctx.pool, { whiteId: e, blackId: d, count: 1, plies: 6, newestEnd: new Date(Date.now() - 60_000), timeControl: 'correspondence' });
      const res = await exportGames(d, 'time_control=correspondence');
      const games = pgnGames(res.text);
      assert.equal(games.length, 1);
      assert.match(games[0], /\[Event "Rated correspondence game"\]\n/);
      assert.match(games[0], /\[TimeControl "1\/259200"\]/);
      assert.equal(pgnGames((await exportGames(d, 'time_control=blitz')).text).length, 2);
    });
  });

  it('answers HEAD with the headers only, reading one batch at most', async () => {
    const before = await metric('chess_export_batches_total');
    const res = await api('HEAD', `/v1/users/${a.id}/games/export`, { headers: { accept: 'application/x-ndjson' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), NDJSON);
    assert.equal(res.text, '');
    assert.ok((await metric('chess_export_batches_total')) - before <= 1);
  });

  it('answers an empty body for a user without finished games', async () => {
    const res = await exportGames((await createUser()).id);
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
  });

  it('answers an unknown or malformed user id with 404 USER_NOT_FOUND', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-user']) {
      const res = await exportGames(id);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'USER_NOT_FOUND');
    }
  });

  it('answers a bad parameter with 400 VALIDATION_ERROR naming it', async () => {
    const bad: [string, string][] = [
      ['since=yesterday', 'since'], ['until=-5', 'until'], ['since=1.5', 'since'], ['max=0', 'max'], ['max=ten', 'max'],
      ['rated=yes', 'rated'], ['time_control=hyperbullet', 'time_control'], ['color=red', 'color'], ['vs=', 'vs'],
      ['vs=a_name_far_too_long_for_anyone', 'vs'], ['clocks=maybe', 'clocks'], ['evals=1', 'evals'], ['opening=no', 'opening'],
      ['max=1&max=2', 'max'],
    ];
    for (const [query, field] of bad) {
      const res = await exportGames(a.id, query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.ok(res.body.error.details?.[field], `${query}: details name ${field}: ${res.text}`);
    }
  });
});

describe('GET /games/{id} with Accept: application/x-chess-pgn', () => {
  it('answers the PGN of GET /games/{id}/pgn, with its options; JSON otherwise', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const game = await finishedGame(a, b, ['e2e4', 'c7c5']);
    const res = await api('GET', `/v1/games/${game.id}`, { ...as(a), headers: { accept: 'application/x-chess-pgn' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), PGN);
    assert.equal(res.text, await pgnOf(game.id, a));
    assert.match(res.text, /\[Opening "Sicilian Defense"\]/);
    const bare = await api('GET', `/v1/games/${game.id}?clocks=false`, { ...as(a), headers: { accept: 'application/x-chess-pgn' } });
    assert.equal(bare.text, await pgnOf(game.id, a, 'clocks=false'));
    const json = await api('GET', `/v1/games/${game.id}`, { ...as(a), headers: { accept: 'application/json, application/x-chess-pgn;q=0.5' } });
    assert.equal(json.body.data.id, game.id);
    assert.equal((await getGame(game.id, a)).body.data.id, game.id);
  });
});

/** An export read through a socket the test controls: it can stop reading, and hang up. */
function openExport(path: string, headers: Record<string, string>) {
  return new Promise<{ res: http.IncomingMessage; first: Buffer; req: http.ClientRequest }>(async (resolve, reject) => {
    const { service } = await testService();
    const req = http.get(`${service.url}${path}`, { headers }, (res) => {
      res.once('data', (first: Buffer) => {
        res.pause();
        resolve({ res, first, req });
      });
    });
    req.on('error', reject);
  });
}

/**
 * Until the export waits for its paused client, no batch being read, over three scrapes 100 ms
 * apart (a client that reads has the buffer drained within them): its batches are then as many as
 * they will get.
 */
async function waitUntilBlocked(): Promise<number> {
  const seen: string[] = [];
  return until('the export to wait for its client', async () => {
    const m = await metrics();
    const batches = m.get('chess_export_batches_total')!;
    seen.push(m.get('chess_exports_waiting') === 1 && m.get('chess_export_batches_reading') === 0 ? `blocked at ${batches}` : 'busy');
    return seen.length >= 3 && seen.slice(-3).every((state) => state === seen.at(-1) && state !== 'busy') && batches;
  }, { everyMs: 100 });
}

describe('GET /users/{id}/games/export streams', function () {
  this.timeout(120_000);
  // About 3.9 KB of PGN a game: 23 MB in all, far more than the sockets' buffers between test and service hold.
  const COUNT = 6000;
  let heavy: string;
  before(async () => {
    const { db } = await testService();
    // The service's pool cancels statements after its timeout; this bulk insert takes longer.
    const pool = createPool(db.url, 1, { statementTimeoutMs: 0 });
    try {
      heavy = await insertUser(pool);
      const opponent = await insertUser(pool);
      await insertFinishedGames(pool, { whiteId: heavy, blackId: opponent, count: COUNT, plies: 120, newestEnd: new Date() });
    } finally {
      await pool.end();
    }
  });

  afterEach(async () => {
    await until('no export to run', async () => (await metric('chess_exports_active')) === 0);
  });

  it('reads no further while the client does not read, and sends every game once it reads again', async () => {
    const before = await metric('chess_export_batches_total');
    const { res, first } = await openExport(`/v1/users/${heavy}/games/export?opening=false`, { 'x-forwarded-for': newIp() });
    const blocked = (await waitUntilBlocked()) - before;
    assert.ok(blocked < COUNT / BATCH, `read ${blocked} of ${COUNT / BATCH} batches for a client that reads nothing`);
    // Still no further a moment later: the export waits for the client, not for the database.
    assert.equal((await metric('chess_export_batches_total')) - before, blocked);
    let text = first.toString('utf8');
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.resume();
    await new Promise((resolve) => res.once('end', resolve));
    assert.equal(text.match(/^\[Event /gm)?.length, COUNT);
    // One more batch than the games fill: the empty one that says there are no more.
    assert.equal((await metric('chess_export_batches_total')) - before, COUNT / BATCH + 1);
  });

  it('stops reading when the client hangs up', async () => {
    const before = await metric('chess_export_batches_total');
    const { req } = await openExport(`/v1/users/${heavy}/games/export?opening=false`, { 'x-forwarded-for': newIp(), accept: 'application/x-ndjson' });
    const blocked = await waitUntilBlocked();
    req.destroy();
    await until('the export to end', async () => (await metric('chess_exports_active')) === 0);
    assert.equal(await metric('chess_export_batches_total'), blocked);
    assert.ok(blocked - before < COUNT / BATCH);
  });

  it('runs one export at a time per caller: a second meanwhile is 429 EXPORT_IN_PROGRESS, and allowed once the first ends', async () => {
    const ip = newIp();
    const { req } = await openExport(`/v1/users/${heavy}/games/export`, { 'x-forwarded-for': ip });
    const second = await exportGames(heavy, 'max=1', { ip });
    assert.equal(second.status, 429);
    assert.equal(second.body.error.code, 'EXPORT_IN_PROGRESS');
    // Another caller is not held up: another address, or a user with a token from the same one.
    assert.equal((await exportGames(heavy, 'max=1', { ip: newIp() })).status, 200);
    const user = await createUser({ ip });
    assert.equal((await exportGames(heavy, 'max=1', { ip, token: user.accessToken })).status, 200);
    req.destroy();
    await until('the first export to end', async () => (await metric('chess_exports_active')) === 0);
    const third = await exportGames(heavy, 'max=1', { ip });
    assert.equal(third.status, 200);
    assert.equal(third.text.match(/^\[Event /gm)?.length, 1);
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Chess } from 'chess.js';
import { migrate } from '../../src/db/migrate.ts';
import { as, BLITZ, getGame, play } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// DESIGN 2.14, the computer: the real engine (the stockfish package's lite build) plays the bot
// accounts through the game's actor. Its think is real time, bounded by the level (50 ms at 1).

const computer = (user: TestUser, body: Record<string, unknown>) => api('POST', '/v1/games', as(user, { type: 'computer', ...BLITZ, ...body }));

/** A game against the computer that must start (201): the game. */
async function startComputer(user: TestUser, body: Record<string, unknown>) {
  const res = await computer(user, body);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

/** The game once `done` holds, polled (the engine answers in real time). */
async function gameWhen(id: string, user: TestUser, done: (g: any) => boolean) {
  return until(`game ${id}`, async () => {
    const res = await getGame(id, user);
    assert.equal(res.status, 200, res.text);
    return done(res.body.data) ? res.body.data : undefined;
  }, { ms: 20_000, everyMs: 50 });
}

/** A legal move of the side to move in `fen`, the first chess.js lists. */
function someMove(fen: string) {
  const [m] = new Chess(fen).moves({ verbose: true });
  return { from: m.from, to: m.to, promotion: m.promotion ?? undefined };
}

describe('POST /games (type computer)', function () {
  this.timeout(60_000);

  it('starts an active, unrated game against stockfish-1, which answers each move through the game', async () => {
    const user = await createUser();
    const game = await startComputer(user, { level: 1, color: 'white' });
    assert.equal(game.status, 'active');
    assert.equal(game.rated, false);
    assert.equal(game.white_player.id, user.id);
    assert.equal(game.white_player.title, undefined);
    assert.equal(game.black_player.username, 'stockfish-1');
    assert.equal(game.black_player.title, 'BOT');
    for (let ply = 0; ply < 6; ply += 2) {
      const current = await gameWhen(game.id, user, (g) => g.move_count === ply);
      assert.equal(current.current_turn, 'white');
      const m = someMove(current.fen);
      await play(game.id, user, m.from, m.to, m.promotion);
      // The engine's reply, a legal move made through the same actor: the game goes on.
      const answered = await gameWhen(game.id, user, (g) => g.move_count === ply + 2 || g.status !== 'active');
      assert.equal(answered.status, 'active', JSON.stringify(answered));
      assert.equal(answered.current_turn, 'white');
      // Its think ran on its own clock, as a person's does (Black's clock starts at its first move).
      if (ply > 0) assert.ok(answered.black_time_remaining < BLITZ.initial_time, JSON.stringify(answered));
    }
    // Its account, as anyone (signed out) sees it: a BOT.
    const profile = await api('GET', `/v1/users/${game.black_player.id}`);
    assert.equal(profile.status, 200, profile.text);
    assert.equal(profile.body.data.title, 'BOT');
    assert.equal(profile.body.data.bot, true);
    const { service } = await testService();
    const players = await service.ctx.pool.query('SELECT bot FROM users WHERE id = $1', [game.black_player.id]);
    assert.equal(players.rows[0].bot, true);
  });

  it('moves first when the computer has White (the game opened on this node is its turn)', async () => {
    const user = await createUser();
    const game = await startComputer(user, { level: 2, color: 'black' });
    assert.equal(game.white_player.username, 'stockfish-2');
    const after = await gameWhen(game.id, user, (g) => g.move_count === 1);
    assert.equal(after.current_turn, 'black');
    assert.equal(after.status, 'active');
  });

  it("grants the person's takeback and declines an early draw offer, as the bot, through the game", async () => {
    const user = await createUser();
    const { id } = await startComputer(user, { level: 1, color: 'white' });
    await play(id, user, 'a2', 'a3');
    const second = await gameWhen(id, user, (g) => g.move_count === 2);
    const m = someMove(second.fen);
    await play(id, user, m.from, m.to, m.promotion);
    await gameWhen(id, user, (g) => g.move_count === 4);
    // On the person's turn a takeback is of their move and the reply (no side's first move).
    const proposed = await api('POST', `/v1/games/${id}/takeback`, as(user));
    assert.equal(proposed.status, 200, proposed.text);
    assert.equal(proposed.body.data.takeback.plies, 2);
    const back = await gameWhen(id, user, (g) => g.move_count === 2);
    assert.equal(back.status, 'active');
    assert.equal(back.current_turn, 'white');
    assert.equal(back.fen, second.fen);

    const offered = await api('POST', `/v1/games/${id}/draw`, as(user));
    assert.equal(offered.status, 200, offered.text);
    const offerId = offered.body.data.draw_offer.id;
    const { service } = await testService();
    const statusOf = async (table: string, offer: string) =>
      (await service.ctx.pool.query(`SELECT status, offered_by FROM ${table} WHERE id = $1`, [offer])).rows[0];
    // Declined (not left to expire): the computer agrees to a draw only after 30 moves each.
    await until('the draw offer answered', async () => ((await statusOf('draw_offers', offerId)).status === 'declined' ? true : undefined), { ms: 20_000, everyMs: 50 });
    assert.equal((await statusOf('takeback_offers', proposed.body.data.takeback.id)).status, 'accepted');
    const after = await getGame(id, user);
    assert.equal(after.body.data.status, 'active');
    assert.equal(after.body.data.draw_offer, null);
  });

  it('plays at every level 1–8 as the bot stockfish-<level>, titled BOT on its player object, unrated', async () => {
    for (let level = 1; level <= 8; level++) {
      // A user each: a game against the computer counts towards the creation limit (5 a minute).
      const user = await createUser();
      const created = await startComputer(user, { level, color: 'white' });
      // The same in the answer and in the game read back.
      for (const game of [created, (await getGame(created.id, user)).body.data]) {
        assert.deepEqual([game.status, game.rated], ['active', false], `level ${level}`);
        assert.deepEqual([game.white_player.id, game.white_player.title], [user.id, undefined], `level ${level}`);
        assert.deepEqual([game.black_player.username, game.black_player.title], [`stockfish-${level}`, 'BOT'], `level ${level}`);
      }
      const profile = await api('GET', `/v1/users/${created.black_player.id}`, as(user));
      assert.deepEqual([profile.body.data.username, profile.body.data.title], [`stockfish-${level}`, 'BOT']);
      // Aborted before anyone moved: the engine never thinks for it.
      const aborted = await api('POST', `/v1/games/${created.id}/abort`, as(user));
      assert.equal(aborted.status, 200, aborted.text);
    }

    // The bot as White: the strongest level moves first, titled on the white player object.
    const user = await createUser();
    const game = await startComputer(user, { level: 8, color: 'black' });
    assert.deepEqual([game.white_player.username, game.white_player.title], ['stockfish-8', 'BOT']);
    assert.deepEqual([game.black_player.id, game.black_player.title], [user.id, undefined]);
    assert.equal(game.rated, false);
    const moved = await gameWhen(game.id, user, (g) => g.move_count === 1);
    assert.deepEqual([moved.status, moved.current_turn], ['active', 'black']);
    const aborted = await api('POST', `/v1/games/${game.id}/abort`, as(user));
    assert.equal(aborted.status, 200, aborted.text);
  });

  it("is unrated: resigning leaves the person's and the bot's ratings as they were, and says no change", async () => {
    const user = await createUser();
    const profile = async (path: string) => {
      const res = await api('GET', `/v1/users/${path}`, as(user));
      assert.equal(res.status, 200, res.text);
      const { rating, ratings, provisional } = res.body.data;
      return { rating, ratings, provisional };
    };
    const { id, black_player: bot } = await startComputer(user, { level: 1, color: 'white' });
    const [mine, its] = [await profile('me'), await profile(bot.id)];
    await play(id, user, 'e2', 'e4');
    await gameWhen(id, user, (g) => g.move_count === 2);

    const resigned = await api('POST', `/v1/games/${id}/resign`, as(user));
    assert.equal(resigned.status, 200, resigned.text);
    assert.deepEqual(resigned.body.data, { status: 'finished', result: '0-1', winner: 'black', termination: 'resignation', rating_changes: { white: 0, black: 0 } });
    const ended = await getGame(id, user);
    assert.deepEqual([ended.body.data.status, ended.body.data.rating_changes], ['finished', { white: 0, black: 0 }]);
    // A rated loss between two players of 1500 would have moved both blitz ratings (and deviations).
    assert.deepEqual(await profile('me'), mine);
    assert.deepEqual(await profile(bot.id), its);
  });

  it('allows COMPUTER_GAMES_PER_USER active computer games per user: 409 PLAYER_BUSY beyond', async () => {
    const { config } = await testService();
    const user = await createUser();
    for (let i = 0; i < config.computerGamesPerUser; i++) await startComputer(user, { level: 1 + i, color: 'white' });
    const refused = await computer(user, { level: 8, color: 'white' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'PLAYER_BUSY');
  });

  it('takes no rematch: a finished computer game is 409 REMATCH_NOT_ALLOWED', async () => {
    const user = await createUser();
    const { id } = await startComputer(user, { level: 1, color: 'white' });
    await play(id, user, 'e2', 'e4');
    await gameWhen(id, user, (g) => g.move_count === 2);
    const resigned = await api('POST', `/v1/games/${id}/resign`, as(user));
    assert.equal(resigned.status, 200, resigned.text);
    const rematch = await api('POST', `/v1/games/${id}/rematch`, as(user));
    assert.equal(rematch.status, 409, rematch.text);
    assert.equal(rematch.body.error.code, 'REMATCH_NOT_ALLOWED');
  });

  it('refuses bad input with 400 and creates nothing', async () => {
    const bodies: Record<string, unknown>[] = [
      { level: 0 },
      { level: 9 },
      { level: 'x' },
      { level: 1.5 },
      {},
      { level: 3, initial_time: undefined },
      { level: 3, time_control: 'correspondence', days_per_move: 3 },
      { level: 3, time_control: 'bullet' },
    ];
    // A user each: a refused request counts towards the creation limit (5 a minute).
    const users = await Promise.all(bodies.map(() => createUser()));
    for (const [i, body] of bodies.entries()) {
      const res = await computer(users[i], body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    const { service } = await testService();
    const ids = users.map((u) => u.id);
    const made = await service.ctx.pool.query('SELECT count(*)::int AS n FROM games WHERE white_id = ANY($1::uuid[]) OR black_id = ANY($1::uuid[])', [ids]);
    assert.equal(made.rows[0].n, 0);
  });

  it('has the eight bot accounts once, however many boots migrate', async () => {
    const { service } = await testService();
    const pool = service.ctx.pool;
    assert.deepEqual(await migrate(pool), []);
    // The migration's statement itself, run again as a second boot racing the first might.
    const sql = readFileSync(new URL('../../src/db/migrations/032_computer_accounts.sql', import.meta.url), 'utf8');
    await pool.query(sql);
    const { rows } = await pool.query(`SELECT username, bot FROM users WHERE username LIKE 'stockfish-%' ORDER BY username`);
    assert.deepEqual(rows, Array.from({ length: 8 }, (_, i) => ({ username: `stockfish-${i + 1}`, bot: true })));
  });

  it('keeps the bot names out of signup (a hyphen is outside the alphabet)', async () => {
    const res = await api('POST', '/v1/auth/signup', { body: { email: 'sf@example.com', username: 'stockfish-1', password: 'a-good-Passw0rd!' } });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(Object.keys(res.body.error.details), ['username']);
  });
});

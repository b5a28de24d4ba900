import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import { createGamesService, type GamesService } from '../../src/services/games.ts';
import { GameActor } from '../../src/services/gameActor.ts';
import type { LiveGameHost } from '../../src/services/liveGameHost.ts';
import { ManualClock } from '../helpers/clock.ts';
import { expireLease } from '../support/fixtures.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { liveGameFixture, moveBy, openLiveGame } from '../helpers/liveGames.ts';
import { testService } from '../helpers/service.ts';

let db: { pool: Pool; drop: () => Promise<void> };
const opened: { host: LiveGameHost; live: GameActor }[] = [];

// 1. e4 d5 2. Bb5+ c6 3. exd5 Nf6 4. dxc6 e6 5. cxb7+ Ke7 6. bxa8=Q: captures, checks, a promotion.
const LINE = ['e2e4', 'd7d5', 'f1b5', 'c7c6', 'e4d5', 'g8f6', 'd5c6', 'e7e6', 'c6b7', 'e8e7', 'b7a8q'];

/**
 * A live game hosted on a manual clock, and the games service twice: one that reads the games
 * this host holds from their actors, one that knows no host and so reads PostgreSQL.
 */
async function hostedGame(game: { initialTime?: number; increment?: number } = {}) {
  // Near the real time: PostgreSQL's now() decides which draw offers the database path shows.
  const clock = new ManualClock(Date.now());
  const fx = await liveGameFixture(
    db.pool,
    { firstMoveDeadline: new Date(clock.now() + 600_000), ...game },
    // A lease renewal (on the host's clock) would run in the middle of a count of a read's statements.
    { drawOfferTtlMs: 600_000, firstMoveMs: 600_000, gameLeaseMs: 600_000 },
  );
  await db.pool.query(`UPDATE users SET country = 'NO', avatar_url = 'https://img.example/w.png' WHERE id = $1`, [fx.white]);
  const host = fx.host('A', clock);
  const live = await openLiveGame(host, fx.gameId);
  host.register(live);
  opened.push({ host, live });
  const { service } = await testService();
  const ctx = { ...service.ctx, pool: db.pool, clock };
  return { ...fx, hostOn: fx.host, clock, host, live, ctx, fromRoom: createGamesService(ctx, host), fromDatabase: createGamesService(ctx) };
}

/** Statements `read` sent through the pool (every query checks a client out of it). */
async function statementsOf<T>(read: () => Promise<T>): Promise<{ result: T; statements: number }> {
  let statements = 0;
  const count = () => statements++;
  db.pool.on('acquire', count);
  try {
    return { result: await read(), statements };
  } finally {
    db.pool.off('acquire', count);
  }
}

/** The detail as the room serves it (without a statement), checked against the database's at the same instant. */
async function sameOnBothPaths(g: { fromRoom: GamesService; fromDatabase: GamesService; gameId: string }, viewerId: string) {
  const { result: fromRoom, statements } = await statementsOf(() => g.fromRoom.getGame(viewerId, g.gameId));
  assert.equal(statements, 0, 'the hosted game was read from PostgreSQL');
  assert.deepEqual(fromRoom, await g.fromDatabase.getGame(viewerId, g.gameId));
  return fromRoom;
}

/** Plays UCI moves from the current position, each after `thinkMs` on the clock. */
async function play(live: GameActor, players: { white: string; black: string }, moves: string[], clock: ManualClock, thinkMs: number) {
  for (const m of moves) {
    await clock.advance(thinkMs);
    const reply = await live.execute(moveBy(live.game.moveCount % 2 === 0 ? players.white : players.black, m));
    assert.equal(reply.ok, true, `${m}: ${JSON.stringify(reply)}`);
  }
}

describe('GET /games/{id} of a game hosted here: served from its actor', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(({ host, live }) => (host.unregister(live), live.close(true))));
  });
  after(() => db.drop());

  it('shows a game just started as the database does, players and ratings included', async () => {
    const g = await hostedGame();
    const view = await sameOnBothPaths(g, g.black);
    assert.equal(view.status, 'active');
    assert.equal(view.white_player?.country, 'NO');
    assert.equal(view.white_player?.avatar_url, 'https://img.example/w.png');
    assert.equal(view.move_count, 0);
  });

  it('shows moves with captures, checks and a promotion, clocks running, as the database does', async () => {
    const g = await hostedGame({ initialTime: 180, increment: 2 });
    await play(g.live, g, LINE, g.clock, 700);
    await g.clock.advance(2_321);
    const view = await sameOnBothPaths(g, g.white);
    assert.equal(view.move_count, LINE.length);
    assert.equal(view.moves[5].white, 'bxa8=Q');
    assert.equal(view.moves[4].white, 'cxb7+');
    // Black's four timed moves took 0.7 s each (+2 s increment), and 2.321 s since White's 6th.
    assert.equal(view.black_time_remaining, 182.879);
  });

  it('shows a pending draw offer, then its decline, as the database does', async () => {
    const g = await hostedGame();
    await play(g.live, g, ['e2e4', 'e7e5', 'g1f3'], g.clock, 500);
    const offered = (await g.live.execute({ type: 'offer_draw', userId: g.white }));
    assert.equal(offered.ok, true);
    await g.clock.advance(700);
    assert.equal((await sameOnBothPaths(g, g.black)).draw_offer?.status, 'pending');
    const declined = await g.live.execute({ type: 'answer_draw', userId: g.black, offerId: offered.ok ? offered.value.draw_offer.id : "", accept: false });
    assert.equal(declined.ok, true);
    await g.clock.advance(300);
    const view = await sameOnBothPaths(g, g.black);
    assert.equal(view.draw_offer, null);
    assert.ok(Date.parse(view.updated_at) > Date.parse(view.last_move_at!), 'the decline is the last change');
  });

  it('shows an offer lapsed by the opponent moving as the database does', async () => {
    const g = await hostedGame();
    await play(g.live, g, ['e2e4', 'e7e5'], g.clock, 500);
    assert.equal((await g.live.execute({ type: 'offer_draw', userId: g.white })).ok, true);
    await play(g.live, g, ['g1f3', 'b8c6'], g.clock, 800);
    assert.equal((await sameOnBothPaths(g, g.white)).draw_offer, null);
  });

  it('shows the game rebuilt on another node as the database does', async () => {
    const g = await hostedGame();
    await play(g.live, g, ['e2e4', 'e7e5', 'g1f3'], g.clock, 900);
    g.host.unregister(g.live);
    g.live.markLost();
    await expireLease(db.pool, g.gameId);
    await g.clock.advance(2_000);
    const host = g.hostOn('B', g.clock);
    const live = await openLiveGame(host, g.gameId);
    host.register(live);
    opened.push({ host, live });
    await g.clock.advance(1_500);
    const fromRoom = createGamesService(g.ctx, host);
    const view = await sameOnBothPaths({ ...g, fromRoom }, g.white);
    assert.equal(view.move_count, 3);
  });

  it('reads PostgreSQL for a game this node lost, and for one whose lease may have lapsed', async () => {
    const g = await hostedGame();
    await play(g.live, g, ['e2e4'], g.clock, 100);
    const hosted = await statementsOf(() => g.fromRoom.getGame(g.white, g.gameId));
    assert.equal(hosted.statements, 0);
    g.clock.skip(g.host.config.gameLeaseMs); // no renewal for a whole lease: the event loop was busy
    const lapsing = await statementsOf(() => g.fromRoom.getGame(g.white, g.gameId));
    assert.ok(lapsing.statements > 0, 'a lease not renewed for its whole length is not trusted');
    await g.host.renewAll();
    assert.equal((await statementsOf(() => g.fromRoom.getGame(g.white, g.gameId))).statements, 0);
    g.live.markLost();
    const lost = await statementsOf(() => g.fromRoom.getGame(g.white, g.gameId));
    assert.ok(lost.statements > 0, 'a lost game is read from PostgreSQL');
    assert.equal(lost.result.move_count, 1);
  });

  it('shows a game after an accepted takeback as the database does (the snapshot lagging before it)', async () => {
    const g = await hostedGame({ initialTime: 60, increment: 2 });
    const players = { white: g.white, black: g.black };
    await play(g.live, players, LINE.slice(0, 7), g.clock, 1500);
    await g.clock.advance(800);
    const proposed = (await g.live.execute({ type: 'offer_takeback', userId: g.white })) as any;
    await g.clock.advance(1200);
    const accepted = await g.live.execute({ type: 'answer_takeback', userId: g.black, takebackId: proposed.value.takeback.id, accept: true });
    assert.equal(accepted.ok, true, JSON.stringify(accepted));
    await g.clock.advance(700);
    const view = await sameOnBothPaths(g, g.black);
    assert.deepEqual([view.move_count, view.pgn], [6, '1. e4 d5 2. Bb5+ c6 3. exd5 Nf6']);
    await play(g.live, players, ['d5c6'], g.clock, 900);
    assert.equal((await sameOnBothPaths(g, g.white)).move_count, 7);
  });
});

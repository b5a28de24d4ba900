import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Pool } from '../../src/db/pool.ts';
import { isAppError } from '../../src/errors.ts';
import { createGamesService } from '../../src/services/games.ts';
import type { GameActor } from '../../src/services/gameActor.ts';
import type { LiveGameHost } from '../../src/services/liveGameHost.ts';
import { ManualClock } from '../helpers/clock.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { liveGameFixture, moveBy, openLiveGame } from '../helpers/liveGames.ts';
import { testService } from '../helpers/service.ts';

let db: { pool: Pool; drop: () => Promise<void> };
const opened: { host: LiveGameHost; live: GameActor }[] = [];

/** A live game hosted here on a manual clock, and the games service that reads it from its actor. */
async function hostedGame() {
  const clock = new ManualClock(Date.now());
  const fx = await liveGameFixture(db.pool, { firstMoveDeadline: new Date(clock.now() + 600_000) }, { firstMoveMs: 600_000, gameLeaseMs: 600_000 });
  const host = fx.host('A', clock);
  const live = await openLiveGame(host, fx.gameId);
  host.register(live);
  opened.push({ host, live });
  const { service } = await testService();
  const games = createGamesService({ ...service.ctx, pool: db.pool, clock }, host);
  return { ...fx, clock, host, live, games };
}

/** The code `command` was refused with, and the statements it sent through the pool. */
async function refusal(pool: Pool, command: () => Promise<unknown>): Promise<{ code: string; statements: number }> {
  let statements = 0;
  const count = () => statements++;
  pool.on('acquire', count);
  try {
    await command();
  } catch (error) {
    assert.ok(isAppError(error), String(error));
    return { code: error.code, statements };
  } finally {
    pool.off('acquire', count);
  }
  assert.fail('the command was not refused');
}

const move = { from: 'e2', to: 'e4' } as const;

describe("a player's command on a game hosted here: checked against its actor", () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(({ host, live }) => (host.unregister(live), live.close(true))));
  });
  after(() => db.drop());

  it('refuses a non-player from memory, without reading PostgreSQL', async () => {
    const g = await hostedGame();
    const stranger = randomUUID();
    assert.deepEqual(await refusal(db.pool, () => g.games.command('move', stranger, g.gameId, move)), { code: 'NOT_A_PLAYER', statements: 0 });
  });

  it("makes a player's move through the actor hosted here (no room lookup: none exists in this test)", async () => {
    const g = await hostedGame();
    const answer = await g.games.command('move', g.white, g.gameId, move);
    assert.equal(answer.move.san, 'e4');
    assert.equal(g.live.game.moveCount, 1);
  });

  it('refuses a non-player from PostgreSQL once the lease may have lapsed', async () => {
    const g = await hostedGame();
    g.clock.skip(g.host.config.gameLeaseMs);
    const refused = await refusal(db.pool, () => g.games.command('move', randomUUID(), g.gameId, move));
    assert.equal(refused.code, 'NOT_A_PLAYER');
    assert.ok(refused.statements > 0, 'a lease not renewed for its whole length is not trusted');
  });

  it('refuses a move on a game that ended while its actor is still hosted (409 GAME_NOT_ACTIVE)', async () => {
    const g = await hostedGame();
    assert.equal((await g.live.execute(moveBy(g.white, 'e2e4'))).ok, true);
    assert.equal((await g.live.execute({ type: 'resign', userId: g.black })).ok, true);
    assert.equal(g.host.find(g.gameId), g.live, 'the finished game is still hosted');
    assert.equal((await refusal(db.pool, () => g.games.command('move', g.black, g.gameId, { from: 'e7', to: 'e5' }))).code, 'GAME_NOT_ACTIVE');
    assert.equal((await refusal(db.pool, () => g.games.command('move', randomUUID(), g.gameId, move))).code, 'NOT_A_PLAYER');
  });

  it('refuses a game that does not exist, and an id that is not one (404)', async () => {
    const g = await hostedGame();
    assert.equal((await refusal(db.pool, () => g.games.command('move', g.white, randomUUID(), move))).code, 'GAME_NOT_FOUND');
    assert.equal((await refusal(db.pool, () => g.games.command('move', g.white, 'not-an-id', move))).code, 'GAME_NOT_FOUND');
  });
});

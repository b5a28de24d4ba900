import assert from 'node:assert/strict';
import { createGameExports, type ExportSink } from '../../src/services/gameExport.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { insertFinishedGames, insertUser } from '../support/fixtures.ts';

// The export's idle deadline on the service's clock (a manual one here): a sink that does not take
// a write, or the end, within EXPORT_IDLE_SECONDS is aborted and the caller's slot is free again.

/** A sink whose writes (or end) are taken only when the test says so; `aborted` once hung up on. */
function stuckSink(o: { stuck: 'write' | 'end' | 'nothing' }) {
  const sink = {
    aborted: 0,
    written: 0,
    start() {},
    write() {
      sink.written++;
      return o.stuck === 'write' ? new Promise<boolean>(() => {}) : Promise.resolve(true);
    },
    end() {
      return o.stuck === 'end' ? new Promise<void>(() => {}) : Promise.resolve();
    },
    abort() {
      sink.aborted++;
    },
  } satisfies ExportSink & { aborted: number; written: number };
  return sink;
}

describe('the game export idle deadline (service, manual clock)', () => {
  const IDLE_MS = 30_000;
  let userId: string;
  const query = { clocks: true, evals: false, opening: false };

  before(async () => {
    const { service } = await testService();
    userId = await insertUser(service.ctx.pool);
    await insertFinishedGames(service.ctx.pool, { whiteId: userId, blackId: await insertUser(service.ctx.pool), count: 3, plies: 10, newestEnd: new Date() });
  });

  const exportsOn = async (clock: ManualClock) => {
    const { service, config } = await testService();
    return createGameExports({ pool: service.ctx.pool, redis: undefined, clock, config: { ...config, exportIdleMs: IDLE_MS } });
  };

  for (const stuck of ['write', 'end'] as const) {
    it(`aborts an export whose client does not take the ${stuck} within the deadline, and frees the caller's slot`, async () => {
      const clock = new ManualClock();
      const exports = await exportsOn(clock);
      const sink = stuckSink({ stuck });
      const ended = exports.exportGames({ caller: 'u:1', address: '10.0.0.1' }, userId, query, 'pgn', sink);
      await until('the first write', () => sink.written > 0, { ms: 5000, everyMs: 5 });
      await settle();
      await clock.advance(IDLE_MS - 1);
      assert.equal(sink.aborted, 0, 'not before the deadline');
      assert.equal(exports.stats.active, 1);
      await clock.advance(1);
      assert.equal(await ended, 'idle');
      assert.equal(sink.aborted, 1);
      assert.deepEqual([exports.stats.active, exports.stats.idle], [0, 1]);
      // The same caller may export again.
      const again = await exports.exportGames({ caller: 'u:1', address: '10.0.0.1' }, userId, query, 'pgn', stuckSink({ stuck: 'nothing' }));
      assert.equal(again, 'complete');
    });
  }

  it('lets a client that takes every write finish, however long the export takes on the clock', async () => {
    const clock = new ManualClock();
    const exports = await exportsOn(clock);
    const sink = stuckSink({ stuck: 'write' });
    sink.write = () => {
      sink.written++;
      // Each write taken just before the deadline.
      return clock.advance(IDLE_MS - 1).then(() => true);
    };
    assert.equal(await exports.exportGames({ caller: 'u:2', address: '10.0.0.2' }, userId, query, 'pgn', sink), 'complete');
    assert.equal(sink.aborted, 0);
  });
});

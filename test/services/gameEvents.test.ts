import assert from 'node:assert/strict';
import { createEventBus } from '../../src/events.ts';
import { createGameEventLog, FINISHED_REPLAY_MS, type PublishedEvent } from '../../src/services/gameEvents.ts';
import { ManualClock } from '../helpers/clock.ts';

/** The in-memory replay buffer (one node, no Redis): how long it keeps a game's events. */
describe('game event replay buffer in memory', () => {
  const event = (type: string, v: number, ts: number) => ({ type, v, ts }) as unknown as PublishedEvent;

  // The bus is not attached to presence: publishing reaches no subscriber, the buffer is what is tested.
  const setup = () => {
    const clock = new ManualClock();
    return { clock, log: createGameEventLog({ events: createEventBus(), redis: undefined, clock }) };
  };

  it('keeps nothing of a game no stream watches here, and every event from the first watch on', async () => {
    const { clock, log } = setup();
    log.publish('g1', event('move', 1, clock.now()));
    assert.equal(await log.since('g1', 0), undefined);
    log.watch('g1');
    log.publish('g1', event('move', 2, clock.now()));
    log.publish('g1', event('move', 3, clock.now()));
    assert.equal((await log.since('g1', 1))?.length, 2, 'a stream that saw v1 and dropped is replayed v2 and v3');
    assert.equal(await log.since('g1', 0), undefined, 'v1 was published before anyone watched');
  });

  it("drops a finished game's events a few minutes after its end", async () => {
    const { clock, log } = setup();
    log.watch('g1');
    log.publish('g1', event('move', 1, clock.now()));
    log.publish('g1', event('game_end', 2, clock.now()));
    clock.skip(FINISHED_REPLAY_MS - 1);
    assert.equal((await log.since('g1', 0))?.length, 2, 'a stream coming back soon after the end is replayed it');
    clock.skip(1);
    assert.equal(await log.since('g1', 0), undefined);
  });

  it('keeps a game that is still playing however long it waits for its next move', async () => {
    const { clock, log } = setup();
    for (const game of ['playing', 'over', 'other']) log.watch(game);
    log.publish('playing', event('move', 1, clock.now()));
    log.publish('over', event('game_end', 1, clock.now()));
    clock.skip(FINISHED_REPLAY_MS * 10);
    log.publish('other', event('move', 1, clock.now()));
    assert.equal((await log.since('playing', 0))?.length, 1);
    assert.equal(await log.since('over', 0), undefined);
  });
});

import assert from 'node:assert/strict';
import { LocalPresence } from '@colyseus/core';
import { createEventBus, type EventBus } from '../../src/events.ts';
import { GameWatch } from '../../src/realtime/gameWatch.ts';
import { ChannelHub } from '../../src/realtime/hub.ts';
import type { GameSnapshot } from '../../src/services/games.ts';
import { settle } from '../helpers/clock.ts';

const GAME = '11111111-1111-4111-8111-111111111111';
const channel = `game:${GAME}`;

type Ev = { type: string; v: number; ts: number; [k: string]: unknown };
const move = (v: number, san = `m${v}`): Ev => ({ type: 'move', move: { san }, times: { white: 100 - v, black: 100 }, v, ts: 1000 + v });
const offer = (v: number): Ev => ({ type: 'draw_offer', draw_offer: { id: 'o' }, v, ts: 1000 + v });
const end = (v: number): Ev => ({ type: 'game_end', status: 'finished', abort_reason: null, result: { result: '1-0' }, v, ts: 1000 + v });
const times = (v: number): Ev => ({ type: 'time_update', times: { white: 1, black: 2 }, v, ts: 5000 + v });

/**
 * The ordering of one viewer's events, on a real channel hub and event bus (in-process presence):
 * the snapshot and the replay buffer are what the test says the database and Redis hold.
 */
describe('GameWatch (one viewer of one game, in order)', () => {
  let bus: EventBus;
  let hub: ChannelHub;
  let snapshotV: number;
  let status: string;
  let buffer: Ev[];
  let snapshots: number;
  let sent: Ev[];
  let ended: number;
  let failed: unknown[];

  beforeEach(() => {
    bus = createEventBus();
    bus.attach(new LocalPresence());
    hub = new ChannelHub(bus);
    snapshotV = 0;
    status = 'active';
    buffer = [];
    snapshots = 0;
    sent = [];
    ended = 0;
    failed = [];
  });

  const watch = async (since?: number, snapshot?: () => Promise<GameSnapshot>) => {
    const w = new GameWatch(
      {
        hub,
        snapshot:
          snapshot ??
          (async () => {
            snapshots++;
            return { game: { id: GAME, status } as GameSnapshot['game'], v: snapshotV };
          }),
        missed: async (after) => {
          const kept = buffer.filter((e) => e.v > after);
          return kept.length && kept[0].v === after + 1 ? kept.map((e) => JSON.stringify(e)) : undefined;
        },
        now: () => 9999,
      },
      { gameId: GAME, since, send: (m) => sent.push(m.data as Ev), ended: () => ended++, failed: (e) => failed.push(e) },
    );
    await w.start();
    return w;
  };
  const publish = async (...events: Ev[]) => {
    for (const e of events) bus.publishRaw(channel, JSON.stringify(e));
    await settle();
  };
  const shape = () => sent.map((m) => `${m.type}:${m.v}`);

  it('sends state, then each event once in order with a time_update after each move; game_end ends it', async () => {
    await watch();
    await publish(move(1), times(1), offer(2), move(3), end(4), move(5));
    assert.deepEqual(shape(), ['state:0', 'move:1', 'time_update:1', 'time_update:1', 'draw_offer:2', 'move:3', 'time_update:3', 'game_end:4']);
    assert.deepEqual(sent[2], { type: 'time_update', times: { white: 99, black: 100 }, v: 1, ts: 1001 }, "the move's own clocks");
    assert.equal(ended, 1);
  });

  it('drops what the state already holds and what it has seen, and time_updates older than the last event', async () => {
    snapshotV = 3;
    await watch();
    await publish(move(2), move(3), times(2), move(4), move(4), times(4));
    assert.deepEqual(shape(), ['state:3', 'move:4', 'time_update:4', 'time_update:4']);
  });

  it('fills a hole from the replay buffer: a lost message is delivered in its place', async () => {
    await watch();
    buffer = [move(1), move(2), move(3)];
    await publish(move(1), move(3)); // 2 was lost on the way
    await settle();
    assert.deepEqual(shape(), ['state:0', 'move:1', 'time_update:1', 'move:2', 'time_update:2', 'move:3', 'time_update:3']);
    assert.equal(snapshots, 1, 'no fresh state needed');
  });

  it('starts again from a fresh state when the buffer does not reach back', async () => {
    await watch();
    snapshotV = 7;
    await publish(move(1), move(6), move(8));
    await settle();
    assert.deepEqual(shape(), ['state:0', 'move:1', 'time_update:1', 'state:7', 'move:8', 'time_update:8']);
  });

  it('keeps the order of events that arrive while a hole is being filled', async () => {
    await watch();
    buffer = [move(1), move(2)];
    await publish(move(2), move(3), offer(4)); // 1 missing; 3 and 4 arrive during the repair
    await settle();
    assert.deepEqual(shape().filter((s) => !s.startsWith('time_update')), ['state:0', 'move:1', 'move:2', 'move:3', 'draw_offer:4']);
  });

  it('resumes after ?since from the buffer, without a state, when it holds everything up to the snapshot', async () => {
    snapshotV = 3;
    buffer = [move(1), move(2), move(3)];
    await watch(1);
    assert.deepEqual(shape(), ['move:2', 'time_update:2', 'move:3', 'time_update:3']);
  });

  it('answers ?since with a fresh state when the buffer misses events, or since is ahead of the game', async () => {
    snapshotV = 5;
    buffer = [move(4), move(5)];
    await watch(1);
    assert.deepEqual(shape(), ['state:5']);
    sent = [];
    await watch(9);
    assert.deepEqual(shape(), ['state:5']);
  });

  it("sends a finished game's state and game_end, then ends", async () => {
    status = 'finished';
    snapshotV = 12;
    await watch();
    assert.deepEqual(shape(), ['state:12', 'game_end:12']);
    assert.equal(ended, 1);
  });

  it('sends a fresh state when a pending game changes status', async () => {
    await watch();
    status = 'abandoned';
    await publish({ type: 'status', status: 'abandoned', v: 0, ts: 1 });
    await settle();
    assert.deepEqual(shape(), ['state:0', 'state:0', 'game_end:0']);
    assert.equal(ended, 1);
  });

  it('reports a repair that cannot read the game instead of ending it as if it were over', async () => {
    let calls = 0;
    await watch(undefined, async () => {
      if (calls++ > 0) throw new Error('database down');
      return { game: { id: GAME, status: 'active' } as GameSnapshot['game'], v: 0 };
    });
    await publish(move(2));
    await settle();
    assert.equal(failed.length, 1);
    assert.equal(ended, 0);
  });

  it('stops listening when closed', async () => {
    const w = await watch();
    w.close();
    await publish(move(1));
    assert.deepEqual(shape(), ['state:0']);
    assert.equal(hub.size, 0, 'the channel subscription is gone');
  });
});

import assert from 'node:assert/strict';
import { LocalPresence } from '@colyseus/core';
import { createEventBus, type EventBus } from '../../src/events.ts';
import { GameTicks } from '../../src/realtime/gameTicks.ts';
import { GameWatch } from '../../src/realtime/gameWatch.ts';
import { ChannelHub } from '../../src/realtime/hub.ts';
import type { GameSnapshot } from '../../src/services/games.ts';
import { ManualClock, settle } from '../helpers/clock.ts';

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
  let clock: ManualClock;
  let ticks: GameTicks;
  let snapshotV: number;
  /** The clock fields of the game the snapshot shows. */
  let shown: Partial<GameSnapshot['game']>;
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
    clock = new ManualClock();
    ticks = new GameTicks(clock);
    snapshotV = 0;
    shown = {};
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
        ticks,
        snapshot:
          snapshot ??
          (async () => {
            snapshots++;
            return { game: { id: GAME, status, ...shown } as GameSnapshot['game'], v: snapshotV };
          }),
        missed: async (after) => {
          const kept = buffer.filter((e) => e.v > after);
          return kept.length && kept[0].v === after + 1 ? kept.map((e) => JSON.stringify(e)) : undefined;
        },
        now: () => clock.now(),
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

  it('sends no second state for a status its state already shows (an accept heard by a stream opened after it)', async () => {
    await watch();
    await publish({ type: 'status', status: 'active', v: 0, ts: 1 }, move(1));
    assert.deepEqual(shape(), ['state:0', 'move:1', 'time_update:1']);
    assert.equal(snapshots, 1);
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

  describe('periodic time_update (made by the watching node, on its clock)', () => {
    /** A move as the room publishes it: the clocks after it, as of now. */
    const played = (v: number, white: number, black: number): Ev => ({
      type: 'move',
      move: { san: `m${v}`, move_count: v, current_turn: v % 2 === 0 ? 'white' : 'black' },
      times: { white, black },
      v,
      ts: clock.now(),
    });
    const periodic = () => sent.filter((m, i) => m.type === 'time_update' && sent[i - 1]?.type !== 'move');

    it("sends one every 5 s while the clocks run, from the last clocks seen: not before Black's first move, not after game_end", async () => {
      shown = { move_count: 0, current_turn: 'white', white_time_remaining: 60, black_time_remaining: 60 };
      await watch();
      await clock.advance(12_000);
      await publish(played(1, 60, 60));
      await clock.advance(12_000);
      assert.deepEqual(periodic(), [], "no clock runs before Black's first move");

      await publish(played(2, 60, 59.5));
      const moved = clock.now();
      await clock.advance(5000);
      await clock.advance(5000);
      await publish(offer(3)); // not a clock change, but a new v
      await clock.advance(4999);
      assert.equal(periodic().length, 2, 'each event restarts the 5 s');
      await clock.advance(1);
      assert.deepEqual(periodic(), [
        { type: 'time_update', times: { white: 55, black: 59.5 }, v: 2, ts: moved + 5000 },
        { type: 'time_update', times: { white: 50, black: 59.5 }, v: 2, ts: moved + 10_000 },
        { type: 'time_update', times: { white: 45, black: 59.5 }, v: 3, ts: moved + 15_000 },
      ]);

      await publish(end(4));
      await clock.advance(30_000);
      assert.equal(periodic().length, 3, 'none after game_end');
      assert.equal(sent.at(-1)?.type, 'game_end');
      assert.equal(ticks.ticking, 0);
      assert.equal(clock.pending, 0, 'no timer left');
    });

    it("ticks a running game's clocks from its state, and a resumed viewer's from the game's snapshot", async () => {
      snapshotV = 9;
      shown = { move_count: 9, current_turn: 'black', white_time_remaining: 100, black_time_remaining: 30 };
      const first = await watch();
      await clock.advance(5000);
      assert.deepEqual(sent.at(-1), { type: 'time_update', times: { white: 100, black: 25 }, v: 9, ts: clock.now() });
      first.close();
      sent = [];
      shown = { ...shown, black_time_remaining: 25 };
      buffer = [move(8), move(9)];
      await watch(7); // the replayed moves carry older clocks: the snapshot's are the newest
      await clock.advance(5000);
      assert.deepEqual(shape(), ['move:8', 'time_update:8', 'move:9', 'time_update:9', 'time_update:9']);
      assert.deepEqual(sent.at(-1)?.times, { white: 100, black: 20 });
    });

    it('runs one timer per game on a node, whatever the number of its viewers, and stops it when the last leaves', async () => {
      shown = { move_count: 4, current_turn: 'white', white_time_remaining: 10, black_time_remaining: 10 };
      snapshotV = 4;
      const [a, b] = [await watch(), await watch()];
      assert.equal(clock.pending, 1);
      await clock.advance(5000);
      assert.deepEqual(shape(), ['state:4', 'state:4', 'time_update:4', 'time_update:4']);
      a.close();
      assert.equal(clock.pending, 1, 'the other viewer still watches');
      b.close();
      assert.equal(clock.pending, 0);
      await clock.advance(10_000);
      assert.equal(sent.length, 4);
    });

    it('sends a viewer no periodic time_update while it is behind the game (repairing a hole)', async () => {
      shown = { move_count: 4, current_turn: 'white', white_time_remaining: 10, black_time_remaining: 10 };
      snapshotV = 4;
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const w = new GameWatch(
        {
          hub,
          ticks,
          snapshot: async () => ({ game: { id: GAME, status, ...shown } as GameSnapshot['game'], v: snapshotV }),
          missed: async () => (await held, undefined),
          now: () => clock.now(),
        },
        { gameId: GAME, send: (m) => sent.push(m.data as Ev), ended: () => ended++, failed: (e) => failed.push(e) },
      );
      await w.start();
      await publish(played(6, 9, 10)); // 5 was lost: the viewer waits for the buffer
      await clock.advance(5000);
      assert.deepEqual(shape(), ['state:4'], 'no clocks of v 4 while it knows v 6 is out');
      w.close();
      release();
      await settle();
    });
  });
});

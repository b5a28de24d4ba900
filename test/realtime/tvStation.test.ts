import assert from 'node:assert/strict';
import { LocalPresence } from '@colyseus/core';
import { createEventBus, type EventBus } from '../../src/events.ts';
import { createLogger } from '../../src/logger.ts';
import { ChannelHub } from '../../src/realtime/hub.ts';
import { TV_RECHECK_MS, TvStation } from '../../src/realtime/tvStation.ts';
import type { FeaturedGameView } from '../../src/services/watching.ts';
import { ManualClock, settle } from '../helpers/clock.ts';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';

const game = (id: string): FeaturedGameView => ({
  id,
  players: { white: { id: `${id}-w`, username: 'ada', rating: 2100 }, black: { id: `${id}-b`, username: 'bob', rating: 2000 } },
  average_rating: 2050,
  time_control: 'rapid',
  initial_time: 600,
  increment: 0,
  rated: true,
  fen: START,
  last_move: null,
  move_count: 0,
  started_at: null,
  orientation: 'white',
});

const move = (v: number) => ({
  type: 'move',
  move: { from: 'e2', to: 'e4', san: 'e4', piece: 'p', captured: null, promotion: null, flags: 'b', ply: 1, fen: AFTER_E4, move_count: 1, current_turn: 'black' },
  times: { white: 599.6, black: 600 },
  v,
  ts: 1,
});

/**
 * The TV of one node on a real channel hub and event bus (in-process presence): which game is
 * featured is the service's answer (PostgreSQL's, test/http/watching.test.ts), told here by
 * `featured`, so the station's own part shows: one subscription for all its viewers, the next
 * game at an end, nothing held once nobody watches.
 */
describe('the TV station of a node', () => {
  let bus: EventBus;
  let hub: ChannelHub;
  let clock: ManualClock;
  let current: FeaturedGameView | null;
  let reads: number;
  let station: TvStation;

  beforeEach(() => {
    bus = createEventBus();
    bus.attach(new LocalPresence());
    hub = new ChannelHub(bus);
    clock = new ManualClock();
    current = game('g1');
    reads = 0;
    station = new TvStation({ hub, clock, log: createLogger('silent'), featured: async () => (reads++, current) });
  });

  const viewer = () => {
    const told: any[] = [];
    return { told, send: (m: { json: string }) => told.push(JSON.parse(m.json)) };
  };
  const publish = async (channel: string, event: object) => {
    bus.publishRaw(channel, JSON.stringify(event));
    await settle();
  };

  it('sends featured first, then fen after each move of it, to every viewer through one subscription', async () => {
    const [a, b] = [viewer(), viewer()];
    station.join(a);
    await settle();
    station.join(b);
    await settle();
    assert.equal(hub.size, 1, 'one subscription: the featured game');
    assert.deepEqual(a.told.map((m) => [m.type, m.game_id]), [['featured', 'g1']]);
    assert.deepEqual(b.told.map((m) => [m.type, m.game_id]), [['featured', 'g1']]);
    await publish('game:g1', move(1));
    for (const v of [a, b]) {
      const { type, game_id, fen, last_move, wc, bc } = v.told[1];
      assert.deepEqual({ type, game_id, fen, last_move, wc, bc }, { type: 'fen', game_id: 'g1', fen: AFTER_E4, last_move: 'e2e4', wc: 600, bc: 600 });
    }
    const late = viewer();
    station.join(late);
    assert.deepEqual([late.told[0].type, late.told[0].fen, late.told[0].last_move], ['featured', AFTER_E4, 'e2e4'], 'a latecomer starts from the position now');
  });

  it('reads the featured game again at the end of its game, and follows the next', async () => {
    const a = viewer();
    station.join(a);
    await settle();
    current = game('g2');
    await publish('game:g1', { type: 'game_end', status: 'finished', abort_reason: null, result: {}, v: 2, ts: 2 });
    await settle();
    assert.deepEqual(a.told.map((m) => [m.type, m.game_id]), [['featured', 'g1'], ['featured', 'g2']]);
    await publish('game:g1', move(3)); // the old game's channel is no longer heard
    await publish('game:g2', move(1));
    assert.deepEqual(a.told.map((m) => [m.type, m.game_id]), [['featured', 'g1'], ['featured', 'g2'], ['fen', 'g2']]);
  });

  it('reads it again every TV_RECHECK_MS while someone watches: a lost game_end, a first live game', async () => {
    current = null;
    const a = viewer();
    station.join(a);
    await settle();
    assert.deepEqual(a.told.map((m) => [m.type, m.game_id]), [['featured', null]]);
    current = game('g3');
    await clock.advance(TV_RECHECK_MS);
    await settle();
    assert.deepEqual(a.told.map((m) => [m.type, m.game_id]), [['featured', null], ['featured', 'g3']]);
    const before = reads;
    await clock.advance(TV_RECHECK_MS);
    await settle();
    assert.equal(reads, before + 1);
    assert.equal(a.told.length, 2, 'the same game: nothing to say');
  });

  it('holds no subscription and no timer once its last viewer left', async () => {
    const a = viewer();
    const leave = station.join(a);
    await settle();
    assert.equal(hub.size, 1);
    leave();
    await settle();
    assert.equal(hub.size, 0);
    assert.equal(clock.pending, 0);
    assert.equal(station.size, 0);
  });
});

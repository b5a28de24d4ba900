import assert from 'node:assert/strict';
import { LocalPresence } from '@colyseus/core';
import type { AuthUser } from '../../src/auth/scopes.ts';
import { AppError } from '../../src/errors.ts';
import { createEventBus, type EventBus } from '../../src/events.ts';
import { createLogger } from '../../src/logger.ts';
import type { SessionDeps } from '../../src/realtime/deps.ts';
import { GameTicks } from '../../src/realtime/gameTicks.ts';
import { GameWatchSession } from '../../src/realtime/gameWatchSession.ts';
import { ChannelHub } from '../../src/realtime/hub.ts';
import { TvStation } from '../../src/realtime/tvStation.ts';
import type { Ending, Subscriber } from '../../src/realtime/subscriber.ts';
import { UserChannelSession } from '../../src/realtime/userChannelSession.ts';
import type { CredentialEnd } from '../../src/services/liveCredentials.ts';
import type { GameSnapshot } from '../../src/services/games.ts';
import { ManualClock, settle } from '../helpers/clock.ts';

const GAME = '11111111-1111-4111-8111-111111111111';
const ALICE: AuthUser = { id: '00000000-0000-4000-8000-00000000000a', email: 'a@example.com', sessionId: 's-a' };

/** A transport of its own, as a new one would be written: it keeps what the session tells it. */
class Recorder implements Subscriber {
  open = true;
  buffered = 0;
  readonly told: string[] = [];
  ending: Ending | undefined;
  send(message: object | string): void {
    this.told.push(typeof message === 'string' ? message : JSON.stringify(message));
  }
  begin(): void {
    this.told.push('begin');
  }
  end(ending: Ending): void {
    this.ending = ending;
    this.open = false;
  }
}

/**
 * The two kinds of watching as sessions, on a real channel hub and event bus (in-process
 * presence), told to a subscriber that is neither a socket nor an HTTP response.
 */
describe('sessions of watching (any transport)', () => {
  let bus: EventBus;
  let deps: SessionDeps;
  let credentialEnds: Array<(why: CredentialEnd) => void>;
  let watched: number;

  beforeEach(() => {
    bus = createEventBus();
    bus.attach(new LocalPresence());
    const clock = new ManualClock();
    credentialEnds = [];
    watched = 0;
    const hub = new ChannelHub(bus);
    deps = {
      hub,
      ticks: new GameTicks(clock),
      tv: new TvStation({ hub, clock, log: createLogger('silent'), featured: async () => null }),
      now: () => clock.now(),
      log: createLogger('silent'),
      credentials: {
        watch: (_user, ended) => {
          credentialEnds.push(ended);
          watched++;
          return () => void watched--;
        },
      },
      snapshot: async () => ({ game: { id: GAME, status: 'active' } as GameSnapshot['game'], v: 3 }),
      missed: async () => undefined,
    };
  });

  const publish = async (channel: string, event: object) => {
    bus.publishRaw(channel, JSON.stringify(event));
    await settle();
  };

  it('watches a game: begins, sends state then the events with the channel it names, and is over after game_end', async () => {
    const sub = new Recorder();
    await new GameWatchSession(deps, sub, { gameId: GAME, channel: `game:${GAME}` }).start();
    await publish(`game:${GAME}`, { type: 'game_end', status: 'finished', abort_reason: null, result: { result: '1-0' }, v: 4, ts: 9 });
    assert.deepEqual(
      sub.told.map((t) => (t === 'begin' ? t : `${JSON.parse(t).channel} ${JSON.parse(t).type}`)),
      ['begin', `game:${GAME} state`, `game:${GAME} game_end`],
    );
    assert.deepEqual(sub.ending, { kind: 'over' });
  });

  it("ends a game's session refused UNAUTHORIZED (close 4401) when its viewer's credential ends, and stops watching it", async () => {
    const sub = new Recorder();
    await new GameWatchSession(deps, sub, { gameId: GAME, viewer: ALICE }).start();
    assert.equal(watched, 1);
    credentialEnds[0]('expired');
    assert.equal(sub.ending?.kind, 'refused');
    assert.deepEqual(sub.ending?.kind === 'refused' && [sub.ending.error.code, sub.ending.code, sub.ending.reason], ['UNAUTHORIZED', 4401, 'token expired']);
    assert.equal(watched, 0);
  });

  it('refuses a game that cannot be seen with GAME_NOT_FOUND (close 4404)', async () => {
    const sub = new Recorder();
    deps.snapshot = async () => {
      throw new AppError('GAME_NOT_FOUND', 'Game not found');
    };
    await new GameWatchSession(deps, sub, { gameId: GAME }).start();
    assert.deepEqual(sub.ending?.kind === 'refused' && [sub.ending.error.code, sub.ending.code], ['GAME_NOT_FOUND', 4404]);
    assert.deepEqual(sub.told, []);
  });

  it("refuses another user's channel, and counts the connection only for a user who may hear it", async () => {
    const admitted: string[] = [];
    const admit = (u: AuthUser) => void admitted.push(u.id);
    const other = new Recorder();
    await new UserChannelSession(deps, other, { user: ALICE, id: '00000000-0000-4000-8000-00000000000b', channel: 'user:b', admit }).start();
    assert.deepEqual(other.ending?.kind === 'refused' && other.ending.error.code, 'FORBIDDEN');
    const own = new Recorder();
    await new UserChannelSession(deps, own, { user: ALICE, id: ALICE.id, channel: `user:${ALICE.id}`, admit }).start();
    assert.deepEqual(admitted, [ALICE.id]);
    await publish(`user:${ALICE.id}`, { type: 'challenge_received', game_id: 'g', ts: 1 });
    await publish(`user:${ALICE.id}`, { type: 'challenges_changed', ts: 2 });
    assert.deepEqual(own.told, ['begin', `{"channel":"user:${ALICE.id}","type":"challenge_received","game_id":"g","ts":1}`]);
  });

  it('starts nothing for a subscriber already gone', async () => {
    const gone = new Recorder();
    gone.open = false;
    await new UserChannelSession(deps, gone, { user: ALICE, id: ALICE.id, channel: `user:${ALICE.id}` }).start();
    await new GameWatchSession(deps, gone, { gameId: GAME, viewer: ALICE }).start();
    assert.deepEqual([gone.told, gone.ending, watched, deps.hub.size], [[], undefined, 0, 0]);
  });
});

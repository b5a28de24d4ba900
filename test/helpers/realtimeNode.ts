import { LocalPresence } from '@colyseus/core';
import { AppError } from '../../src/errors.ts';
import { createEventBus, type EventBus } from '../../src/events.ts';
import { createLogger } from '../../src/logger.ts';
import { createRealtime, type Realtime, type RealtimeDeps } from '../../src/realtime/index.ts';
import { ManualClock } from './clock.ts';

/**
 * A realtime side of its own, for tests of its sockets and streams without the service: an
 * in-process bus, a manual clock, and reads that know nothing (no token is valid, no game
 * exists) unless `o` says otherwise.
 */
export function standaloneRealtime(o: Partial<RealtimeDeps> = {}): { realtime: Realtime; bus: EventBus; clock: ManualClock } {
  const clock = new ManualClock(Date.now());
  const bus = createEventBus();
  bus.attach(new LocalPresence());
  const realtime = createRealtime({
    events: bus,
    clock,
    log: createLogger('silent'),
    authenticate: async () => {
      throw new AppError('UNAUTHORIZED', 'no');
    },
    credentials: { watch: () => () => {} },
    snapshot: async () => {
      throw new AppError('GAME_NOT_FOUND', 'no');
    },
    missed: async () => undefined,
    openSeeks: async () => [],
    ...o,
  });
  return { realtime, bus, clock };
}

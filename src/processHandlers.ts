import type { EventEmitter } from 'node:events';
import type { Logger } from './logger.ts';
import { isBackendUnavailable } from './util/unavailable.ts';
import { systemClock, withTimeout, type Clock } from './time.ts';

/** How long a drain may take before the process exits anyway (the operator contract's 10 s). */
export const DRAIN_LIMIT_MS = 10_000;

export type ProcessHandlerDeps = {
  log: Pick<Logger, 'info' | 'warn' | 'fatal'>;
  /** Drains the service: stop accepting, flush pending writes, release live games. */
  stop: () => Promise<void>;
  exit: (code: number) => void;
  clock?: Clock;
  drainMs?: number;
};

export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * One drain path for every way the process ends: SIGTERM/SIGINT exit 0 once drained; an
 * unhandled rejection or uncaught exception is logged at fatal and exits 1 after the same
 * drain, since the process can no longer be trusted to keep its state straight but its
 * buffered moves and its games' leases are still worth handing back. Whatever comes first
 * starts the drain; anything after it only logs (a fatal error turns the exit code to 1).
 * A drain that does not finish within `drainMs` exits 1 regardless.
 *
 * One rejection is no crash: a request to PostgreSQL or Redis that failed because the server is
 * restarting or out of reach. Colyseus fires some Redis writes without awaiting them (its load
 * figures, a room listing's removal); while Redis restarts those reject unhandled, and the
 * process is in no doubt about its own state: it logs a warning and carries on.
 */
export function installProcessHandlers(target: Pick<EventEmitter, 'on'>, deps: ProcessHandlerDeps): void {
  const clock = deps.clock ?? systemClock;
  const drainMs = deps.drainMs ?? DRAIN_LIMIT_MS;
  let draining = false;
  let failed = false;
  let exited = false;

  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    deps.exit(code);
  };

  const drain = () => {
    if (draining) return;
    draining = true;
    // A stop that throws at once is a failed drain like one that rejects.
    const stopped = Promise.resolve().then(deps.stop);
    withTimeout(stopped.then(() => 'drained' as const), drainMs, () => 'timed_out' as const, clock).then(
      (outcome) => {
        if (outcome === 'timed_out') deps.log.fatal({ drainMs }, 'drain did not finish in time; exiting');
        exit(failed || outcome === 'timed_out' ? 1 : 0);
      },
      (err) => {
        deps.log.fatal({ err }, 'drain failed');
        exit(1);
      },
    );
  };

  for (const signal of SHUTDOWN_SIGNALS) {
    target.on(signal, () => {
      deps.log.info({ signal }, draining ? 'already shutting down' : 'shutting down');
      drain();
    });
  }

  const fatal = (message: string) => (err: unknown) => {
    failed = true;
    deps.log.fatal({ err }, draining ? `${message} while shutting down` : `${message}; shutting down`);
    drain();
  };
  const rejected = fatal('unhandled promise rejection');
  target.on('unhandledRejection', (err: unknown) => {
    if (isBackendUnavailable(err)) deps.log.warn({ err }, 'a request to PostgreSQL or Redis failed unawaited (the server is unavailable)');
    else rejected(err);
  });
  target.on('uncaughtException', fatal('uncaught exception'));
}

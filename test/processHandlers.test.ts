import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { DRAIN_LIMIT_MS, installProcessHandlers } from '../src/processHandlers.ts';
import { ManualClock, settle } from './helpers/clock.ts';

/**
 * A stand-in for `process`: its events come from the test, its exit is recorded, its log lines
 * are parsed from a real pino logger, and the drain is a promise the test settles.
 */
function fakeProcess(o: { stop?: () => Promise<void> } = {}) {
  const target = new EventEmitter();
  const clock = new ManualClock();
  const exits: number[] = [];
  const lines: { level: number; msg: string; err?: { message: string; stack: string }; signal?: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  let stops = 0;
  let finishStop!: () => void;
  let failStop!: (err: Error) => void;
  const stopping = new Promise<void>((resolve, reject) => {
    finishStop = resolve;
    failStop = reject;
  });
  const stop = () => {
    stops++;
    return o.stop ? o.stop() : stopping;
  };
  installProcessHandlers(target, { log, stop, exit: (code) => void exits.push(code), clock });
  return {
    target,
    clock,
    exits,
    lines,
    get stops() {
      return stops;
    },
    finishStop,
    failStop,
    fatal: () => lines.filter((l) => l.level === 60),
  };
}

describe('process handlers (signals and crashes drain the service, then exit)', () => {
  it('logs an unhandled rejection at fatal with the error, stops the service once, then exits 1', async () => {
    const p = fakeProcess();
    const reason = new Error('nobody caught me');
    p.target.emit('unhandledRejection', reason, Promise.resolve());
    await settle();
    assert.equal(p.stops, 1);
    assert.deepEqual(p.exits, [], 'no exit before the drain is over');
    const [line] = p.fatal();
    assert.match(line.msg, /unhandled promise rejection/);
    assert.equal(line.err?.message, 'nobody caught me');
    assert.match(line.err?.stack ?? '', /nobody caught me/);
    p.finishStop();
    await settle();
    assert.deepEqual(p.exits, [1]);
  });

  it('only warns about an unhandled rejection that says PostgreSQL or Redis is unavailable (Colyseus fires some Redis writes unawaited)', async () => {
    const p = fakeProcess();
    const redisDown = Object.assign(new Error('Reached the max retries per request limit (which is 20).'), { name: 'MaxRetriesPerRequestError' });
    p.target.emit('unhandledRejection', redisDown, Promise.resolve());
    p.target.emit('unhandledRejection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }), Promise.resolve());
    await settle();
    assert.equal(p.stops, 0);
    assert.deepEqual(p.fatal(), []);
    assert.equal(p.lines.filter((l) => l.level === 40).length, 2);
    // Anything else still drains and exits 1.
    p.target.emit('unhandledRejection', new TypeError('x is undefined'), Promise.resolve());
    await settle();
    assert.equal(p.stops, 1);
  });

  it('logs an uncaught exception at fatal, stops once, then exits 1', async () => {
    const p = fakeProcess();
    p.target.emit('uncaughtException', new TypeError('x is undefined'), 'uncaughtException');
    p.finishStop();
    await settle();
    assert.equal(p.stops, 1);
    assert.equal(p.fatal()[0].err?.message, 'x is undefined');
    assert.deepEqual(p.exits, [1]);
  });

  for (const signal of ['SIGTERM', 'SIGINT']) {
    it(`exits 0 on ${signal} once the service has stopped`, async () => {
      const p = fakeProcess();
      p.target.emit(signal);
      await settle();
      assert.equal(p.stops, 1);
      assert.deepEqual(p.exits, []);
      assert.ok(p.lines.some((l) => l.signal === signal && l.msg === 'shutting down'));
      p.finishStop();
      await settle();
      assert.deepEqual(p.exits, [0]);
    });
  }

  it('does not stop twice when another signal comes while draining', async () => {
    const p = fakeProcess();
    p.target.emit('SIGTERM');
    p.target.emit('SIGINT');
    p.target.emit('SIGTERM');
    await settle();
    assert.equal(p.stops, 1);
    p.finishStop();
    await settle();
    assert.deepEqual(p.exits, [0]);
  });

  it('exits 1 when a crash comes while a signal drains, still stopping once', async () => {
    const p = fakeProcess();
    p.target.emit('SIGTERM');
    p.target.emit('unhandledRejection', new Error('during the drain'), Promise.resolve());
    p.finishStop();
    await settle();
    assert.equal(p.stops, 1);
    assert.equal(p.fatal()[0].err?.message, 'during the drain');
    assert.deepEqual(p.exits, [1]);
  });

  it('exits 1 when stopping fails', async () => {
    const p = fakeProcess();
    p.target.emit('SIGTERM');
    p.failStop(new Error('pool would not close'));
    await settle();
    assert.deepEqual(p.exits, [1]);
    assert.equal(p.fatal()[0].err?.message, 'pool would not close');
  });

  it(`exits 1 after ${DRAIN_LIMIT_MS / 1000} s when the stop never finishes`, async () => {
    const p = fakeProcess({ stop: () => new Promise(() => {}) });
    p.target.emit('SIGTERM');
    await p.clock.advance(DRAIN_LIMIT_MS - 1);
    assert.deepEqual(p.exits, []);
    await p.clock.advance(1);
    assert.deepEqual(p.exits, [1]);
    assert.equal(p.stops, 1);
  });

  it('exits once, even when the stop finishes after the time ran out', async () => {
    const p = fakeProcess();
    p.target.emit('uncaughtException', new Error('late'), 'uncaughtException');
    await p.clock.advance(DRAIN_LIMIT_MS);
    p.finishStop();
    await settle();
    assert.deepEqual(p.exits, [1]);
  });
});

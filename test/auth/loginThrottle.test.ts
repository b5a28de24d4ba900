import assert from 'node:assert/strict';
import { createLoginThrottle } from '../../src/auth/loginThrottle.ts';
import { AppError } from '../../src/errors.ts';
import { limiterFactory } from '../../src/limits.ts';

/** Fails `n` attempts: reserving and never releasing is what a wrong password does. */
async function fail(throttle: ReturnType<typeof createLoginThrottle>, n: number, email: (i: number) => string, address: (i: number) => string) {
  for (let i = 0; i < n; i++) await throttle.reserve(email(i), address(i));
}

const throttled = (e: unknown) => e instanceof AppError && e.code === 'TOO_MANY_ATTEMPTS';

describe('login throttle', () => {
  it('refuses an email after 5 failures within the window, from any address', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined));
    await fail(throttle, 5, () => 'ann@example.com', (i) => `10.0.0.${i}`);
    await assert.rejects(throttle.reserve('ANN@example.com', '10.9.9.9'), (e: AppError) => {
      assert.ok(throttled(e));
      const retryAfter = e.extra?.retryAfter as number;
      assert.ok(retryAfter > 290 && retryAfter <= 300, `retryAfter ${retryAfter}`);
      return true;
    });
  });

  it('refuses an address after 20 failures within the window, for any email', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined));
    await fail(throttle, 20, (i) => `user${i}@example.com`, () => '10.1.1.1');
    await assert.rejects(throttle.reserve('fresh@example.com', '10.1.1.1'), throttled);
    await throttle.reserve('fresh@example.com', '10.1.1.2');
  });

  it('does not count successful logins', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined));
    for (let i = 0; i < 10; i++) await (await throttle.reserve('bob@example.com', '10.2.2.2'))();
    await fail(throttle, 4, () => 'bob@example.com', () => '10.2.2.2');
    await throttle.reserve('bob@example.com', '10.2.2.2');
  });

  it('does not count attempts it refused', async () => {
    const limits = { perEmail: 2, perAddress: 100, windowSeconds: 300 };
    const throttle = createLoginThrottle(limiterFactory(undefined), limits);
    await fail(throttle, 2, () => 'cy@example.com', () => '10.3.3.3');
    for (let i = 0; i < 5; i++) await assert.rejects(throttle.reserve('cy@example.com', '10.3.3.3'), throttled);
    // The refused attempts gave their point back to the address counter too.
    const counts = createLoginThrottle(limiterFactory(undefined), { perEmail: 100, perAddress: 3, windowSeconds: 300 });
    await fail(counts, 3, () => 'dee@example.com', () => '10.4.4.4');
    await assert.rejects(counts.reserve('dee@example.com', '10.4.4.4'), throttled);
    await assert.rejects(counts.reserve('dee@example.com', '10.4.4.4'), throttled);
  });

  it('lets the attempts in again once the window has passed', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined), { perEmail: 1, perAddress: 100, windowSeconds: 1 });
    await throttle.reserve('eve@example.com', '10.5.5.5');
    await assert.rejects(throttle.reserve('eve@example.com', '10.5.5.5'), throttled);
    // Real time: rate-limiter-flexible keeps its windows on Date.now(), not on an injectable clock.
    await new Promise((r) => setTimeout(r, 1100));
    await throttle.reserve('eve@example.com', '10.5.5.5');
  });
});

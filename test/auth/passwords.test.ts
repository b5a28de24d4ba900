import assert from 'node:assert/strict';
import { createPasswordHasher } from '../../src/auth/passwords.ts';
import { percentile } from '../support/percentiles.ts';

/**
 * The CPU time (ms) each of `works` costs, as the median of `runs` rounds taken in turn: CPU time,
 * not wall time, so that other processes busy on the machine do not count; in turn, so that a
 * change of load between two series does not either. bcrypt runs on libuv's threads, whose time
 * is the process's.
 */
async function cpuTimesOf(works: Array<() => Promise<unknown>>, runs = 7): Promise<number[]> {
  const times: number[][] = works.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [k, work] of works.entries()) {
      const before = process.cpuUsage();
      await work();
      const used = process.cpuUsage(before);
      times[k].push((used.user + used.system) / 1000);
    }
  }
  return times.map((xs) => percentile(xs, 0.5));
}

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hasher = createPasswordHasher(4);
    const hash = await hasher.hash('correct horse 1');
    assert.equal(await hasher.verify('correct horse 1', hash), true);
    assert.equal(await hasher.verify('correct horse 2', hash), false);
  });

  it('refuses a password longer than 72 bytes even when bcrypt would match its prefix', async () => {
    const hasher = createPasswordHasher(4);
    const password = 'a1'.repeat(36);
    const hash = await hasher.hash(password);
    assert.equal(await hasher.verify(password + 'extra', hash), false);
  });

  it('never matches without a stored hash', async () => {
    assert.equal(await createPasswordHasher(4).verify('', undefined), false);
  });

  it('takes as long for an unknown account as for a wrong password', async function () {
    this.timeout(30_000);
    // A cost high enough that the bcrypt work dwarfs the noise of the test machine.
    const hasher = createPasswordHasher(10);
    const hash = await hasher.hash('the real one 1');
    await hasher.verify('warm up', undefined);
    const [wrongPassword, unknownAccount] = await cpuTimesOf([
      () => hasher.verify('wrong guess 1', hash),
      () => hasher.verify('wrong guess 1', undefined),
    ]);
    const ratio = unknownAccount / wrongPassword;
    assert.ok(ratio > 0.6 && ratio < 1.6, `unknown ${unknownAccount.toFixed(1)} ms vs wrong ${wrongPassword.toFixed(1)} ms`);
  });

  it('tells when a stored hash was made with another cost', async () => {
    const old = await createPasswordHasher(4).hash('pw123456');
    assert.equal(createPasswordHasher(5).needsRehash(old), true);
    assert.equal(createPasswordHasher(4).needsRehash(old), false);
  });
});

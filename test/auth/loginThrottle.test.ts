import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createLoginThrottle, type LoginSubject, type LoginThrottle } from '../../src/auth/loginThrottle.ts';
import { normalizeUsername, parseLoginIdentifier, usernameProblems } from '../../src/auth/rules.ts';
import { AppError } from '../../src/errors.ts';
import { limiterFactory } from '../../src/limits.ts';

/** Fails `n` attempts: reserving and never releasing is what a wrong password does. */
async function fail(throttle: LoginThrottle, n: number, subject: (i: number) => LoginSubject, address: (i: number) => string) {
  for (let i = 0; i < n; i++) await throttle.reserve(subject(i), address(i));
}

const throttled = (e: unknown) => e instanceof AppError && e.code === 'TOO_MANY_ATTEMPTS';
const account = (userId: string): LoginSubject => ({ userId });
const unknownName = (raw: string): LoginSubject => ({ unknown: parseLoginIdentifier(raw) });

describe('login throttle', () => {
  it('refuses an account after 5 failures within the window, from any address', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined));
    await fail(throttle, 5, () => account('ann'), (i) => `10.0.0.${i}`);
    await assert.rejects(throttle.reserve(account('ann'), '10.9.9.9'), (e: AppError) => {
      assert.ok(throttled(e));
      const retryAfter = e.extra?.retryAfter as number;
      assert.ok(retryAfter > 290 && retryAfter <= 300, `retryAfter ${retryAfter}`);
      return true;
    });
  });

  it('counts a name that reaches no account under its normal form, apart from accounts and from addresses', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined));
    await fail(throttle, 5, (i) => unknownName(['ghost', 'GHOST', ' Ghost ', 'ｇｈｏｓｔ', 'gHoSt'][i]), (i) => `10.6.0.${i}`);
    await assert.rejects(throttle.reserve(unknownName('ghost'), '10.6.1.1'), throttled);
    await throttle.reserve(account('ghost'), '10.6.1.1');
    await throttle.reserve(unknownName('ghost@example.com'), '10.6.1.1');
  });

  it('refuses an address after 20 failures within the window, for any account', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined));
    await fail(throttle, 20, (i) => account(`user${i}`), () => '10.1.1.1');
    await assert.rejects(throttle.reserve(account('fresh'), '10.1.1.1'), throttled);
    await throttle.reserve(account('fresh'), '10.1.1.2');
  });

  it('does not count successful logins', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined));
    for (let i = 0; i < 10; i++) await (await throttle.reserve(account('bob'), '10.2.2.2'))();
    await fail(throttle, 4, () => account('bob'), () => '10.2.2.2');
    await throttle.reserve(account('bob'), '10.2.2.2');
  });

  it('does not count attempts it refused', async () => {
    const limits = { perAccount: 2, perAddress: 100, windowSeconds: 300 };
    const throttle = createLoginThrottle(limiterFactory(undefined), limits);
    await fail(throttle, 2, () => account('cy'), () => '10.3.3.3');
    for (let i = 0; i < 5; i++) await assert.rejects(throttle.reserve(account('cy'), '10.3.3.3'), throttled);
    // The refused attempts gave their point back to the address counter too.
    const counts = createLoginThrottle(limiterFactory(undefined), { perAccount: 100, perAddress: 3, windowSeconds: 300 });
    await fail(counts, 3, () => account('dee'), () => '10.4.4.4');
    await assert.rejects(counts.reserve(account('dee'), '10.4.4.4'), throttled);
    await assert.rejects(counts.reserve(account('dee'), '10.4.4.4'), throttled);
  });

  it('lets the attempts in again once the window has passed', async () => {
    const throttle = createLoginThrottle(limiterFactory(undefined), { perAccount: 1, perAddress: 100, windowSeconds: 1 });
    await throttle.reserve(account('eve'), '10.5.5.5');
    await assert.rejects(throttle.reserve(account('eve'), '10.5.5.5'), throttled);
    // Real time: rate-limiter-flexible keeps its windows on Date.now(), not on an injectable clock.
    await new Promise((r) => setTimeout(r, 1100));
    await throttle.reserve(account('eve'), '10.5.5.5');
  });
});

describe('login identifiers', () => {
  const username = fc.stringMatching(/^[A-Za-z0-9_]{3,20}$/).filter((u) => usernameProblems(u).length === 0);
  const fullWidth = (c: string) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0);
  const formsOf = (c: string) => [c.toLowerCase(), c.toUpperCase(), fullWidth(c), ...(/k/i.test(c) ? ['\u212a'] : [])];
  /** Spellings a person may type for one ASCII username: any case, full-width, the Kelvin sign, space around. */
  const spellingOf = (name: string) =>
    fc
      .tuple(
        fc.tuple(...[...name].map((c) => fc.constantFrom(...formsOf(c)))),
        fc.constantFrom('', ' ', '\u3000', '\t'),
      )
      .map(([letters, pad]) => pad + letters.join('') + pad);

  it('gives every spelling of a username its lookup form: the stored name in lower case', () => {
    fc.assert(
      fc.property(username.chain((u) => fc.tuple(fc.constant(u), spellingOf(u))), ([u, typed]) => {
        assert.deepEqual(parseLoginIdentifier(typed), { kind: 'username', key: u.toLowerCase() });
      }),
      { numRuns: 500 },
    );
  });

  it('gives a spelling with İ or ı a form no username has', () => {
    fc.assert(
      fc.property(username.filter((u) => /i/i.test(u)), fc.constantFrom('\u0130', '\u0131'), (u, lookAlike) => {
        const key = normalizeUsername(u.replace(/i/i, lookAlike));
        assert.doesNotMatch(key, /^[a-z0-9_]*$/);
        assert.notEqual(key, u.toLowerCase());
      }),
      { numRuns: 300 },
    );
  });

  it('takes an identifier with an @ in its plain form (a full-width ＠ too) for an email', () => {
    assert.deepEqual(parseLoginIdentifier(' ANN＠Example.com'), { kind: 'email', key: 'ann@example.com' });
    assert.deepEqual(parseLoginIdentifier('ＡＮＮ'), { kind: 'username', key: 'ann' });
  });
});

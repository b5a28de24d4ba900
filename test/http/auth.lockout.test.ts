// One lockout per account (issue 34, M3 and L4): whatever was typed to reach an account, and a
// signed-in user's password checks, count against the account's one login throttle.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { createUser, login, uniqueUsername, type TestUser } from '../helpers/users.ts';

const DOTTED_I = '\u0130'; // İ: PostgreSQL's lower() makes it i, JavaScript's toLowerCase() i + U+0307.

/** Every spelling of `name` with some of its letters i written İ, the plain one first. */
function dottedSpellings(name: string): string[] {
  const at = [...name].flatMap((c, i) => (c === 'i' ? [i] : []));
  return Array.from({ length: 2 ** at.length }, (_, mask) =>
    [...name].map((c, i) => (at.includes(i) && mask & (1 << at.indexOf(i)) ? DOTTED_I : c)).join(''),
  );
}

function assertLocked(res: ApiResponse, what: string) {
  assert.equal(res.status, 429, `${what}: ${res.text}`);
  assert.equal(res.body.error.code, 'TOO_MANY_ATTEMPTS');
  const retryAfter = res.body.error.retryAfter;
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 300, `retryAfter ${retryAfter}`);
  assert.equal(res.headers.get('retry-after'), String(retryAfter));
}

const changePassword = (user: TestUser, current: string) =>
  api('POST', '/v1/users/me/password', { token: user.accessToken, body: { current_password: current, new_password: 'a-new-secret-9' }, ip: newIp() });
const changeEmail = (user: TestUser, password: string) => {
  const body = { password, email: `moved.${user.username.toLowerCase()}@example.com` };
  return api('POST', '/v1/users/me/email', { token: user.accessToken, body, ip: newIp() });
};

describe('one lockout per account', () => {
  describe('POST /auth/login', () => {
    it('counts wrong passwords typed by email and by username against one account: the sixth is refused either way', async () => {
      const user = await createUser({ username: uniqueUsername('Alt') });
      const typed = [user.email, user.username, user.email.toUpperCase(), user.username.toUpperCase(), ` ${user.username.toLowerCase()} `];
      for (const email of typed) assert.equal((await login({ email, password: 'wrong-guess-1' })).status, 401, email);
      assertLocked(await login({ email: user.username, password: user.password }), 'by username');
      assertLocked(await login({ email: user.email, password: user.password }), 'by email');
    });

    it('logs a username holding i in only under its own letters: every İ spelling is refused, even with the right password', async () => {
      const user = await createUser({ username: uniqueUsername('kiwiki') });
      const [plain, ...dotted] = dottedSpellings(user.username);
      assert.equal(dotted.length, 7);
      for (const email of [...dotted, ...dotted.map((s) => s.toUpperCase())]) {
        const res = await login({ email, password: user.password });
        assert.equal(res.status, 401, `${email}: ${res.text}`);
        assert.equal(res.body.error.code, 'INVALID_CREDENTIALS');
      }
      const res = await login({ email: plain.toUpperCase(), password: user.password });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.user.id, user.id);
    });

    it('gives a name that reaches no account a throttle of its own, in any case, answering as for an account', async () => {
      const name = uniqueUsername('ghost');
      for (const email of [name, name.toUpperCase(), ` ${name} `, name.replace('g', 'G'), name.toLowerCase()]) {
        const res = await login({ email, password: 'wrong-guess-1' });
        assert.equal(res.status, 401, res.text);
        assert.equal(res.body.error.code, 'INVALID_CREDENTIALS');
      }
      assertLocked(await login({ email: name, password: 'wrong-guess-1' }), 'the sixth');
    });

    it('resolves a spelling of a username exactly when the lookup form is the account’s, and counts it against that account', async () => {
      // Each letter in its own case, or full-width; an i may be written İ or ı, a k as the Kelvin sign.
      const letter = (c: string) => {
        const forms = [c.toLowerCase(), c.toUpperCase(), String.fromCodePoint(c.toLowerCase().codePointAt(0)! + 0xfee0)];
        if (c === 'i') forms.push(DOTTED_I, 'ı');
        if (c === 'k') forms.push('\u212a');
        return fc.constantFrom(...forms);
      };
      // A spelling of the name's first letters around its random rest, padded with spaces or not.
      const spellingOf = (head: string) =>
        fc.record({ letters: fc.tuple(...[...head].map(letter)), pad: fc.constantFrom('', ' ', '\u3000') });
      type Spelling = { letters: string[]; pad: string };
      // The oracle: usernames are ASCII; only a look-alike of i (İ, ı) leaves ASCII once folded.
      const reaches = (s: Spelling) => !s.letters.some((c) => c === DOTTED_I || c === 'ı');
      const head = 'kiwi';
      const five = (spelling: fc.Arbitrary<Spelling>) => fc.array(spelling, { minLength: 5, maxLength: 5 });
      const reaching = spellingOf(head).filter(reaches);
      await fc.assert(
        // Half the runs fail only under spellings that reach the account, the others under any.
        fc.asyncProperty(fc.oneof(five(reaching), five(spellingOf(head))), reaching, async (tries, last) => {
          const user = await createUser({ username: uniqueUsername(head) });
          const typed = (s: Spelling) => s.pad + s.letters.join('') + user.username.slice(head.length) + s.pad;
          for (const s of tries) {
            const res = await login({ email: typed(s), password: user.password });
            assert.equal(res.status, reaches(s) ? 200 : 401, `${JSON.stringify(typed(s))}: ${res.text}`);
          }
          for (const s of tries) {
            // A spelling that reaches no account is a name of its own: its own five may run out.
            const res = await login({ email: typed(s), password: 'wrong-guess-1' });
            if (reaches(s) || res.status !== 429) assert.equal(res.status, 401, res.text);
          }
          const res = await login({ email: typed(last), password: user.password });
          if (tries.every(reaches)) assertLocked(res, 'five failures, each under a spelling that reaches the account');
          else assert.equal(res.status, 200, `${tries.filter((s) => !reaches(s)).length} of the failures reached no account: ${res.text}`);
        }),
        { numRuns: 20 },
      );
    });
  });

  describe('POST /users/me/password', () => {
    it('counts a wrong current password as a failed login: five of them lock the login', async () => {
      const user = await createUser();
      for (let i = 0; i < 5; i++) {
        const res = await changePassword(user, `wrong-current-${i}`);
        assert.equal(res.status, 403, res.text);
        assert.equal(res.body.error.code, 'FORBIDDEN');
      }
      assertLocked(await login(user), 'the login after five wrong current passwords');
    });

    it('answers TOO_MANY_ATTEMPTS with Retry-After while the account is locked, even to the right password, and changes nothing', async () => {
      const user = await createUser();
      const other = (await login(user)).body.data.session;
      for (const email of [user.email, user.username, user.email, user.username, user.email]) {
        assert.equal((await login({ email, password: 'wrong-guess-1' })).status, 401);
      }
      assertLocked(await changePassword(user, user.password), 'the change of a locked account');
      assert.equal((await api('GET', '/v1/users/me', { token: other.access_token })).status, 200, 'the other session did not end');
    });

    it('counts the password of an email change the same way', async () => {
      const user = await createUser();
      for (let i = 0; i < 3; i++) assert.equal((await changeEmail(user, `wrong-current-${i}`)).status, 403);
      for (let i = 0; i < 2; i++) assert.equal((await login({ email: user.username, password: `wrong-guess-${i}` })).status, 401);
      assertLocked(await changeEmail(user, user.password), 'the email change of a locked account');
      assertLocked(await login(user), 'the login');
    });
  });
});

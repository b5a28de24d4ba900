import assert from 'node:assert/strict';
import bcrypt from 'bcrypt';
import type { DomainCheck } from '../../src/auth/emailDomain.ts';
import type { Mail, Mailer } from '../../src/auth/mailer.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/auth/passwords.ts';
import { createSessions } from '../../src/auth/sessions.ts';
import { createAccessTokens } from '../../src/auth/tokens.ts';
import { findUserByEmail } from '../../src/db/users.ts';
import { AppError } from '../../src/errors.ts';
import { createAccounts, type Accounts } from '../../src/services/accounts.ts';
import { testService } from '../helpers/service.ts';
import { uniqueEmail, uniqueUsername } from '../helpers/users.ts';

/**
 * The accounts use cases on the real database, with the network's far side (DNS, SMTP) faked:
 * what the domain check answers decides the signup; mails are counted as the mailer gets them.
 */
describe('accounts use cases', () => {
  const sent: Mail[] = [];
  const mailer: Mailer = { send: async (m) => void sent.push(m), close: async () => {} };
  const built: Accounts[] = [];

  async function accountsWith(domainCheck: DomainCheck, checkOn = true, bcryptCost = 4, passwords?: PasswordHasher): Promise<Accounts> {
    const { service } = await testService();
    const ctx = { ...service.ctx, config: { ...service.ctx.config, emailDomainCheck: checkOn, bcryptCost } };
    const tokens = createAccessTokens({ secret: ctx.config.jwtSecret, issuer: ctx.config.publicUrl });
    const accounts = createAccounts(ctx, createSessions({ pool: ctx.pool, tokens, log: ctx.log, maxAgeMs: ctx.config.sessionMaxMs }), { mailer, domainCheck, passwords });
    built.push(accounts);
    return accounts;
  }
  const body = (domain: string) => ({ email: uniqueEmail('dns').replace('example.com', domain), password: 'domain-check-1', username: uniqueUsername('dns') });

  after(async () => {
    for (const accounts of built) await accounts.drain();
  });

  it('refuses an address whose domain does not exist, naming the email field', async () => {
    const asked: string[] = [];
    const accounts = await accountsWith(async (d) => (asked.push(d), 'missing'));
    await assert.rejects(accounts.signup(body('gone.example')), (e: AppError) => {
      assert.equal(e.code, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(e.details ?? {}), ['email']);
      return true;
    });
    assert.deepEqual(asked, ['gone.example']);
  });

  it('accepts an address when DNS could not tell (resolver failure)', async () => {
    const accounts = await accountsWith(async () => 'unknown');
    const { user } = await accounts.signup(body('flaky.example'));
    assert.match(user.email, /@flaky\.example$/);
  });

  it('skips the check entirely with EMAIL_DOMAIN_CHECK=off, even for .invalid', async () => {
    const accounts = await accountsWith(async () => assert.fail('the domain check must not run'), false);
    const { user } = await accounts.signup(body('mail.invalid'));
    assert.match(user.email, /@mail\.invalid$/);
  });

  it('hands the verification mail to the mailer after the account is stored', async () => {
    const accounts = await accountsWith(async () => 'exists');
    const { user } = await accounts.signup(body('fine.example'));
    await accounts.drain();
    const mail = sent.find((m) => m.to === user.email);
    assert.ok(mail, 'a mail was sent');
    assert.match(mail.link, /^http:\/\/chess\.test\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('sends at most 5 mails per recipient per hour, so nobody can flood a mailbox through us', async () => {
    const accounts = await accountsWith(async () => 'exists');
    const { user } = await accounts.signup(body('flood.example'));
    for (let i = 0; i < 6; i++) accounts.requestPasswordReset(user.email);
    await accounts.drain();
    assert.equal(sent.filter((m) => m.to === user.email).length, 5);
  });

  it('re-hashes a password made with another cost at the next successful login', async () => {
    const signup = await accountsWith(async () => 'exists');
    const b = body('cost.example');
    await signup.signup(b);
    const stronger = await accountsWith(async () => 'exists', true, 5);
    await stronger.login({ email: b.email, password: b.password }, '10.250.0.1');
    await stronger.drain();
    const { service } = await testService();
    const stored = await findUserByEmail(service.ctx.pool, b.email);
    assert.equal(bcrypt.getRounds(stored!.passwordHash), 5);
    await stronger.login({ email: b.email, password: b.password }, '10.250.0.1');
  });

  it('checks a reset token before hashing the new password: a bogus token costs no bcrypt work', async () => {
    const real = createPasswordHasher(4);
    let hashes = 0;
    const counting: PasswordHasher = { ...real, hash: (p) => (hashes++, real.hash(p)) };
    const accounts = await accountsWith(async () => 'exists', true, 4, counting);
    const { user } = await accounts.signup(body('bcrypt.example'));
    hashes = 0;
    for (let i = 0; i < 20; i++) {
      await assert.rejects(accounts.updatePassword({ token: `bogus-${i}`, password: 'new-password-1' }), (e: AppError) => e.code === 'INVALID_TOKEN');
    }
    assert.equal(hashes, 0, 'no password was hashed for a bogus token');
    accounts.requestPasswordReset(user.email);
    await accounts.drain();
    const token = new URL(sent.filter((m) => m.to === user.email && m.link.includes('reset-password')).at(-1)!.link).searchParams.get('token')!;
    await accounts.updatePassword({ token, password: 'new-password-1' });
    assert.equal(hashes, 1, 'a live token gets its password hashed');
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createAccessTokens, hashToken, randomToken } from '../../src/auth/tokens.ts';

const secret = 's'.repeat(40);
const tokens = createAccessTokens({ secret, issuer: 'http://chess.test' });
const user = { id: randomUUID(), email: 'ann@example.com' };

describe('access tokens', () => {
  it('carry the documented claims and last one hour', () => {
    const sid = randomUUID();
    const { token, expiresIn, expiresAt } = tokens.sign(user, sid);
    const claims = tokens.verify(token)!;
    assert.equal(claims.sub, user.id);
    assert.equal(claims.email, user.email);
    assert.equal(claims.role, 'authenticated');
    assert.equal(claims.sid, sid);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(expiresIn, 3600);
    assert.equal(expiresAt.getTime(), claims.exp * 1000);
  });

  it('refuses tokens of another issuer, audience, secret or algorithm', () => {
    const claims = { sub: user.id, email: user.email, role: 'authenticated', sid: randomUUID() };
    const forge = (key: string, o: jwt.SignOptions) => jwt.sign(claims, key, { expiresIn: 60, ...o });
    assert.ok(tokens.verify(forge(secret, { audience: 'chess-service', issuer: 'http://chess.test' })));
    assert.equal(tokens.verify(forge(secret, { audience: 'other', issuer: 'http://chess.test' })), undefined);
    assert.equal(tokens.verify(forge(secret, { audience: 'chess-service', issuer: 'http://evil.test' })), undefined);
    assert.equal(tokens.verify(forge('x'.repeat(40), { audience: 'chess-service', issuer: 'http://chess.test' })), undefined);
    assert.equal(tokens.verify(forge(secret, { algorithm: 'HS512', audience: 'chess-service', issuer: 'http://chess.test' })), undefined);
  });

  it('refuses tokens whose ids are not uuids', () => {
    const token = jwt.sign({ sub: 'admin', email: 'a@b.c', role: 'authenticated', sid: "1' OR '1'='1" }, secret, {
      expiresIn: 60,
      audience: 'chess-service',
      issuer: 'http://chess.test',
    });
    assert.equal(tokens.verify(token), undefined);
  });

  it('refuses garbage', () => {
    for (const t of ['', 'abc', 'a.b.c', '....']) assert.equal(tokens.verify(t), undefined);
  });
});

describe('opaque tokens', () => {
  it('are 32 random bytes in base64url, stored as a SHA-256 hex digest', () => {
    const t = randomToken();
    assert.match(t, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(randomToken(), t);
    assert.match(hashToken(t), /^[0-9a-f]{64}$/);
    assert.equal(hashToken(t), hashToken(t));
  });
});

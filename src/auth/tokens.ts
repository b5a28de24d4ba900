import { createHash, createSecretKey, randomBytes } from 'node:crypto';
import { parseId } from '../domain/ids.ts';
import jwt from 'jsonwebtoken';

/** Access tokens live one hour (the interface's session rules); the claim set is docs/design.md 2.2's. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const AUDIENCE = 'chess-service';
// Only the configured algorithm is accepted: this list is what stops `alg: none` and HS/RS confusion.
const ALGORITHM = 'HS256' as const;


export type AccessClaims = { sub: string; email: string; role: 'authenticated'; sid: string; iat: number; exp: number };
export type SignedAccessToken = { token: string; expiresIn: number; expiresAt: Date };

export type AccessTokens = {
  sign: (user: { id: string; email: string }, sessionId: string) => SignedAccessToken;
  /** The claims of a genuine, unexpired token; undefined for anything else. */
  verify: (token: string) => AccessClaims | undefined;
};

export function createAccessTokens(o: { secret: string; issuer: string }): AccessTokens {
  // A KeyObject made once: given a string, jsonwebtoken tries to parse it as a PEM public key and
  // builds a new key object on every sign and verify, which dominated the cost of a request.
  const key = createSecretKey(Buffer.from(o.secret, 'utf8'));
  return {
    sign(user, sessionId) {
      // Wall time, not the injected clock: jsonwebtoken checks `exp` against Date.now() itself.
      const iat = Math.floor(Date.now() / 1000);
      const exp = iat + ACCESS_TOKEN_TTL_SECONDS;
      const claims = { sub: user.id, email: user.email, role: 'authenticated', sid: sessionId, iat, exp };
      const token = jwt.sign(claims, key, { algorithm: ALGORITHM, audience: AUDIENCE, issuer: o.issuer });
      return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS, expiresAt: new Date(exp * 1000) };
    },
    verify(token) {
      try {
        const payload = jwt.verify(token, key, { algorithms: [ALGORITHM], audience: AUDIENCE, issuer: o.issuer });
        if (typeof payload !== 'object' || payload === null) return undefined;
        const { sub, email, role, sid, iat, exp } = payload as Record<string, unknown>;
        // The ids go into SQL as uuids: a malformed one must not become a database error.
        const [userId, sessionId] = [parseId(sub), parseId(sid)];
        if (!userId || !sessionId || typeof email !== 'string' || role !== 'authenticated') return undefined;
        if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
        return { sub: userId, email, role, sid: sessionId, iat, exp };
      } catch {
        return undefined;
      }
    },
  };
}

/** An opaque secret for refresh, reset and verification tokens: 256 bits, URL-safe. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/**
 * Only this digest is stored, so a database leak does not leak usable tokens. The tokens carry
 * 256 bits of entropy, so a fast unsalted hash is enough (unlike passwords).
 */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined): string | undefined {
  return header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

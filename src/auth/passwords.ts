import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';

/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently cut. */
export const MAX_PASSWORD_BYTES = 72;

export type PasswordHasher = {
  hash: (password: string) => Promise<string>;
  /**
   * Checks a login attempt. Without a stored hash (unknown email) it still compares against a
   * dummy hash of the same cost, so both failures take the same time and do not reveal which
   * emails have accounts.
   */
  verify: (password: string, storedHash: string | undefined) => Promise<boolean>;
  /** A hash made with another cost than the configured one should be replaced on login. */
  needsRehash: (storedHash: string) => boolean;
};

export function createPasswordHasher(cost: number): PasswordHasher {
  // Made at once, so that even the first unknown email does not pay for it (and stand out).
  const dummyHash = bcrypt.hash(randomBytes(16).toString('hex'), cost);

  return {
    hash: (password) => bcrypt.hash(password, cost),
    async verify(password, storedHash) {
      // No stored password is longer than 72 bytes, and bcrypt would compare only their first 72:
      // such an attempt is wrong, but costs the same time.
      const tooLong = Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
      const matches = await bcrypt.compare(password, storedHash ?? (await dummyHash));
      return matches && storedHash !== undefined && !tooLong;
    },
    needsRehash: (storedHash) => bcrypt.getRounds(storedHash) !== cost,
  };
}

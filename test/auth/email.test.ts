import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Email, normalizeEmail } from '../../src/auth/rules.ts';

describe('normalizeEmail', () => {
  it('folds compatibility forms, case and surrounding space', () => {
    assert.equal(normalizeEmail('  ＡＮＮ＠Example.COM '), 'ann@example.com');
    assert.equal(normalizeEmail('STRAẞE@x.org'), 'strasse@x.org');
    assert.equal(normalizeEmail('straße@x.org'), 'strasse@x.org');
    assert.equal(normalizeEmail('ΟΔΟΣ@x.org'), normalizeEmail('οδος@x.org'));
  });

  it('keeps dotted capital İ apart from i', () => {
    assert.notEqual(normalizeEmail('İvan@x.org'), 'ivan@x.org');
    assert.equal(normalizeEmail('İvan@x.org'), normalizeEmail('i\u0307van@x.org'));
  });

  it('is idempotent, and any two spellings with one form stay one under upper and lower case', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (s) => {
        const once = normalizeEmail(s);
        assert.equal(normalizeEmail(once), once);
        assert.equal(normalizeEmail(s.toUpperCase()), normalizeEmail(s.toLowerCase()));
      }),
      { numRuns: 2000 },
    );
  });

  it('is what the Email rule stores', () => {
    assert.equal(Email.parse(' ＡＮＮ@Example.com'), 'ann@example.com');
    assert.equal(Email.safeParse('İvan@example.com').success, false, 'a non-ASCII address is refused at signup');
  });
});

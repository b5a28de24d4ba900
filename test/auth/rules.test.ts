import assert from 'node:assert/strict';
import { containsOffensiveWord } from '../../src/auth/offensiveWords.ts';
import { AvatarUrl, Country, Email, FullName, passwordProblems, usernameProblems } from '../../src/auth/rules.ts';

describe('account field rules', () => {
  describe('passwords', () => {
    it('accepts 8 characters with a letter and a digit', () => {
      assert.deepEqual(passwordProblems('abcdefg1'), []);
    });
    it('reports every broken rule at once', () => {
      assert.deepEqual(passwordProblems('!!!'), [
        'must be at least 8 characters',
        'must contain at least one letter',
        'must contain at least one digit',
      ]);
    });
    it('counts characters, not bytes, for the minimum length', () => {
      assert.deepEqual(passwordProblems('ééééééé1'), []);
    });
    it('refuses more than 72 bytes, which bcrypt would silently cut', () => {
      assert.deepEqual(passwordProblems('a1'.repeat(36)), []);
      assert.deepEqual(passwordProblems('a1'.repeat(36) + 'x'), ['must be at most 72 bytes']);
      // 36 two-byte letters and a digit: 37 characters, 73 bytes.
      assert.deepEqual(passwordProblems('é'.repeat(36) + '1'), ['must be at most 72 bytes']);
    });
  });

  describe('usernames', () => {
    it('accepts 3 to 20 letters, digits and underscores', () => {
      for (const name of ['abc', 'Magnus_Carlsen_1990', 'a'.repeat(20), '___']) assert.deepEqual(usernameProblems(name), [], name);
    });
    it('refuses names that are too short or too long', () => {
      assert.deepEqual(usernameProblems('ab'), ['must be 3 to 20 characters']);
      assert.deepEqual(usernameProblems('a'.repeat(21)), ['must be 3 to 20 characters']);
    });
    it('refuses other characters', () => {
      for (const name of ['with space', 'dash-ed', 'dot.ted', 'ünïcode', 'emoji😀x']) {
        assert.deepEqual(usernameProblems(name), ['may contain only letters, digits and underscores'], name);
      }
    });
    it('refuses hidden characters by the rule every name follows, before its own alphabet', () => {
      assert.deepEqual(usernameProblems('tab\there'), ['must not contain control characters']);
      assert.deepEqual(usernameProblems('zero\u200bwidth'), ['must not contain invisible formatting characters (direction overrides, zero-width characters)']);
    });
  });

  describe('offensive words', () => {
    it('finds them whatever the case', () => {
      for (const name of ['fuckface', 'FuCk_master', 'SHITHEAD', 'big_Bitch']) assert.ok(containsOffensiveWord(name), name);
    });
    it('finds them behind digit-for-letter swaps', () => {
      for (const name of ['sh1t_happens', '5h1thead', 'b1tch', 'f4gg0t', 'wh0r3', 'big_a55', 'r4pe', 'c0ck', 'p0rn_star', 'a$$hole', 'b@stard']) {
        assert.ok(containsOffensiveWord(name), name);
      }
    });
    it('finds them spelled out with underscores', () => {
      assert.ok(containsOffensiveWord('f_u_c_k'));
      assert.ok(containsOffensiveWord('a_s_s_hat'));
    });
    it('lets innocent names through (no Scunthorpe problem)', () => {
      for (const name of ['ScunthorpeFan', 'therapist', 'grape_juice', 'class_act', 'Cockburn', 'hitchcock', 'passion', 'Dickens', 'titan', 'Yoshitaka', 'torpedo', 'player_55', 'magnus_c4rlsen', 'assassin_chess']) {
        assert.equal(containsOffensiveWord(name), false, name);
      }
    });
    it('is part of the username rules', () => {
      assert.deepEqual(usernameProblems('sh1t_happens'), ['must not contain offensive words']);
    });
  });

  describe('emails', () => {
    it('trims and lower-cases a valid address', () => {
      assert.equal(Email.parse('  Ann.Lee+chess@Example.COM '), 'ann.lee+chess@example.com');
    });
    it('refuses malformed addresses', () => {
      for (const email of ['plain', 'a@b', '@example.com', 'a@@example.com', 'a b@example.com', 'a@exa mple.com', '']) {
        assert.equal(Email.safeParse(email).success, false, email);
      }
    });
    it('refuses addresses longer than 254 characters', () => {
      assert.equal(Email.safeParse(`${'a'.repeat(250)}@example.com`).success, false);
    });
  });

  describe('profile fields', () => {
    it('normalises a country code to upper case and checks it against ISO 3166-1', () => {
      assert.equal(Country.parse('no'), 'NO');
      assert.equal(Country.parse('XK'), 'XK');
      for (const code of ['ZZ', 'USA', 'U', '12', 'EU']) assert.equal(Country.safeParse(code).success, false, code);
    });
    it('accepts http(s) avatar URLs of at most 2048 characters', () => {
      assert.equal(AvatarUrl.safeParse('https://img.example.com/a.png').success, true);
      assert.equal(AvatarUrl.safeParse('http://img.example.com/a.png').success, true);
      for (const url of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'ftp://x.example/a.png', 'not a url', '', `https://x.example/${'a'.repeat(2040)}`]) {
        assert.equal(AvatarUrl.safeParse(url).success, false, url.slice(0, 40));
      }
    });
    it('limits full names to 100 characters without control characters', () => {
      assert.equal(FullName.parse('  Judit Polgár  '), 'Judit Polgár');
      assert.equal(FullName.safeParse('x'.repeat(101)).success, false);
      assert.equal(FullName.safeParse('two\nlines').success, false);
    });
  });
});

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { acceptable, assignColors, colorsCompatible, findPartner, pairWaiting, ratingWindow, type Seek } from '../../src/domain/pairing.ts';

const seek = (id: string, rating: number, o: Partial<Seek> = {}): Seek => ({ id, userId: `u-${id}`, rating, color: 'random', since: 0, ...o });

describe('pairing', () => {
  it('starts the rating window at ±100 and widens it with waiting time until anyone is acceptable', () => {
    assert.equal(ratingWindow(0), 100);
    assert.equal(ratingWindow(2000), 200);
    assert.ok(ratingWindow(9_999) < Infinity);
    assert.equal(ratingWindow(10_000), Infinity);
  });

  it('pairs a newcomer with the closest acceptable rating, not the first in line', () => {
    const waiting = [seek('a', 1580, { since: 0 }), seek('b', 1510, { since: 5 })];
    assert.equal(findPartner(seek('n', 1500, { since: 10 }), waiting, 10)?.id, 'b');
  });

  it('refuses a gap wider than both windows and accepts it once the waiting one widened enough', () => {
    const waiting = seek('w', 1800, { since: 0 });
    const newcomer = (now: number) => seek('n', 1500, { since: now });
    assert.equal(acceptable(newcomer(1000), waiting, 1000), false);
    assert.equal(acceptable(newcomer(4000), waiting, 4000), true); // 100 + 4 s × 50 = 300
  });

  it('never pairs a user with themselves', () => {
    assert.equal(findPartner(seek('n', 1500, { userId: 'same' }), [seek('w', 1500, { userId: 'same' })], 0), undefined);
  });

  it('meets colour preferences: white with black or random, never white with white', () => {
    assert.equal(colorsCompatible('white', 'black'), true);
    assert.equal(colorsCompatible('white', 'random'), true);
    assert.equal(colorsCompatible('white', 'white'), false);
    assert.equal(colorsCompatible('black', 'black'), false);
    const { white, black } = assignColors(seek('a', 1500, { color: 'black' }), seek('b', 1500), () => true);
    assert.deepEqual([white.id, black.id], ['b', 'a']);
  });

  it('pairs waiting seeks longest-waiting first, each seek in at most one pair', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ rating: fc.integer({ min: 800, max: 2800 }), since: fc.nat(20_000), color: fc.constantFrom('white', 'black', 'random') as fc.Arbitrary<Seek['color']>, user: fc.nat(30) }), { maxLength: 60 }),
        (specs) => {
          const seeks = specs.map((s, i) => seek(String(i), s.rating, { since: s.since, color: s.color, userId: `u${s.user}` }));
          const pairs = pairWaiting(seeks, 20_000);
          const ids = pairs.flat().map((s) => s.id);
          assert.equal(new Set(ids).size, ids.length);
          for (const [a, b] of pairs) assert.ok(acceptable(a, b, 20_000));
        },
      ),
    );
  });
});

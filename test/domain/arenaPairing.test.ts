import assert from 'node:assert/strict';
import fc from 'fast-check';
import { colored, justPlayed, pairArena, type ArenaPairing, type ArenaPlayer } from '../../src/domain/arenaPairing.ts';

const player = (userId: string, o: Partial<ArenaPlayer> = {}): ArenaPlayer => ({
  userId,
  score: 0,
  rating: 1500,
  lastOpponentId: null,
  colorBalance: 0,
  waitingSince: 0,
  ...o,
});
const heads = () => true;
/** The pairs as sorted id pairs, sorted: what a test compares. */
const meetings = (pairs: ArenaPairing[]) => pairs.map((p) => [p.white.userId, p.black.userId].sort().join('-')).sort();

describe('arena pairing', () => {
  it('pairs nobody when fewer than two wait', () => {
    assert.deepEqual(pairArena([], heads), []);
    assert.deepEqual(pairArena([player('a')], heads), []);
  });

  it('pairs the closest scores first: 10 with 9, 4 with 3, whatever the ratings', () => {
    const waiting = [
      player('a', { score: 10, rating: 1200 }),
      player('b', { score: 3, rating: 2000 }),
      player('c', { score: 9, rating: 2100 }),
      player('d', { score: 4, rating: 1300 }),
    ];
    assert.deepEqual(meetings(pairArena(waiting, heads)), ['a-c', 'b-d']);
  });

  it('pairs by rating when the scores are equal', () => {
    const waiting = [player('a', { rating: 1500 }), player('b', { rating: 2000 }), player('c', { rating: 1550 }), player('d', { rating: 1950 })];
    assert.deepEqual(meetings(pairArena(waiting, heads)), ['a-c', 'b-d']);
  });

  it('never pairs the same two in a row while anyone else waits', () => {
    const waiting = [player('a', { lastOpponentId: 'b' }), player('b', { lastOpponentId: 'a' }), player('c', { rating: 1400 })];
    const pairs = pairArena(waiting, heads);
    assert.equal(pairs.length, 1);
    assert.ok(!justPlayed(pairs[0].white, pairs[0].black), meetings(pairs).join());
  });

  it('also when only one of them played the other last (the other played someone since)', () => {
    const waiting = [player('a', { lastOpponentId: 'b' }), player('b', { lastOpponentId: 'x' }), player('c', { rating: 1400 })];
    assert.notDeepEqual(meetings(pairArena(waiting, heads)), ['a-b']);
  });

  it('pairs the same two again when nobody else waits', () => {
    const waiting = [player('a', { lastOpponentId: 'b' }), player('b', { lastOpponentId: 'a' })];
    assert.deepEqual(meetings(pairArena(waiting, heads)), ['a-b']);
  });

  it('splits a rematch among four by swapping partners with the neighbouring pair', () => {
    // Ranked a, b, c, d: c and d just played each other, so a–c and b–d (or a–d, b–c), never c–d.
    const waiting = [
      player('a', { score: 8 }),
      player('b', { score: 6 }),
      player('c', { score: 4, lastOpponentId: 'd' }),
      player('d', { score: 4, rating: 1400, lastOpponentId: 'c' }),
    ];
    const pairs = pairArena(waiting, heads);
    assert.equal(pairs.length, 2);
    assert.ok(!meetings(pairs).includes('c-d'), meetings(pairs).join());
  });

  it('sits out the one who waited least when an odd number wait', () => {
    const waiting = [player('a', { waitingSince: 100 }), player('b', { waitingSince: 5_000 }), player('c', { waitingSince: 200, rating: 1400 })];
    assert.deepEqual(meetings(pairArena(waiting, heads)), ['a-c']);
  });

  it('sits out someone else when sitting out the newest would leave only a rematch', () => {
    // a and b just played each other and have waited longest; c only just arrived.
    const waiting = [
      player('a', { lastOpponentId: 'b', waitingSince: 0 }),
      player('b', { lastOpponentId: 'a', waitingSince: 0 }),
      player('c', { waitingSince: 9_000 }),
    ];
    const pairs = pairArena(waiting, heads);
    assert.equal(pairs.length, 1);
    assert.ok(meetings(pairs)[0].includes('c'));
  });

  it('leaves out the one whose absence makes the closest pairs: a late 0 and a loser 0 meet, the winner 2 waits', () => {
    // The last game: w beat l. The late joiner has waited longest, yet w (2) sits out, not l.
    const waiting = [
      player('late', { waitingSince: 0, rating: 1500 }),
      player('l', { waitingSince: 1_000, rating: 1600, lastOpponentId: 'w' }),
      player('w', { score: 2, waitingSince: 1_000, rating: 1400, lastOpponentId: 'l' }),
    ];
    assert.deepEqual(meetings(pairArena(waiting, heads)), ['l-late']);
  });

  it('among sit-outs that make equally close pairs, leaves out the one who waited least', () => {
    // Sitting out a (4) or c (0) leaves a pair 2 points apart either way; a only just arrived.
    const waiting = [
      player('a', { score: 4, waitingSince: 5_000 }),
      player('b', { score: 2, waitingSince: 0 }),
      player('c', { score: 0, waitingSince: 0 }),
    ];
    assert.deepEqual(meetings(pairArena(waiting, heads)), ['b-c']);
    waiting[0].waitingSince = 0;
    waiting[2].waitingSince = 5_000;
    assert.deepEqual(meetings(pairArena(waiting, heads)), ['a-b']);
  });

  it('leaves out the player whose absence makes the closest pairs (property: no other choice is closer)', () => {
    const arena = fc
      .array(fc.record({ score: fc.integer({ min: 0, max: 12 }), waitingSince: fc.integer({ min: 0, max: 1000 }) }), { minLength: 3, maxLength: 15 })
      .filter((rows) => rows.length % 2 === 1)
      .map((rows) => rows.map((r, i) => player(`p${i}`, r)));
    const spread = (pairs: Array<{ white: ArenaPlayer; black: ArenaPlayer }>) => pairs.reduce((sum, p) => sum + Math.abs(p.white.score - p.black.score), 0);
    fc.assert(
      fc.property(arena, (waiting) => {
        const pairs = pairArena(waiting, heads);
        // Without rematches to avoid, the best choice is: sort by score, leave out one, pair neighbours.
        const sorted = [...waiting].sort((a, b) => b.score - a.score);
        let best = Infinity;
        for (let out = 0; out < sorted.length; out++) {
          const rest = sorted.filter((_, i) => i !== out);
          let cost = 0;
          for (let i = 0; i < rest.length; i += 2) cost += rest[i].score - rest[i + 1].score;
          best = Math.min(best, cost);
        }
        assert.equal(spread(pairs), best);
      }),
    );
  });

  it('gives White to the player who had it less often, else lets the coin decide', () => {
    const a = player('a', { colorBalance: 1 });
    const b = player('b', { colorBalance: -1 });
    assert.equal(colored(a, b, heads).white.userId, 'b');
    assert.equal(colored(b, a, heads).white.userId, 'b');
    const [c, d] = [player('c'), player('d')];
    assert.equal(colored(c, d, () => true).white.userId, 'c');
    assert.equal(colored(c, d, () => false).white.userId, 'd');
  });

  it('seats everyone at most once, never a rematch among three or more, and floor(n/2) pairs when nobody just played (property)', () => {
    const arena = fc
      .array(
        fc.record({
          score: fc.integer({ min: 0, max: 20 }),
          rating: fc.integer({ min: 800, max: 2800 }),
          waitingSince: fc.integer({ min: 0, max: 10_000 }),
          colorBalance: fc.integer({ min: -2, max: 2 }),
          opponent: fc.option(fc.nat(40), { nil: undefined }),
        }),
        { maxLength: 40 },
      )
      .map((rows) => rows.map((r, i) => player(`p${i}`, { ...r, lastOpponentId: r.opponent === undefined ? null : `p${r.opponent}` })));
    fc.assert(
      fc.property(arena, fc.boolean(), (waiting, coin) => {
        const pairs = pairArena(waiting, () => coin);
        const seated = pairs.flatMap((p) => [p.white.userId, p.black.userId]);
        assert.equal(new Set(seated).size, seated.length, 'nobody twice');
        assert.ok(seated.every((id) => waiting.some((w) => w.userId === id)));
        if (waiting.length > 2) for (const p of pairs) assert.ok(!justPlayed(p.white, p.black), 'no rematch');
        if (waiting.every((w) => w.lastOpponentId === null)) assert.equal(pairs.length, Math.floor(waiting.length / 2));
      }),
    );
  });

  it('pairs a full round whenever a single previous round made the rematches (property)', () => {
    // Everyone just played one game against someone: last opponents pair up mutually.
    const round = fc.integer({ min: 2, max: 30 }).chain((pairsCount) =>
      fc.shuffledSubarray(Array.from({ length: pairsCount * 2 }, (_, i) => i), { minLength: pairsCount * 2 }).map((order) => {
        const players = order.map((_, i) => player(`p${i}`, { rating: 1000 + ((i * 37) % 900) }));
        for (let i = 0; i < order.length; i += 2) {
          players[order[i]].lastOpponentId = `p${order[i + 1]}`;
          players[order[i + 1]].lastOpponentId = `p${order[i]}`;
        }
        return players;
      }),
    );
    fc.assert(
      fc.property(round, (waiting) => {
        const pairs = pairArena(waiting, heads);
        assert.equal(pairs.length, waiting.length / 2);
        for (const p of pairs) assert.ok(!justPlayed(p.white, p.black));
      }),
    );
  });
});

// Who plays whom in an arena round (DESIGN 2.10): the players waiting now are paired by closest
// current score, then rating; never the same two in a row when anyone else waits. Pure: the
// tournament actor supplies the waiting players; a coin decides what nothing else does.
import type { Color } from './game.ts';

export type ArenaPlayer = {
  userId: string;
  score: number;
  rating: number;
  /** Whom they played last in this arena (null: nobody yet). */
  lastOpponentId: string | null;
  /** Games with White minus games with Black in this arena. */
  colorBalance: number;
  /** Since when they wait (ms): their last game's end, or their (re)joining. */
  waitingSince: number;
};

export type ArenaPairing = { white: ArenaPlayer; black: ArenaPlayer };

/** Sit-out choices tried when the round is odd before settling for fewer pairs. */
const SIT_OUT_TRIES = 8;

/** Standing order for pairing: score, then rating, highest first (the id makes it total). */
export function byScoreThenRating(a: ArenaPlayer, b: ArenaPlayer): number {
  return b.score - a.score || b.rating - a.rating || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);
}

/** Whether the two played each other in their last game (for either of them). */
export const justPlayed = (a: ArenaPlayer, b: ArenaPlayer) => a.lastOpponentId === b.userId || b.lastOpponentId === a.userId;

/**
 * The round's pairs. Players are ranked by score, then rating, and neighbours meet; a pair who
 * just played each other is split up (each meets the nearest other player instead) unless they
 * are the only two waiting. With an odd number waiting, the one left out is the one whose absence
 * makes the pairs closest in score (DESIGN 2.10); among equally good choices, the one who has
 * waited least (then the lowest ranked), unless that would leave fewer pairs than another choice.
 */
export function pairArena(waiting: readonly ArenaPlayer[], coin: () => boolean): ArenaPairing[] {
  if (waiting.length < 2) return [];
  if (waiting.length === 2) return [colored(waiting[0], waiting[1], coin)];
  const ranked = [...waiting].sort(byScoreThenRating);
  let pairs: Array<[ArenaPlayer, ArenaPlayer]>;
  if (ranked.length % 2 === 0) {
    pairs = pairEven(ranked);
  } else {
    const spreads = sitOutSpreads(ranked);
    const sitOutOrder = ranked
      .map((p, rank) => ({ p, rank, spread: spreads[rank] }))
      .sort((a, b) => a.spread - b.spread || b.p.waitingSince - a.p.waitingSince || b.rank - a.rank)
      .slice(0, SIT_OUT_TRIES);
    // The spreads assume neighbours meet; a rematch to avoid may pair others, so each choice is
    // tried and judged by what it really makes: most pairs, then the closest, then the order above.
    let best: { pairs: Array<[ArenaPlayer, ArenaPlayer]>; spread: number } = { pairs: [], spread: Infinity };
    for (const { p } of sitOutOrder) {
      const tried = pairEven(ranked.filter((x) => x !== p));
      const spread = scoreSpread(tried);
      if (tried.length > best.pairs.length || (tried.length === best.pairs.length && spread < best.spread)) best = { pairs: tried, spread };
    }
    pairs = best.pairs;
  }
  return pairs.map(([a, b]) => colored(a, b, coin));
}

const scoreSpread = (pairs: ReadonlyArray<readonly [ArenaPlayer, ArenaPlayer]>) =>
  pairs.reduce((sum, [a, b]) => sum + Math.abs(a.score - b.score), 0);

/**
 * For each ranked player (an odd number of them), the summed score gap of the pairs left when
 * that one sits out and neighbours meet: in linear time from the gaps of neighbour pairs counted
 * from the top (before the one out) and from the bottom (after it).
 */
function sitOutSpreads(ranked: readonly ArenaPlayer[]): number[] {
  const n = ranked.length;
  const gap = (i: number, j: number) => Math.abs(ranked[i].score - ranked[j].score);
  // fromTop[k]: players 0..k-1 paired (k even); fromBottom[k]: players k..n-1 paired (n - k even).
  const fromTop = new Array<number>(n + 1).fill(0);
  for (let k = 2; k <= n; k += 2) fromTop[k] = fromTop[k - 2] + gap(k - 2, k - 1);
  const fromBottom = new Array<number>(n + 2).fill(0);
  for (let k = n - 2; k >= 0; k -= 2) fromBottom[k] = fromBottom[k + 2] + gap(k, k + 1);
  return ranked.map((_, out) =>
    out % 2 === 0
      ? fromTop[out] + fromBottom[out + 1]
      : // Odd: the player above it now meets the one below it.
        fromTop[out - 1] + gap(out - 1, out + 1) + fromBottom[out + 2],
  );
}

/**
 * Pairs ranked players, each with the highest-ranked one above it still unpaired that it did
 * not just play (so neighbours meet when nothing forbids it); then mends what that left over.
 */
function pairEven(ranked: readonly ArenaPlayer[]): Array<[ArenaPlayer, ArenaPlayer]> {
  const pairs: Array<[ArenaPlayer, ArenaPlayer]> = [];
  const open: ArenaPlayer[] = [];
  for (const p of ranked) {
    const i = open.findIndex((q) => !justPlayed(p, q));
    if (i < 0) open.push(p);
    else pairs.push([open.splice(i, 1)[0], p]);
  }
  mend(ranked, pairs, open);
  return pairs;
}

/**
 * Players left open just played each other (all of them, pairwise). Two of them, u and v, can
 * still play if a pair (x, y) splits into u–x and v–y (or u–y and v–x): the pair closest in rank
 * to u that allows it is split.
 */
function mend(ranked: readonly ArenaPlayer[], pairs: Array<[ArenaPlayer, ArenaPlayer]>, open: ArenaPlayer[]): void {
  const rank = new Map(ranked.map((p, i) => [p.userId, i]));
  const distance = (pair: [ArenaPlayer, ArenaPlayer], u: ArenaPlayer) =>
    Math.abs(rank.get(pair[0].userId)! - rank.get(u.userId)!) + Math.abs(rank.get(pair[1].userId)! - rank.get(u.userId)!);
  let stuck = 0;
  while (open.length - stuck >= 2) {
    const u = open[stuck];
    let mended = false;
    for (const v of open) {
      if (v === u) continue;
      let best: { index: number; first: [ArenaPlayer, ArenaPlayer]; second: [ArenaPlayer, ArenaPlayer]; d: number } | undefined;
      for (const [index, pair] of pairs.entries()) {
        const [x, y] = pair;
        const options: Array<[[ArenaPlayer, ArenaPlayer], [ArenaPlayer, ArenaPlayer]]> = [
          [[u, x], [v, y]],
          [[u, y], [v, x]],
        ];
        for (const [first, second] of options) {
          if (justPlayed(...first) || justPlayed(...second)) continue;
          const d = distance(pair, u);
          if (!best || d < best.d) best = { index, first, second, d };
        }
      }
      if (!best) continue;
      pairs.splice(best.index, 1, best.first, best.second);
      open.splice(open.indexOf(v), 1);
      open.splice(open.indexOf(u), 1);
      mended = true;
      break;
    }
    if (!mended) stuck++;
  }
}

/** White to the one who had White less often in this arena; a coin when they are even. */
export function colored(a: ArenaPlayer, b: ArenaPlayer, coin: () => boolean): ArenaPairing {
  if (a.colorBalance !== b.colorBalance) return a.colorBalance < b.colorBalance ? { white: a, black: b } : { white: b, black: a };
  return coin() ? { white: a, black: b } : { white: b, black: a };
}

/** The colour a player got in a pairing. */
export const colorIn = (p: ArenaPairing, userId: string): Color => (p.white.userId === userId ? 'white' : 'black');

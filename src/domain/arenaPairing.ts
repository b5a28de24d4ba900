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
 * are the only two waiting. With an odd number waiting, the player who has waited least sits
 * out (the lowest ranked of those), unless that would leave fewer pairs than another choice.
 */
export function pairArena(waiting: readonly ArenaPlayer[], coin: () => boolean): ArenaPairing[] {
  if (waiting.length < 2) return [];
  if (waiting.length === 2) return [colored(waiting[0], waiting[1], coin)];
  const ranked = [...waiting].sort(byScoreThenRating);
  let pairs: Array<[ArenaPlayer, ArenaPlayer]>;
  if (ranked.length % 2 === 0) {
    pairs = pairEven(ranked);
  } else {
    const full = (ranked.length - 1) / 2;
    const sitOutOrder = ranked
      .map((p, rank) => ({ p, rank }))
      .sort((a, b) => b.p.waitingSince - a.p.waitingSince || b.rank - a.rank)
      .slice(0, SIT_OUT_TRIES);
    pairs = [];
    for (const { p } of sitOutOrder) {
      const tried = pairEven(ranked.filter((x) => x !== p));
      if (tried.length > pairs.length) pairs = tried;
      if (pairs.length === full) break;
    }
  }
  return pairs.map(([a, b]) => colored(a, b, coin));
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

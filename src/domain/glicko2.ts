// Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013) with Lichess's constants.
// Each finished rated game is its own rating period, as on Lichess.

export interface Glicko {
  rating: number;
  deviation: number;
  volatility: number;
}

export interface GlickoOptions {
  /** System constant: how much volatility may change. Lichess uses 0.75. */
  tau?: number;
  minDeviation?: number;
  maxDeviation?: number;
}

/** score is 1 for a win, 0.5 for a draw, 0 for a loss. */
export interface GameOutcome {
  opponent: Glicko;
  score: number;
}

export const DEFAULT_GLICKO: Readonly<Glicko> = { rating: 1500, deviation: 500, volatility: 0.09 };
export const LICHESS_OPTIONS: Readonly<Required<GlickoOptions>> = {
  tau: 0.75,
  // 45 keeps established ratings responsive; 500 is the deviation of a new player.
  minDeviation: 45,
  maxDeviation: 500,
};

const SCALE = 173.7178; // converts between the Glicko and Glicko-2 scales
const CONVERGENCE = 0.000001;

const g = (phi: number) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));
const expected = (mu: number, muJ: number, phiJ: number) => 1 / (1 + Math.exp(-g(phiJ) * (mu - muJ)));

/** Step 5 of the paper: the new volatility, found with the Illinois variant of regula falsi. */
function newVolatility(phi: number, sigma: number, v: number, delta: number, tau: number): number {
  const a = Math.log(sigma * sigma);
  const f = (x: number) => {
    const ex = Math.exp(x);
    const d = phi * phi + v + ex;
    return (ex * (delta * delta - phi * phi - v - ex)) / (2 * d * d) - (x - a) / (tau * tau);
  };

  let A = a;
  let B: number;
  if (delta * delta > phi * phi + v) {
    B = Math.log(delta * delta - phi * phi - v);
  } else {
    let k = 1;
    while (f(a - k * tau) < 0) k++;
    B = a - k * tau;
  }
  let fA = f(A);
  let fB = f(B);
  while (Math.abs(B - A) > CONVERGENCE) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      fA /= 2;
    }
    B = C;
    fB = fC;
  }
  return Math.exp(A / 2);
}

/** One rating period for `player` against `outcomes`; an empty period only widens the deviation. */
export function rate(player: Glicko, outcomes: readonly GameOutcome[], options: GlickoOptions = {}): Glicko {
  const { tau, minDeviation, maxDeviation } = { ...LICHESS_OPTIONS, ...options };
  const clampRd = (rd: number) => Math.min(maxDeviation, Math.max(minDeviation, rd));
  const mu = (player.rating - 1500) / SCALE;
  const phi = player.deviation / SCALE;
  const sigma = player.volatility;

  if (outcomes.length === 0) {
    const widened = Math.sqrt(phi * phi + sigma * sigma) * SCALE;
    return { rating: player.rating, deviation: clampRd(widened), volatility: sigma };
  }

  let vInverse = 0;
  let scoreSum = 0; // Σ g(φj)(sj − E)
  for (const { opponent, score } of outcomes) {
    const muJ = (opponent.rating - 1500) / SCALE;
    const phiJ = opponent.deviation / SCALE;
    const e = expected(mu, muJ, phiJ);
    const gJ = g(phiJ);
    vInverse += gJ * gJ * e * (1 - e);
    scoreSum += gJ * (score - e);
  }
  const v = 1 / vInverse;
  const delta = v * scoreSum;

  const sigmaNew = newVolatility(phi, sigma, v, delta, tau);
  const phiStar = Math.sqrt(phi * phi + sigmaNew * sigmaNew);
  const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const muNew = mu + phiNew * phiNew * scoreSum;

  return {
    rating: muNew * SCALE + 1500,
    deviation: clampRd(phiNew * SCALE),
    volatility: sigmaNew,
  };
}

export interface RatedGame {
  white: Glicko;
  black: Glicko;
  /** Signed whole points as players see them: round(new) − round(old). */
  changes: { white: number; black: number };
}

/** Both players are rated against the other's rating from before the game. */
export function rateGame(
  white: Glicko,
  black: Glicko,
  score: 1 | 0.5 | 0,
  options: GlickoOptions = {},
): RatedGame {
  const newWhite = rate(white, [{ opponent: black, score }], options);
  const newBlack = rate(black, [{ opponent: white, score: 1 - score }], options);
  return {
    white: newWhite,
    black: newBlack,
    changes: {
      white: Math.round(newWhite.rating) - Math.round(white.rating),
      black: Math.round(newBlack.rating) - Math.round(black.rating),
    },
  };
}

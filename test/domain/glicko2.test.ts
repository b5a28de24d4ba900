import assert from 'node:assert/strict';
import { DEFAULT_GLICKO, rate, rateGame } from '../../src/domain/glicko2.js';

describe('glicko2', () => {
  it("reproduces the worked example of Glickman's paper", () => {
    const player = { rating: 1500, deviation: 200, volatility: 0.06 };
    const outcomes = [
      { opponent: { rating: 1400, deviation: 30, volatility: 0.06 }, score: 1 },
      { opponent: { rating: 1550, deviation: 100, volatility: 0.06 }, score: 0 },
      { opponent: { rating: 1700, deviation: 300, volatility: 0.06 }, score: 0 },
    ];
    const rated = rate(player, outcomes, { tau: 0.5 });
    assert.ok(Math.abs(rated.rating - 1464.06) < 0.01, `rating ${rated.rating}`);
    assert.ok(Math.abs(rated.deviation - 151.52) < 0.01, `deviation ${rated.deviation}`);
    assert.ok(Math.abs(rated.volatility - 0.05999) < 0.00001, `volatility ${rated.volatility}`);
  });

  it('does not let the deviation fall below 45', () => {
    const veteran = { rating: 2000, deviation: 50, volatility: 0.06 };
    const draw = { opponent: veteran, score: 0.5 };
    const rated = rate(veteran, Array.from({ length: 20 }, () => draw));
    assert.equal(rated.deviation, 45);
  });

  it('does not let the deviation rise above 500', () => {
    assert.equal(rate(DEFAULT_GLICKO, []).deviation, 500);
  });

  it('leaves the rating alone in a period without games', () => {
    const player = { rating: 1800, deviation: 80, volatility: 0.06 };
    const rated = rate(player, []);
    assert.equal(rated.rating, 1800);
    assert.ok(rated.deviation > 80);
  });

  it('raises the winner and lowers the loser', () => {
    const { white, black, changes } = rateGame(DEFAULT_GLICKO, DEFAULT_GLICKO, 1);
    assert.ok(white.rating > 1500);
    assert.ok(black.rating < 1500);
    assert.ok(changes.white > 0);
    assert.ok(changes.black < 0);
  });

  it('lowers White after a loss to Black', () => {
    const { changes } = rateGame(DEFAULT_GLICKO, DEFAULT_GLICKO, 0);
    assert.ok(changes.white < 0);
    assert.ok(changes.black > 0);
  });

  it('reports rating changes as the difference of the rounded ratings', () => {
    const white = { rating: 1612.4, deviation: 70, volatility: 0.06 };
    const black = { rating: 1580.6, deviation: 90, volatility: 0.06 };
    const game = rateGame(white, black, 0.5);
    assert.equal(game.changes.white, Math.round(game.white.rating) - 1612);
    assert.equal(game.changes.black, Math.round(game.black.rating) - 1581);
    assert.ok(Number.isInteger(game.changes.white) && Number.isInteger(game.changes.black));
  });

  it('changes nothing for a draw between identical players', () => {
    const { changes } = rateGame(DEFAULT_GLICKO, DEFAULT_GLICKO, 0.5);
    assert.deepEqual(changes, { white: 0, black: 0 });
  });

  it('moves an established rating less than a provisional one', () => {
    const established = { rating: 1500, deviation: 60, volatility: 0.06 };
    const provisional = rateGame(DEFAULT_GLICKO, DEFAULT_GLICKO, 1).changes.white;
    const settled = rateGame(established, established, 1).changes.white;
    assert.ok(settled < provisional);
  });
});

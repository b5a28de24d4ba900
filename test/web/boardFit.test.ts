import assert from 'node:assert/strict';
import { assertNoProblems, gameOverApi, logIn, webAppSuite } from '../helpers/webApp.ts';
import { assertFits, measure, resizeTo } from './fit.ts';

/**
 * Issue 37: on a laptop the game page showed the board from y≈200 whatever the window's height, so
 * the player's own clock and the first rank were below the fold. The board now fits the window
 * both ways, and follows it when the window is resized.
 */
describe('the game page fits the window, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it('shows both clocks, both player lines and all 64 squares without scrolling, from 1366×768 to 1280×720, the board following a resize', async () => {
    const game = await gameOverApi(app.base());
    const u = await app.open({ viewport: { width: 1366, height: 768 } });
    await logIn(u, game.white);
    await u.page.goto(`/play/${game.id}`);
    await u.page.locator('.controls').waitFor();
    // The side panel stands beside the board on a wide screen.
    const side = await u.page.locator('.play-side').boundingBox();
    const board = await u.page.locator('.board-box').boundingBox();
    assert.ok(side && board && side.x >= board.x + board.width, 'the moves and controls beside the board');
    assertFits(await measure(u.page), 560);

    for (const [viewport, atLeast] of [[{ width: 1280, height: 720 }, 520], [{ width: 1280, height: 860 }, 650], [{ width: 1366, height: 768 }, 560]] as const) {
      await resizeTo(u.page, viewport);
      assertFits(await measure(u.page), atLeast);
    }
    assertNoProblems(u);
  });

  it('fits a 375×667 phone: the whole board and both clocks above the fold, the side panel below, no sideways scroll', async () => {
    const game = await gameOverApi(app.base());
    const u = await app.open({ viewport: { width: 375, height: 667 } });
    await logIn(u, game.black);
    await u.page.goto(`/play/${game.id}`);
    await u.page.locator('.controls').waitFor();
    const fit = await measure(u.page);
    // The board takes the width: 375 less the page's margins.
    assertFits(fit, 340);
    const side = await u.page.locator('.play-side').boundingBox();
    const lower = await u.page.locator('.player.bottom').boundingBox();
    assert.ok(side && lower && side.y >= lower.y + lower.height, 'the side panel under the board');
    assertNoProblems(u);
  });
});

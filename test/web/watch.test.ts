import assert from 'node:assert/strict';
import { postData, requestJson } from '../support/process.ts';
import { assertNoProblems, gameOverApi, PHONE, screenshot, webAppSuite } from '../helpers/webApp.ts';

const DESKTOP = { width: 1366, height: 768 };
const SMALL_PHONE = { width: PHONE.width, height: 667 };

/** DESIGN 2.14: the Watch page, as a spectator who never signed in sees it, in a real Chromium. */
describe('the Watch page, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  for (const [name, viewport] of [['a laptop', DESKTOP], ['a phone', SMALL_PHONE]] as const) {
    it(`on ${name}: lists the live games whose boards follow their moves, and the TV moves to the next game when its game ends`, async () => {
      const base = app.base();
      const v1 = `${base}/v1`;
      const games = [await gameOverApi(base), await gameOverApi(base)];
      const user = await app.open({ viewport });
      const { page } = user;
      try {
        // In by the navigation bar (behind the menu button on a phone).
        if (viewport === SMALL_PHONE) await page.click('.menu-toggle');
        await page.click('.site-nav a:has-text("Watch")');
        await page.waitForURL(/\/watch$/);
        for (const g of games) await page.locator(`.live-game[data-game-id="${g.id}"] svg.mini-board`).waitFor();

        // A move made over the API shows on its mini board.
        const [moving] = games;
        await postData(v1, `/games/${moving.id}/moves`, { from: 'e2', to: 'e4' }, moving.white.token);
        await page.locator(`.live-game[data-game-id="${moving.id}"] use[data-square="e4"][data-piece="wp"]`).waitFor();
        assert.equal(await page.locator(`.live-game[data-game-id="${moving.id}"] use[data-square="e2"]`).count(), 0);

        // The TV shows the featured game (both are rated alike: the service's tie-break picks one).
        const featured = (await requestJson(v1, 'GET', '/tv')).body.data.game.id as string;
        await page.locator(`.tv-box[data-game-id="${featured}"] svg.mini-board`).waitFor();
        const ending = games.find((g) => g.id === featured)!;
        const other = games.find((g) => g.id !== featured)!;
        await postData(v1, `/games/${ending.id}/resign`, {}, ending.white.token);
        await page.locator(`.tv-box[data-game-id="${other.id}"] svg.mini-board`).waitFor();
        await page.locator(`.live-game[data-game-id="${ending.id}"]`).waitFor({ state: 'detached' });

        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `no sideways scroll: ${width}px in ${viewport.width}px`);
        await screenshot(page, viewport === SMALL_PHONE ? 'watch-phone' : 'watch');
        assertNoProblems(user);
      } finally {
        for (const g of games) await requestJson(v1, 'POST', `/games/${g.id}/resign`, {}, g.white.token);
      }
    });
  }
});

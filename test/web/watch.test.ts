import assert from 'node:assert/strict';
import { postData, requestJson } from '../support/process.ts';
import { assertNoProblems, gameOverApi, PHONE, screenshot, waitForMoves, webAppSuite } from '../helpers/webApp.ts';
import { assertFits, measure, resizeTo } from './fit.ts';

const DESKTOP = { width: 1366, height: 768 };
const SMALL_PHONE = { width: PHONE.width, height: 667 };
const LAPTOP = { width: 1280, height: 720 };

/** DESIGN 2.14: the Watch page, as a spectator who never signed in sees it, in a real Chromium. */
describe('the Watch page, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  for (const [name, viewport] of [['a laptop', DESKTOP], ['a phone', SMALL_PHONE]] as const) {
    it(`on ${name}: lists the live games whose boards follow their moves, and the TV follows its game's moves and moves to the next game when it ends`, async () => {
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

        // The TV shows the featured game (both are rated alike: the service's tie-break picks one)
        // from its first position.
        const featured = (await requestJson(v1, 'GET', '/tv')).body.data.game.id as string;
        const tv = page.locator(`.tv-box[data-game-id="${featured}"] svg.mini-board`);
        await tv.locator('use[data-square="e2"][data-piece="wp"]').waitFor();
        const ending = games.find((g) => g.id === featured)!;
        const other = games.find((g) => g.id !== featured)!;

        // A move made over the API shows on its mini board in the list and on the TV, the move's squares marked there.
        await postData(v1, `/games/${ending.id}/moves`, { from: 'e2', to: 'e4' }, ending.white.token);
        const card = page.locator(`.live-game[data-game-id="${ending.id}"]`);
        for (const board of [card, tv]) {
          await board.locator('use[data-square="e4"][data-piece="wp"]').waitFor();
          assert.equal(await board.locator('use[data-square="e2"]').count(), 0);
        }
        assert.equal(await tv.locator('.last-move rect').count(), 2, 'e2 and e4 marked on the TV');
        await page.locator(`.live-game[data-game-id="${other.id}"] use[data-square="e2"][data-piece="wp"]`).waitFor();

        await postData(v1, `/games/${ending.id}/resign`, {}, ending.white.token);
        await page.locator(`.tv-box[data-game-id="${other.id}"] svg.mini-board`).waitFor();
        await card.waitFor({ state: 'detached' });

        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `no sideways scroll: ${width}px in ${viewport.width}px`);
        await screenshot(page, viewport === SMALL_PHONE ? 'watch-phone' : 'watch');
        assertNoProblems(user);
      } finally {
        for (const g of games) await requestJson(v1, 'POST', `/games/${g.id}/resign`, {}, g.white.token);
      }
    });

    it(`on ${name}: a game picked in the list opens on its own page, where a visitor without an account watches its moves, the board, both players and both clocks in the window`, async () => {
      const base = app.base();
      const v1 = `${base}/v1`;
      const games = [await gameOverApi(base), await gameOverApi(base)];
      const watched = games[1];
      const user = await app.open({ viewport, path: '/watch' });
      const { page } = user;
      try {
        for (const g of games) await page.locator(`.live-game[data-game-id="${g.id}"] svg.mini-board`).waitFor();
        await postData(v1, `/games/${watched.id}/moves`, { from: 'e2', to: 'e4' }, watched.white.token);
        const card = page.locator(`.live-game[data-game-id="${watched.id}"]`);
        await card.locator('use[data-square="e4"][data-piece="wp"]').waitFor();

        await card.locator('a.board-link').click();
        await page.waitForURL(new RegExp(`/play/${watched.id}$`));
        // The game as it stands, to a spectator: no controls, no move form, nobody signed in.
        await page.locator('.board-box g[data-square="e4"][data-piece="wp"]').waitFor();
        assert.equal(await page.locator('.board-box g[data-square="e2"][data-piece]').count(), 0);
        assert.deepEqual(await waitForMoves(page, 1), ['e4']);
        await page.locator('.player.bottom .name', { hasText: watched.white.username }).waitFor();
        await page.locator('.player.top .name', { hasText: watched.black.username }).waitFor();
        assert.ok(await page.locator('.controls').isHidden(), 'no resign or draw buttons for a spectator');
        assert.ok(await page.locator('form.typed').isHidden(), 'no move form for a spectator');
        assert.equal(await page.locator('.site-nav .me').count(), 0, 'watched without an account');

        // Black answers over the API: the spectator's board and move list follow, and White's clock starts.
        await postData(v1, `/games/${watched.id}/moves`, { from: 'e7', to: 'e5' }, watched.black.token);
        await page.locator('.board-box g[data-square="e5"][data-piece="bp"]').waitFor();
        assert.equal(await page.locator('.board-box g[data-square="e7"][data-piece]').count(), 0);
        assert.deepEqual(await waitForMoves(page, 2), ['e4', 'e5']);
        await page.locator('.player.bottom .clock.running').waitFor();
        assert.equal(await page.locator('.player.top .clock.running').count(), 0);

        assertFits(await measure(page), viewport === SMALL_PHONE ? 340 : 560);
        if (viewport === DESKTOP) {
          await resizeTo(page, LAPTOP);
          assertFits(await measure(page), 520);
        }
        assertNoProblems(user);
      } finally {
        for (const g of games) await requestJson(v1, 'POST', `/games/${g.id}/resign`, {}, g.white.token);
      }
    });
  }
});

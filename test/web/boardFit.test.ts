import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertNoProblems, gameOverApi, logIn, webAppSuite } from '../helpers/webApp.ts';

/** What must be in the window on the game page, with where it stands (for the message when it is not). */
type Fit = { width: number; height: number; scrollWidth: number; board: number; outside: string[]; squares: number };

/**
 * Waits until the board is drawn at the size its box has (cm-chessboard redraws after a resize),
 * then measures: both player lines and their clocks, and each of the 64 squares, against the window.
 */
async function measure(page: Page): Promise<Fit> {
  // Settled: the same window, box and drawing for three frames running. Right after a resize the
  // window's new size shows before its `resize` event has run (the page fits the board there), and
  // the board's old drawing still matches its old box.
  await page.waitForFunction(
    () => {
      const box = document.querySelector<HTMLElement>('.board-box');
      const svg = box?.querySelector('svg');
      if (!box || !svg || box.clientWidth === 0 || document.querySelectorAll('.board-box rect[data-square]').length !== 64) return false;
      const drawn = svg.getBoundingClientRect().width;
      const seen = window as unknown as { fitKey?: string; fitFrames?: number };
      const key = `${window.innerWidth}x${window.innerHeight} ${box.clientWidth} ${Math.round(drawn)}`;
      seen.fitFrames = seen.fitKey === key ? (seen.fitFrames ?? 0) + 1 : 0;
      seen.fitKey = key;
      return seen.fitFrames >= 3 && Math.abs(drawn - box.clientWidth) < 1;
    },
    undefined,
    { polling: 'raf' },
  );
  // No named functions inside: the test runner's transform would wrap them in a helper the page lacks.
  return page.evaluate(() => {
    const width = window.innerWidth;
    const height = window.innerHeight;
    const squares = [...document.querySelectorAll('.board-box rect[data-square]')];
    const parts: [string, Element | null][] = [
      ...['top', 'bottom'].flatMap((line): [string, Element | null][] => [
        [`the ${line} player line`, document.querySelector(`.player.${line}`)],
        [`the ${line} clock`, document.querySelector(`.player.${line} .clock`)],
      ]),
      ...squares.map((sq): [string, Element | null] => [`square ${sq.getAttribute('data-square')}`, sq]),
    ];
    const outside: string[] = [];
    for (const [name, el] of parts) {
      const r = el?.getBoundingClientRect();
      if (!r) outside.push(`${name}: missing`);
      else if (r.top < 0 || r.left < 0 || r.bottom > height + 0.5 || r.right > width + 0.5) {
        outside.push(`${name}: ${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
    return {
      width,
      height,
      scrollWidth: document.documentElement.scrollWidth,
      board: Math.round(document.querySelector('.board-box')!.getBoundingClientRect().width),
      outside,
      squares: squares.length,
    };
  });
}

function assertFits(fit: Fit, atLeast: number): void {
  const at = `at ${fit.width}×${fit.height}`;
  assert.equal(fit.squares, 64);
  assert.deepEqual(fit.outside, [], `${at}: all of it in the window without scrolling`);
  assert.ok(fit.scrollWidth <= fit.width, `${at}: no sideways scroll (${fit.scrollWidth} px wide)`);
  // As large as fits: not shrunk further than the window asks.
  assert.ok(fit.board >= atLeast, `${at}: the board is ${fit.board} px, at least ${atLeast} expected`);
}

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
      await u.page.setViewportSize(viewport);
      await u.page.waitForFunction((w) => window.innerWidth === w, viewport.width);
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

import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/**
 * What must be in the window on the puzzle page for the solver to play without scrolling: each of
 * the 64 squares and the prompt (the line that says whose move it is, "Best move!", …). The same
 * measure as the game page's (test/web/boardFit.test.ts), with the prompt for the player lines.
 */
export type PuzzleFit = { width: number; height: number; scrollWidth: number; squares: number; outside: string[] };

/** Waits until the board is drawn at the size its box has, then measures it and the prompt against the window. */
export async function measurePuzzle(page: Page): Promise<PuzzleFit> {
  // Settled: the same window, box and drawing for three frames running (cm-chessboard redraws
  // after its box changes size).
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
    // In the document, so a page scrolled (by a click, say) does not pass for one that fits.
    const [dx, dy] = [window.scrollX, window.scrollY];
    const squares = [...document.querySelectorAll('.board-box rect[data-square]')];
    const parts: [string, Element | null][] = [
      ['the prompt', document.querySelector('.puzzle .prompt')],
      ...squares.map((sq): [string, Element | null] => [`square ${sq.getAttribute('data-square')}`, sq]),
    ];
    const outside: string[] = [];
    for (const [name, el] of parts) {
      const r = el?.getBoundingClientRect();
      if (!r) {
        outside.push(`${name}: missing`);
        continue;
      }
      const [left, top, right, bottom] = [r.left + dx, r.top + dy, r.right + dx, r.bottom + dy];
      if (top < 0 || left < 0 || bottom > height + 0.5 || right > width + 0.5) {
        outside.push(`${name}: ${Math.round(left)},${Math.round(top)} to ${Math.round(right)},${Math.round(bottom)}`);
      }
    }
    return { width, height, scrollWidth: document.documentElement.scrollWidth, squares: squares.length, outside };
  });
}

/** The whole board and the prompt in the window, unscrolled, and nothing wider than it. */
export async function assertPuzzleFits(page: Page): Promise<void> {
  const fit = await measurePuzzle(page);
  const at = `at ${fit.width}×${fit.height}`;
  assert.equal(fit.squares, 64);
  assert.deepEqual(fit.outside, [], `${at}: the board and the prompt in the window without scrolling`);
  assert.ok(fit.scrollWidth <= fit.width, `${at}: no sideways scroll (${fit.scrollWidth} px wide)`);
}

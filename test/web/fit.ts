import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

// A page's fit to the window, measured in a real Chromium: the game page, players' and spectators'
// alike (boardFit.test.ts, computer.test.ts, watch.test.ts), and the puzzle page (puzzles.test.ts).

/** Besides the 64 squares, what must be in the window on the game page: named, with its selector. */
export const GAME_PARTS: [string, string][] = ['top', 'bottom'].flatMap((line): [string, string][] => [
  [`the ${line} player line`, `.player.${line}`],
  [`the ${line} clock`, `.player.${line} .clock`],
]);

/** On the puzzle page: the prompt (whose move it is, "Best move!", …). */
export const PUZZLE_PARTS: [string, string][] = [['the prompt', '.puzzle .prompt']];

/** What must be in the window, with where it stands (for the message when it is not). */
export type Fit = { width: number; height: number; scrollWidth: number; board: number; outside: string[]; squares: number };

/**
 * Waits until the board is drawn at the size its box has (cm-chessboard redraws after a resize),
 * then measures `parts` (the game page's player lines and clocks unless told) and each of the 64
 * squares against the window.
 */
export async function measure(page: Page, parts: [string, string][] = GAME_PARTS): Promise<Fit> {
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
  return page.evaluate((named) => {
    const width = window.innerWidth;
    const height = window.innerHeight;
    // In the document, so a page scrolled (by a click, say) does not pass for one that fits.
    const [dx, dy] = [window.scrollX, window.scrollY];
    const squares = [...document.querySelectorAll('.board-box rect[data-square]')];
    const all: [string, Element | null][] = [
      ...named.map(([name, selector]): [string, Element | null] => [name, document.querySelector(selector)]),
      ...squares.map((sq): [string, Element | null] => [`square ${sq.getAttribute('data-square')}`, sq]),
    ];
    const outside: string[] = [];
    for (const [name, el] of all) {
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
    return {
      width,
      height,
      scrollWidth: document.documentElement.scrollWidth,
      board: Math.round(document.querySelector('.board-box')!.getBoundingClientRect().width),
      outside,
      squares: squares.length,
    };
  }, parts);
}

/** All of it in the window, no sideways scroll, and the board at least `atLeast` px when told. */
export function assertFits(fit: Fit, atLeast = 0): void {
  const at = `at ${fit.width}×${fit.height}`;
  assert.equal(fit.squares, 64);
  assert.deepEqual(fit.outside, [], `${at}: all of it in the window without scrolling`);
  assert.ok(fit.scrollWidth <= fit.width, `${at}: no sideways scroll (${fit.scrollWidth} px wide)`);
  // As large as fits: not shrunk further than the window asks.
  assert.ok(fit.board >= atLeast, `${at}: the board is ${fit.board} px, at least ${atLeast} expected`);
}

/** Sets the window's size and waits until the page has it. */
export async function resizeTo(page: Page, viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  await page.waitForFunction((v) => window.innerWidth === v.width && window.innerHeight === v.height, viewport);
}

// The game page's board fits the window (issue 37): on a laptop the whole board and both player
// lines (the clocks) must be in view without scrolling. The width is the layout's (CSS); the
// height left for the board depends on what stands above it (the header, a notice, on a narrow
// screen the title), which CSS cannot know, so it is measured here and handed to the stylesheet
// as --board-fit. cm-chessboard redraws itself when its box changes size (its `responsive`).

/** Space kept under the lower player line (px). */
const BOTTOM_GAP = 8;

/**
 * Keeps `page`'s --board-fit at the height the board may take: the window's height less the top
 * of `area` (in the document, so scrolling does not change it) and the heights of `lines`.
 * Returns `fit`, to call when something above the board may have changed, and `stop`.
 */
export function fitBoardToWindow(page: HTMLElement, area: HTMLElement, lines: HTMLElement[]): { fit: () => void; stop: () => void } {
  let shown = '';
  const fit = () => {
    const top = area.getBoundingClientRect().top + window.scrollY;
    const taken = lines.reduce((sum, el) => sum + el.offsetHeight, 0);
    const px = `${Math.floor(window.innerHeight - top - taken - BOTTOM_GAP)}px`;
    if (px === shown) return;
    shown = px;
    page.style.setProperty('--board-fit', px);
  };
  window.addEventListener('resize', fit);
  // Notices come and go above the page; the title may wrap once it is known.
  const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(() => fit());
  const notices = document.querySelector('.notices');
  if (notices) observer?.observe(notices);
  requestAnimationFrame(fit);
  return {
    fit,
    stop: () => {
      window.removeEventListener('resize', fit);
      observer?.disconnect();
    },
  };
}

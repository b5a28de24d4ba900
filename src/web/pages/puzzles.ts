// Puzzles (DESIGN 2.10, README "Puzzles"): today's puzzle on the board (anyone may look; solving
// needs an account), puzzles at the player's own rating one after another (GET /puzzles/next),
// any puzzle by its id, and the list to browse.

import { ApiError, get } from '../api.ts';
import { fill, h } from '../dom.ts';
import { puzzleBrowser } from '../puzzles/browse.ts';
import { puzzleSolver } from '../puzzles/solver.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import type { DailyPuzzle, Puzzle } from '../types/api.ts';

type Go = (path: string, o?: { replace?: boolean }) => void;

export async function puzzlesPage(ctx: PageContext & { go: Go }): Promise<void> {
  const me = session.user();
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const training = me
    ? h('button', { type: 'button', class: 'primary', onclick: () => void startTraining(ctx, status) }, 'Puzzles at my rating')
    : null;
  const intro = h('p', { class: 'lead' }, me
    ? ['Solve today’s puzzle, or train on puzzles chosen for your puzzle rating. ', training]
    : ['Anyone may look at today’s puzzle; ', h('a', { href: '/signup?next=/puzzles' }, 'sign up'), ' or ', h('a', { href: '/login?next=/puzzles' }, 'log in'), ' to solve puzzles and get a puzzle rating.']);
  let daily: DailyPuzzle | undefined;
  try {
    daily = await get<DailyPuzzle>('/puzzles/daily');
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 'PUZZLE_NOT_FOUND')) throw e;
  }
  if (ctx.signal.aborted) return;
  // The puzzle's day is a UTC day: shown as that date wherever the reader is.
  const day = daily ? new Date(`${daily.date}T00:00:00Z`).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }) : '';
  fill(ctx.root,
    daily ? puzzleSolver(ctx, { puzzle: daily.puzzle, title: 'Puzzle of the day', subtitle: day }) : h('h1', null, 'Puzzles'),
    daily ? null : h('p', { class: 'empty' }, 'There is no puzzle of the day yet.'),
    h('section', { class: 'card', 'aria-label': 'Training' }, intro, status),
    puzzleBrowser(ctx.signal));
}

export async function puzzlePage(ctx: PageContext & { go: Go }): Promise<void> {
  // The API's own names are not ids (GET /puzzles/daily and /next come before /puzzles/{id}).
  if (ctx.params.id === 'daily') return ctx.go('/puzzles', { replace: true });
  if (ctx.params.id === 'next') {
    if (!session.user()) return ctx.go('/login?next=/puzzles/next', { replace: true });
    const next = await get<Puzzle>('/puzzles/next');
    return ctx.go(`/puzzles/${encodeURIComponent(next.id)}`, { replace: true });
  }
  let puzzle: Puzzle;
  try {
    puzzle = await get<Puzzle>(`/puzzles/${encodeURIComponent(ctx.params.id)}`);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'PUZZLE_NOT_FOUND') {
      return fill(ctx.root, h('h1', null, 'No such puzzle'), h('p', null, h('a', { href: '/puzzles' }, 'Today’s puzzle and the list')));
    }
    throw e;
  }
  if (ctx.signal.aborted) return;
  fill(ctx.root, puzzleSolver(ctx, { puzzle, title: `Puzzle ${puzzle.id}` }), h('p', null, h('a', { href: '/puzzles' }, 'Today’s puzzle and the list of puzzles')));
}

async function startTraining(ctx: PageContext & { go: Go }, status: HTMLElement): Promise<void> {
  try {
    const puzzle = await get<Puzzle>('/puzzles/next');
    ctx.go(`/puzzles/${encodeURIComponent(puzzle.id)}`);
  } catch (e) {
    status.className = 'status error';
    status.textContent = e instanceof ApiError && e.code === 'PUZZLE_NOT_FOUND' ? 'No puzzle is left for you: you have tried every one.' : e instanceof Error ? e.message : String(e);
  }
}

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Chess } from 'chess.js';
import type { Page } from 'playwright-core';
import { requestJson } from '../support/process.ts';
import { apiUser, assertNoProblems, clickMove, logIn, PHONE, screenshot, webAppSuite } from '../helpers/webApp.ts';

/** The solutions of the bundled sample the service loads (the page never sees them before an answer). */
const SOLUTIONS = new Map(
  readFileSync('assets/puzzles/lichess_puzzles_sample.csv', 'utf8').trim().split('\n').slice(1)
    .map((row) => row.split(','))
    .map(([id, , moves]) => [id, moves.split(' ').slice(1)] as const),
);

/** The puzzle page's state (data attributes): plies on the line, whose input it awaits. */
const lineState = (page: Page) =>
  page.$eval('.puzzle', (el) => ({ plies: Number((el as HTMLElement).dataset.plies), input: (el as HTMLElement).dataset.input }));

/**
 * Plays `moves` (UCI, from the puzzle's position) by clicking squares: the solver's moves and the
 * replies the page asks for; a reply the page plays itself (the only legal one) is not clicked.
 */
async function playLine(page: Page, moves: readonly string[], solver: 'white' | 'black'): Promise<void> {
  for (const [i, uci] of moves.entries()) {
    await page.waitForFunction((n) => {
      const el = document.querySelector<HTMLElement>('.puzzle');
      const plies = Number(el?.dataset.plies);
      return plies > n || (plies === n && el?.dataset.input !== 'none');
    }, i);
    if ((await lineState(page)).plies > i) continue;
    await clickMove(page, uci.slice(0, 2), uci.slice(2, 4));
    if (uci[4]) {
      const mover = i % 2 === 0 ? solver : solver === 'white' ? 'black' : 'white';
      await page.locator(`.promotion-dialog-group [data-piece="${mover[0]}${uci[4]}"]`).first().click();
    }
  }
}

const sansOf = (fen: string, moves: readonly string[]) => {
  const chess = new Chess(fen);
  return moves.map((m) => chess.move({ from: m.slice(0, 2), to: m.slice(2, 4), promotion: m[4] }).san);
};

describe('puzzles in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it("solves the day's puzzle by clicking squares: the verdict, the solution on the board, and the rating the API gives", async () => {
    const base = app.base();
    const account = await apiUser(base);
    const user = await app.open();
    await logIn(user, account);
    await user.page.click('.site-nav a:has-text("Puzzles")');
    const { puzzle } = (await requestJson(base, 'GET', '/v1/puzzles/daily')).body.data;
    await user.page.locator('h1', { hasText: 'Puzzle of the day' }).waitFor();
    await user.page.locator('.puzzle-rating', { hasText: 'Your puzzle rating: 1500' }).waitFor();
    assert.match((await user.page.locator('.puzzle .setup').textContent()) ?? '', new RegExp(`played \\w+ ${puzzle.last_move.slice(0, 2)}–${puzzle.last_move.slice(2, 4)}`));

    const solution = SOLUTIONS.get(puzzle.id)!;
    await playLine(user.page, solution, puzzle.color);
    // A line of unknown length (no length theme, or `veryLong`) that does not end in mate waits
    // for the solver to submit it; any other is sent by itself.
    await user.page.locator(`.puzzle[data-plies="${solution.length}"]`).waitFor();
    if ((await user.page.$eval('.puzzle', (el) => (el as HTMLElement).dataset.phase)) === 'solving') await user.page.click('button:has-text("Submit my line")');
    await user.page.locator('.verdict .result', { hasText: 'Solved!' }).waitFor();

    const me = (await requestJson(base, 'GET', '/v1/users/me', undefined, account.token)).body.data;
    assert.ok(me.puzzle_rating > 1500, 'a solved first attempt raises the rating');
    await user.page.locator('.puzzle-rating', { hasText: `Your puzzle rating: ${me.puzzle_rating}` }).waitFor();
    assert.equal(await user.page.locator('.verdict .gain').textContent(), `+${me.puzzle_rating - 1500}`);
    // The solution is listed and played through on the board, to its last move.
    const listed = await user.page.$$eval('.solution button', (bs) => bs.map((b) => b.textContent?.split(' ').pop()));
    assert.deepEqual(listed, sansOf(puzzle.fen, solution));
    await user.page.locator(`.puzzle[data-shown="${solution.length - 1}"]`).waitFor();
    await screenshot(user.page, 'puzzle');
    assertNoProblems(user);
  });

  it('judges a line whose expected reply the puzzle does not make as no attempt: the reply is taken back, then the right line solves it, rated', async () => {
    // 002X3 (mate in 2): 1. Qa8+ Qb8 2. Qxb8#. Guessing 1… Qc8 and mating with 2. Qxc8# is a line
    // whose second move is illegal after the real reply: the API records nothing (400).
    const base = app.base();
    const account = await apiUser(base);
    const user = await app.open();
    await logIn(user, account);
    await user.page.goto('/puzzles/002X3');
    await user.page.locator('.prompt', { hasText: 'The solution is 2 moves of yours' }).waitFor();
    await playLine(user.page, ['g2a8', 'c7c8', 'a8c8'], 'white');
    await user.page.locator('.prompt.error', { hasText: 'does not answer Qc8' }).waitFor();
    assert.deepEqual(await lineState(user.page), { plies: 1, input: 'reply' }, 'back to the reply');
    assert.deepEqual(await user.page.$$eval('.line li', (lis) => lis.map((li) => li.textContent)), ['34. Qa8+']);

    await playLine(user.page, ['g2a8', 'c7b8', 'a8b8'], 'white');
    await user.page.locator('.verdict .result', { hasText: 'Solved!' }).waitFor();
    await user.page.locator('.verdict', { hasText: 'Rated attempt: +' }).waitFor();
    assertNoProblems(user);
  });

  it('sends a line of unknown length when the solver submits it, a promotion chosen in the chooser', async () => {
    // 06fWI (veryLong: four moves or more): a pawn race ending with h8=Q, which does not mate.
    const account = await apiUser(app.base());
    const user = await app.open();
    await logIn(user, account);
    await user.page.goto('/puzzles/06fWI');
    await user.page.locator('.prompt', { hasText: 'Play your whole line, then submit it.' }).waitFor();
    const solution = SOLUTIONS.get('06fWI')!;
    await playLine(user.page, solution, 'white');
    await user.page.locator(`.puzzle[data-plies="${solution.length}"][data-phase="solving"]`).waitFor();
    const sans = sansOf((await requestJson(app.base(), 'GET', '/v1/puzzles/06fWI')).body.data.fen, solution);
    assert.deepEqual(await user.page.$$eval('.line li', (lis) => lis.map((li) => li.textContent?.split(' ').pop())), sans, 'the line as played, h8=Q last');
    await user.page.click('button:has-text("Submit my line")');
    await user.page.locator('.verdict .result', { hasText: 'Solved!' }).waitFor();
    assertNoProblems(user);
  });

  it('shows a wrong move as not solved with the solution and the loss; trying again is not rated; the next puzzle is the one the API serves', async () => {
    const base = app.base();
    const account = await apiUser(base);
    const user = await app.open();
    await logIn(user, account);
    // 000rZ: a mate in one; any other legal move that does not mate is wrong at once.
    const puzzle = (await requestJson(base, 'GET', '/v1/puzzles/000rZ')).body.data;
    const [right] = SOLUTIONS.get('000rZ')!;
    const wrong = new Chess(puzzle.fen).moves({ verbose: true }).find((m) => m.from + m.to !== right && !m.san.includes('#') && !m.promotion)!;
    await user.page.goto('/puzzles/000rZ');
    await user.page.locator('.puzzle[data-input="solver"]').waitFor();
    await clickMove(user.page, wrong.from, wrong.to);
    await user.page.locator('.verdict .result', { hasText: 'Not solved.' }).waitFor();
    assert.match((await user.page.locator('.verdict .result').textContent()) ?? '', new RegExp(`You played ${wrong.san.replace('+', '\\+')}; the solution plays ${sansOf(puzzle.fen, [right])[0]}`));
    const me = (await requestJson(base, 'GET', '/v1/users/me', undefined, account.token)).body.data;
    assert.ok(me.puzzle_rating < 1500);
    assert.equal(await user.page.locator('.verdict .loss').textContent(), `−${1500 - me.puzzle_rating}`);
    await user.page.locator('.puzzle[data-shown="0"]').waitFor();

    await user.page.click('button:has-text("Try again")');
    await user.page.locator('.prompt', { hasText: 'not rated' }).waitFor();
    await clickMove(user.page, right.slice(0, 2), right.slice(2, 4));
    await user.page.locator('.verdict .result', { hasText: 'Solved!' }).waitFor();
    await user.page.locator('.verdict', { hasText: 'Not rated: you had tried this puzzle before.' }).waitFor();
    assert.equal((await requestJson(base, 'GET', '/v1/users/me', undefined, account.token)).body.data.puzzle_rating, me.puzzle_rating);

    await user.page.click('button.next');
    await user.page.waitForURL(/\/puzzles\/(?!000rZ)\w+$/);
    const next = (await requestJson(base, 'GET', '/v1/puzzles/next', undefined, account.token)).body.data;
    assert.equal(new URL(user.page.url()).pathname, `/puzzles/${next.id}`);
    await user.page.locator('h1', { hasText: `Puzzle ${next.id}` }).waitFor();
    assertNoProblems(user);
  });

  it("lets anyone look at the day's puzzle but asks them to log in to solve it; the list filters by theme and rating, a page at a time", async () => {
    const visitor = await app.open();
    await visitor.page.goto('/puzzles');
    await visitor.page.locator('.prompt', { hasText: 'Log in or sign up to solve this puzzle' }).waitFor();
    assert.deepEqual(await lineState(visitor.page), { plies: 0, input: 'none' });
    assert.equal(await visitor.page.locator('form.typed').isVisible(), false);

    await visitor.page.selectOption('#pz-theme', 'mateIn2');
    await visitor.page.fill('#pz-min', '1000');
    await visitor.page.fill('#pz-max', '1400');
    await visitor.page.click('form.filters button[type=submit]');
    const api = (await requestJson(app.base(), 'GET', '/v1/puzzles?theme=mateIn2&min_rating=1000&max_rating=1400&sort=rating&limit=20')).body;
    assert.ok(api.pagination.total > 20, 'more than a page');
    await visitor.page.locator('.browse .status', { hasText: `${api.pagination.total} puzzles` }).waitFor();
    const ids = () => visitor.page.$$eval('table.puzzles tbody a', (as) => as.map((a) => a.textContent));
    assert.deepEqual(await ids(), api.data.map((p: { id: string }) => p.id));
    await visitor.page.click('.browse .pager button:has-text("Next")');
    await visitor.page.locator('.browse .pager', { hasText: 'Page 2 of' }).waitFor();
    const second = (await requestJson(app.base(), 'GET', '/v1/puzzles?theme=mateIn2&min_rating=1000&max_rating=1400&sort=rating&limit=20&page=2')).body.data;
    assert.deepEqual(await ids(), second.map((p: { id: string }) => p.id));
    assertNoProblems(visitor);
  });

  it('fits a 375 px phone screen: the whole puzzle board on it, nothing wider than the screen', async () => {
    const phone = await app.open({ viewport: PHONE });
    await logIn(phone, await apiUser(app.base()));
    for (const path of ['/puzzles', '/puzzles/002X3']) {
      await phone.page.goto(path);
      await phone.page.locator('.puzzle[data-input="solver"]').waitFor();
      const box = (await phone.page.locator('.play-board .board-box').boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width && box.width >= 300, `${path}: the board is ${box.width} px wide at x=${box.x}`);
      const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `${path} is ${width} px wide`);
    }
    assertNoProblems(phone);
  });
});

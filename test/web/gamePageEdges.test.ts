import assert from 'node:assert/strict';
import { postData } from '../support/process.ts';
import { apiUser, assertNoProblems, clickMove, gameOverApi, logIn, waitForMoves, webAppSuite, type ApiUser, type AppUser } from '../helpers/webApp.ts';

/**
 * The game page's rough edges of issue 37, each as a person meets it: a click on the board while
 * stepped back, the PGN of a game without moves, a spectator after a rematch, provisional ratings
 * and the profile's rating card. (The takeback's status line is in gamePage.test.ts, with the
 * takeback; the board's fit to the window in boardFit.test.ts.)
 */
describe('the game page\'s rough edges, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();
  const v1 = () => `${app.base()}/v1`;

  async function seated() {
    const game = await gameOverApi(app.base());
    const [w, b] = [await app.open(), await app.open()];
    await logIn(w, game.white);
    await logIn(b, game.black);
    for (const u of [w, b]) {
      await u.page.goto(`/play/${game.id}`);
      await u.page.locator('.controls').waitFor();
    }
    return { ...game, w, b };
  }

  it('goes back to the game as it is when the board is clicked while an earlier position is shown, and the next click plays', async () => {
    const { w, b } = await seated();
    await clickMove(w.page, 'e2', 'e4');
    await waitForMoves(b.page, 1);
    await clickMove(b.page, 'e7', 'e5');
    await waitForMoves(w.page, 2);
    await w.page.click('.stepper button[aria-label="First position"]');
    await w.page.locator('.viewing', { hasText: 'the start' }).waitFor();
    await w.page.locator('.board-box [data-piece="wp"][data-square="e2"]').waitFor();

    await w.page.click('.play-board rect[data-square="g1"]');
    await w.page.locator('.viewing').waitFor({ state: 'hidden' });
    await w.page.locator('.board-box [data-piece="wp"][data-square="e4"]').waitFor();
    assert.equal(await w.page.locator('.moves .ply.current').count(), 0, 'no move marked as the one shown');
    await clickMove(w.page, 'g1', 'f3');
    assert.deepEqual(await waitForMoves(b.page, 3), ['e4', 'e5', 'Nf3']);
    assertNoProblems(w, b);
  });

  it('offers no PGN of a declined challenge (it has no moves), and offers it once a game has a move', async () => {
    const [white, black] = [await apiUser(app.base()), await apiUser(app.base())];
    const challenge = await postData(v1(), '/games', { type: 'challenge', opponent_id: black.id, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white' }, white.token);
    await postData(v1(), `/games/${challenge.id}/decline`, {}, black.token);
    const u = await app.open();
    await logIn(u, white);
    await u.page.goto(`/play/${challenge.id}`);
    await u.page.locator('.end .result', { hasText: 'Game aborted' }).waitFor();
    await u.page.locator('.end a', { hasText: 'Back to the lobby' }).waitFor();
    assert.equal(await u.page.locator('.end button', { hasText: 'Download PGN' }).count(), 0);

    const played = await gameOverApi(app.base());
    await postData(v1(), `/games/${played.id}/moves`, { from: 'e2', to: 'e4' }, played.white.token);
    await postData(v1(), `/games/${played.id}/resign`, {}, played.black.token);
    const v = await app.open();
    await logIn(v, played.white);
    await v.page.goto(`/play/${played.id}`);
    await v.page.locator('.end .result', { hasText: 'White wins by resignation' }).waitFor();
    await v.page.locator('.end button', { hasText: 'Download PGN' }).waitFor();
    assertNoProblems(u, v);
  });

  it('takes every spectator to the rematch once the players start it, a signed-out visitor too (its read is public)', async () => {
    const { id, white, black } = await gameOverApi(app.base());
    const spectator = await app.open();
    await logIn(spectator, await apiUser(app.base()));
    const visitor = await app.open();
    assert.equal(await visitor.page.locator('.site-nav .me').count(), 0, 'the visitor is signed out');
    for (const u of [spectator, visitor]) {
      await u.page.goto(`/play/${id}`);
      await u.page.locator('.player.top .name', { hasText: black.username }).waitFor();
    }
    await postData(v1(), `/games/${id}/moves`, { from: 'e2', to: 'e4' }, white.token);
    for (const u of [spectator, visitor]) await waitForMoves(u.page, 1);
    await postData(v1(), `/games/${id}/resign`, {}, black.token);
    for (const u of [spectator, visitor]) await u.page.locator('.end .result', { hasText: 'White wins by resignation' }).waitFor();

    const rematch = await postData(v1(), `/games/${id}/rematch`, {}, black.token);
    await postData(v1(), `/games/${rematch.id}/accept`, {}, white.token);
    for (const u of [spectator, visitor]) {
      await u.page.waitForURL((url) => url.pathname === `/play/${rematch.id}`);
      // Colours swapped: the former Black has White now.
      await u.page.locator('h1', { hasText: `${black.username} vs ${white.username}` }).waitFor();
    }
    await postData(v1(), `/games/${rematch.id}/moves`, { from: 'd2', to: 'd4' }, black.token);
    for (const u of [spectator, visitor]) assert.deepEqual(await waitForMoves(u.page, 1), ['d4']);
    assert.equal(await visitor.page.locator('.site-nav .me').count(), 0, 'still signed out');
    assertNoProblems(spectator, visitor);
  });

  it('marks provisional ratings with a "?", on the profile and beside the players of a game, and keeps each rating\'s category on one line', async () => {
    const { id, white } = await gameOverApi(app.base());
    const u = await app.open();
    await logIn(u, white);
    await u.page.goto(`/play/${id}`);
    // Two new players: both ratings provisional (Glicko-2 deviation 500, above Lichess's 110).
    await u.page.waitForFunction(() => document.querySelectorAll('.player .rating .provisional').length === 2);
    assert.deepEqual(await u.page.$$eval('.player .rating', (els) => els.map((e) => e.textContent)), ['1500?', '1500?']);

    for (const viewport of [{ width: 1200, height: 900 }, { width: 375, height: 740 }]) {
      await u.page.setViewportSize(viewport);
      await u.page.goto(`/@/${white.username}`);
      await u.page.locator('.ratings li').first().waitFor();
      const cards = await u.page.$$eval('.ratings li', (lis) => lis.map((li) => ({
        rating: li.querySelector('strong')?.textContent,
        category: li.querySelector('.category')?.textContent,
        lines: li.querySelector('.category')?.getClientRects().length,
        overflows: li.scrollWidth > li.clientWidth,
      })));
      assert.deepEqual(cards.map((c) => c.category), ['bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'puzzles']);
      for (const c of cards) {
        assert.equal(c.rating, '1500?', `${c.category}: provisional`);
        assert.equal(c.lines, 1, `at ${viewport.width} px, "${c.category}" stays on one line`);
        assert.equal(c.overflows, false, `at ${viewport.width} px, "${c.category}" fits its card`);
      }
    }
    assertNoProblems(u);
  });
});

/**
 * The first move's deadline (FIRST_MOVE_SECONDS, 15 s in this block so that the abort is seen
 * without a long wait): both players see it count down on the line of the side to move.
 */
describe('the first move\'s countdown, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite({ FIRST_MOVE_SECONDS: '15' });

  const secondsShown = async (u: AppUser, line: 'top' | 'bottom') => {
    const text = (await u.page.locator(`.player.${line} .first-move`).textContent()) ?? '';
    const m = /^(\d+) s to play$/.exec(text);
    assert.ok(m, `"${text}"`);
    return Number(m[1]);
  };

  it('counts the first move\'s seconds down for both players, White\'s then Black\'s, until the game is aborted', async () => {
    // Signed in before the game exists: White's seconds run from the accept.
    const [white, black]: ApiUser[] = [await apiUser(app.base()), await apiUser(app.base())];
    const [w, b] = [await app.open(), await app.open()];
    await logIn(w, white);
    await logIn(b, black);
    const base = `${app.base()}/v1`;
    const game = await postData(base, '/games', { type: 'challenge', opponent_id: black.id, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white' }, white.token);
    await postData(base, `/games/${game.id}/accept`, {}, black.token);
    for (const u of [w, b]) {
      await u.page.goto(`/play/${game.id}`);
      await u.page.locator('.controls').waitFor();
    }

    // White to move: the count is on White's line on both boards (White's at the bottom of White's).
    await w.page.locator('.player.bottom .first-move').waitFor();
    await b.page.locator('.player.top .first-move').waitFor();
    assert.equal(await w.page.locator('.player.top .first-move').isVisible(), false);
    const first = await secondsShown(w, 'bottom');
    assert.ok(first >= 1 && first <= 15, `${first} s`);
    await w.page.waitForFunction((n) => {
      const m = /^(\d+) s/.exec(document.querySelector('.player.bottom .first-move')?.textContent ?? '');
      return !!m && Number(m[1]) < n;
    }, first);
    await w.page.locator('.hint', { hasText: /You have \d+ seconds? to play the first move/ }).waitFor();
    await b.page.locator('.hint', { hasText: /White has \d+ seconds? to play the first move/ }).waitFor();

    // White moves: now Black's seconds run, on Black's line.
    await clickMove(w.page, 'e2', 'e4');
    await waitForMoves(b.page, 1);
    await b.page.locator('.player.bottom .first-move').waitFor();
    await w.page.locator('.player.top .first-move').waitFor();
    await w.page.locator('.player.bottom .first-move').waitFor({ state: 'hidden' });
    assert.ok((await secondsShown(b, 'bottom')) <= 15);

    // Black does not move: the game is aborted when the count ends, and the count goes.
    for (const u of [w, b]) {
      await u.page.locator('.end .result', { hasText: 'Game aborted: no first move' }).waitFor({ timeout: 25_000 });
      assert.equal(await u.page.locator('.first-move:visible').count(), 0);
    }
    assertNoProblems(w, b);
  });
});

import assert from 'node:assert/strict';
import { requestJson } from '../support/process.ts';
import {
  assertNoProblems,
  clickMove,
  gameOverApi,
  listedMoves,
  logIn,
  PHONE,
  relay,
  screenshot,
  signUp,
  waitForMoves,
  webAppSuite,
  type AppUser,
} from '../helpers/webApp.ts';

/**
 * The web app as people use it, in a real Chromium against `npm start`'s process: signing up,
 * challenging, accepting, playing by clicking squares, watching, reloading, promoting, typing
 * moves, a phone's screen.
 */
describe('the web app, played in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();
  const open = app.open;
  const service = { get base() { return app.base(); } };

  it('lets two people sign up, challenge by username, accept, and play to checkmate by clicking squares while a third watches; a reload mid-game resumes', async () => {
    const [alice, bob, carol] = [await open(), await open(), await open()];
    await signUp(alice);
    await signUp(bob);

    // Alice challenges Bob by name from the lobby, and waits on the game's page.
    await alice.page.goto('/');
    await alice.page.fill('#challenge-username', bob.username);
    await alice.page.fill('#challenge-minutes', '5');
    await alice.page.fill('#challenge-increment', '3');
    await alice.page.selectOption('#challenge-color', 'white');
    await alice.page.click('form.time-form:has(#challenge-username) button[type=submit]');
    await alice.page.waitForURL(/\/play\/[0-9a-f-]{36}$/);
    const gameId = alice.page.url().split('/').pop()!;
    await alice.page.locator('.pending', { hasText: `Waiting for ${bob.username}` }).waitFor();

    // Bob sees it in his lobby, live, and accepts.
    await bob.page.goto('/');
    const incoming = bob.page.locator('li.challenge.incoming', { hasText: alice.username });
    await incoming.waitFor();
    await incoming.locator('button', { hasText: 'Accept' }).click();
    await bob.page.waitForURL(`**/play/${gameId}`);

    // Carol, not signed in, watches.
    await carol.page.goto(`/play/${gameId}`);
    await carol.page.locator('h1', { hasText: `${alice.username} vs ${bob.username}` }).waitFor();

    for (const u of [alice, bob]) await u.page.locator('.controls button', { hasText: 'Resign' }).waitFor();
    assert.equal(await carol.page.locator('.controls').isVisible(), false, 'a spectator gets no controls');

    await clickMove(alice.page, 'f2', 'f3');
    await waitForMoves(bob.page, 1);
    await clickMove(bob.page, 'e7', 'e5');
    assert.deepEqual(await waitForMoves(carol.page, 2), ['f3', 'e5']);

    // Black's first move starts the clocks: White's runs, and counts down on every page.
    const whiteClock = alice.page.locator('.player.bottom .clock');
    await alice.page.waitForFunction(() => document.querySelector('.player.bottom .clock')?.classList.contains('running'));
    assert.match((await whiteClock.textContent()) ?? '', /^[45]:[0-5]\d$/);
    assert.equal(await carol.page.locator('.player.bottom .clock.running').count(), 1, "the spectator sees White's clock running");
    await screenshot(alice.page, 'board');

    // Bob reloads mid-game: the same position comes back and he plays on from it.
    await bob.page.reload();
    assert.deepEqual(await waitForMoves(bob.page, 2), ['f3', 'e5']);
    await clickMove(alice.page, 'g2', 'g4');
    await waitForMoves(bob.page, 3);
    await bob.page.locator('.controls button', { hasText: 'Resign' }).waitFor();
    await clickMove(bob.page, 'd8', 'h4');

    // Checkmate: every page shows how it ended, the players their rating change.
    for (const u of [alice, bob, carol]) {
      await u.page.locator('.end .result', { hasText: 'Black wins by checkmate' }).waitFor();
      assert.deepEqual(await listedMoves(u.page), ['f3', 'e5', 'g4', 'Qh4#']);
    }
    const aliceLoss = await alice.page.locator('.player .loss').textContent();
    const bobGain = await bob.page.locator('.player .gain').textContent();
    assert.match(aliceLoss ?? '', /^−\d+$/);
    assert.match(bobGain ?? '', /^\+\d+$/);
    assert.match((await alice.page.locator('.end .result').textContent()) ?? '', /0-1/);

    // What the pages showed is what the API says.
    const detail = await requestJson(service.base, 'GET', `/v1/games/${gameId}`, undefined, await tokenOf(alice));
    assert.equal(detail.body.data.status, 'finished');
    assert.equal(detail.body.data.termination, 'checkmate');
    assert.equal(`−${-detail.body.data.rating_changes.white}`, aliceLoss);
    assertNoProblems(alice, bob, carol);
  });

  it('promotes through the chooser (the pawn dragged to the last rank): the piece picked is the piece the server records', async () => {
    const game = await gameOverApi(service.base);
    // 1. h4 g5 2. hxg5 h6 3. gxh6 Bg7 4. hxg7 Nf6: White's pawn on g7 takes the rook on h8.
    const moves = [['h2', 'h4'], ['g7', 'g5'], ['h4', 'g5'], ['h7', 'h6'], ['g5', 'h6'], ['f8', 'g7'], ['h6', 'g7'], ['g8', 'f6']];
    for (const [i, [from, to]] of moves.entries()) {
      const token = i % 2 === 0 ? game.white.token : game.black.token;
      const res = await requestJson(service.base, 'POST', `/v1/games/${game.id}/moves`, { from, to }, token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const white = await open();
    await logIn(white, game.white);
    await white.page.goto(`/play/${game.id}`);
    await waitForMoves(white.page, 8);
    await white.page.locator('.controls').waitFor();
    // Dragged this time (the piece that follows the pointer is styled without an inline style attribute).
    await white.page.locator('.play-board rect[data-square="g7"]').dragTo(white.page.locator('.play-board rect[data-square="h8"]'));
    // The chooser offers four pieces; a knight is picked.
    await white.page.locator('.promotion-dialog-group [data-piece="wn"]').first().click();
    const listed = await waitForMoves(white.page, 9);
    assert.equal(listed[8], 'gxh8=N');
    const detail = await requestJson(service.base, 'GET', `/v1/games/${game.id}`, undefined, game.black.token);
    assert.equal(detail.body.data.fen.split('/')[0].at(-1), 'N', 'a white knight stands on h8');
    assertNoProblems(white);
  });

  it('takes typed moves in SAN and in UCI, and says why a typed move is refused', async () => {
    const game = await gameOverApi(service.base);
    const [white, black] = [await open(), await open()];
    await logIn(white, game.white);
    await logIn(black, game.black);
    await white.page.goto(`/play/${game.id}`);
    await black.page.goto(`/play/${game.id}`);
    const type = async (u: AppUser, text: string) => {
      await u.page.locator('form.typed').waitFor();
      await u.page.fill('#typed-move', text);
      await u.page.press('#typed-move', 'Enter');
    };
    await type(white, 'Ke2');
    await white.page.locator('.status', { hasText: 'Ke2 is not a legal move here.' }).waitFor();
    await type(white, 'e4');
    await waitForMoves(black.page, 1);
    await type(black, 'e7e5');
    await waitForMoves(white.page, 2);
    await type(white, 'nf3');
    assert.deepEqual(await waitForMoves(black.page, 3), ['e4', 'e5', 'Nf3']);
    assertNoProblems(white, black);
  });

  it('comes back after a dropped connection: the room is rejoined and the player moves on', async () => {
    const game = await gameOverApi(service.base);
    // Black reaches the service through a relay the test can cut, as a network would.
    const line = await relay(Number(new URL(service.base).port));
    try {
      const white = await open();
      const black = await open({ base: line.base });
      await logIn(white, game.white);
      await logIn(black, game.black);
      await white.page.goto(`/play/${game.id}`);
      await black.page.goto(`/play/${game.id}`);
      await white.page.locator('.controls').waitFor();
      await black.page.locator('.controls').waitFor();
      await clickMove(white.page, 'e2', 'e4');
      await waitForMoves(black.page, 1);

      assert.ok(line.cut() >= 2, 'the room and the lobby were connected');
      await black.page.locator('.status', { hasText: 'Reconnected.' }).waitFor();
      await clickMove(black.page, 'e7', 'e5');
      assert.deepEqual(await waitForMoves(white.page, 2), ['e4', 'e5']);
      assertNoProblems(white, black);
    } finally {
      await line.close();
    }
  });

  it('offers a draw that the opponent sees and accepts: both boards end in a draw by agreement', async () => {
    const game = await gameOverApi(service.base);
    const [white, black] = [await open(), await open()];
    await logIn(white, game.white);
    await logIn(black, game.black);
    await white.page.goto(`/play/${game.id}`);
    await black.page.goto(`/play/${game.id}`);
    await white.page.locator('.controls').waitFor();
    await clickMove(white.page, 'e2', 'e4');
    await waitForMoves(black.page, 1);
    await white.page.click('.controls button:has-text("Offer draw")');
    await white.page.locator('.controls button:has-text("Draw offered")').waitFor();
    await black.page.locator('.draw-offer', { hasText: 'Your opponent offers a draw' }).waitFor();
    await black.page.click('.draw-offer button:has-text("Accept draw")');
    for (const u of [white, black]) await u.page.locator('.end .result', { hasText: 'Draw by agreement' }).waitFor();
    assert.equal(await white.page.locator('.controls').isVisible(), false, 'no controls once the game is over');
    assertNoProblems(white, black);
  });

  it('resigns only on a second click, and the opponent wins', async () => {
    const game = await gameOverApi(service.base);
    const [white, black] = [await open(), await open()];
    await logIn(white, game.white);
    await logIn(black, game.black);
    await white.page.goto(`/play/${game.id}`);
    await black.page.goto(`/play/${game.id}`);
    await white.page.locator('.controls').waitFor();
    const resign = white.page.locator('.controls button.danger');
    await resign.click();
    assert.equal(await resign.textContent(), 'Confirm resignation');
    assert.equal((await requestJson(service.base, 'GET', `/v1/games/${game.id}`, undefined, game.white.token)).body.data.status, 'active', 'one click resigns nothing');
    await resign.click();
    for (const u of [white, black]) await u.page.locator('.end .result', { hasText: 'Black wins by resignation' }).waitFor();
    assertNoProblems(white, black);
  });

  it('fits a 375 px phone screen: nothing wider than the screen, the whole board on it, moves by tapping squares', async () => {
    const game = await gameOverApi(service.base);
    const phone = await open({ viewport: PHONE });
    await logIn(phone, game.white);
    for (const path of ['/', '/games', '/friends', '/clubs']) {
      await phone.page.goto(path);
      await phone.page.locator('h1').waitFor();
      const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `${path} is ${width} px wide`);
    }
    await phone.page.goto(`/play/${game.id}`);
    await phone.page.locator('.controls').waitFor();
    const box = (await phone.page.locator('.play-board .board-box').boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width && box.width >= 300, `the board is ${box.width} px wide at x=${box.x}`);
    assert.ok(await phone.page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width);
    await clickMove(phone.page, 'e2', 'e4');
    assert.deepEqual(await waitForMoves(phone.page, 1), ['e4']);
    await screenshot(phone.page, 'phone');
    assertNoProblems(phone);
  });
});

async function tokenOf(user: AppUser): Promise<string> {
  return user.page.evaluate(() => JSON.parse(localStorage.getItem('chess.session') ?? '{}').accessToken);
}

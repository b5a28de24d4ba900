import assert from 'node:assert/strict';
import { requestJson } from '../support/process.ts';
import { apiUser, assertNoProblems, clickMove, gameOverApi, listedMoves, logIn, screenshot, waitForMoves, webAppSuite, type AppUser } from '../helpers/webApp.ts';

/**
 * The game page's rematch, abort, claim, chat and takeback (DESIGN 2.11, "In the web app"), as two
 * players and a spectator use them, each in a browser context of their own. CLAIM_SECONDS is 3 s
 * in this block's service, so a claim is seen counting down and then made without a long wait.
 */
describe('the game page: rematch, abort, claim, chat and takeback, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite({ CLAIM_SECONDS: '3' });

  /** Two players signed in on the board of a new game between them (White moves first). */
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

  async function resign(u: AppUser): Promise<void> {
    await u.page.click('.controls button:has-text("Resign")');
    await u.page.click('.controls button:has-text("Confirm resignation")');
  }

  it('offers a rematch after the end; the opponent accepts it and both land on the new board, colours swapped', async () => {
    const { id, white, black, w, b } = await seated();
    await clickMove(w.page, 'e2', 'e4');
    await waitForMoves(b.page, 1);
    await resign(b);
    for (const u of [w, b]) await u.page.locator('.end .result', { hasText: 'White wins by resignation' }).waitFor();

    await b.page.click('.rematch button:has-text("Rematch")');
    await b.page.locator('.rematch', { hasText: `Rematch offered. Waiting for ${white.username}` }).waitFor();
    await w.page.locator('.rematch', { hasText: `${black.username} wants a rematch.` }).waitFor();
    await w.page.click('.rematch button:has-text("Accept rematch")');

    await w.page.waitForURL((url) => url.pathname.startsWith('/play/') && !url.pathname.endsWith(id));
    const rematchPath = new URL(w.page.url()).pathname;
    await b.page.waitForURL((url) => url.pathname === rematchPath);
    for (const u of [w, b]) {
      await u.page.locator('h1', { hasText: `${black.username} vs ${white.username}` }).waitFor();
      await u.page.locator('.controls button:has-text("Resign")').waitFor();
    }
    // The new game's first move is the former Black's, now White.
    await clickMove(b.page, 'd2', 'd4');
    assert.deepEqual(await waitForMoves(w.page, 1), ['d4']);
    const old = await requestJson(app.base(), 'GET', `/v1/games/${id}`, undefined, white.token);
    assert.equal(old.body.data.rematch.status, 'accepted');
    assert.equal(`/play/${old.body.data.rematch.game_id}`, rematchPath);
    assertNoProblems(w, b);
  });

  it('declines a rematch: the asker is told on the board, and the finished game says so after a reload', async () => {
    const { id, white, w, b } = await seated();
    await resign(w);
    await w.page.click('.rematch button:has-text("Rematch")');
    await b.page.click('.rematch button:has-text("Decline")');
    await b.page.locator('.rematch', { hasText: 'The rematch was declined.' }).waitFor();
    await w.page.locator('.rematch', { hasText: 'The rematch was declined.' }).waitFor();
    await w.page.reload();
    await w.page.locator('.rematch', { hasText: 'The rematch was declined.' }).waitFor();
    const detail = await requestJson(app.base(), 'GET', `/v1/games/${id}`, undefined, white.token);
    assert.equal(detail.body.data.rematch.status, 'declined');
    assertNoProblems(w, b);
  });

  it('aborts before both first moves (the button goes once both have moved)', async () => {
    const first = await seated();
    await clickMove(first.w.page, 'e2', 'e4');
    await waitForMoves(first.b.page, 1);
    // Black has not moved: still abortable, by either side.
    await first.b.page.click('.controls button:has-text("Abort game")');
    for (const u of [first.w, first.b]) {
      await u.page.locator('.end .result', { hasText: 'Game aborted' }).waitFor();
      assert.doesNotMatch((await u.page.locator('.end .result').textContent()) ?? '', /aborted:/);
    }
    const detail = await requestJson(app.base(), 'GET', `/v1/games/${first.id}`, undefined, first.white.token);
    assert.equal(detail.body.data.status, 'abandoned');
    assert.equal(detail.body.data.abort_reason, 'aborted');

    const second = await seated();
    await second.w.page.locator('.controls button:has-text("Abort game")').waitFor();
    await clickMove(second.w.page, 'e2', 'e4');
    await waitForMoves(second.b.page, 1);
    await clickMove(second.b.page, 'e7', 'e5');
    await waitForMoves(second.w.page, 2);
    for (const u of [second.w, second.b]) await u.page.locator('.controls button:has-text("Abort game")').waitFor({ state: 'hidden' });
    assertNoProblems(first.w, first.b, second.w, second.b);
  });

  it('chats both ways between the players, keeps their chat from a spectator, and says a refused message in plain words', async () => {
    const { id, w, b } = await seated();
    const spectator = await app.open();
    const watcher = await apiUser(app.base());
    await logIn(spectator, watcher);
    await spectator.page.goto(`/play/${id}`);
    await spectator.page.locator('.chat').waitFor();
    assert.equal(await spectator.page.locator('.chat-tabs button[data-room="player"]').count(), 0, 'no player room for a spectator');

    await w.page.fill('.chat-form input', 'good luck');
    await w.page.click('.chat-form button');
    await b.page.locator('.chat-lines li', { hasText: 'good luck' }).waitFor();
    await b.page.fill('.chat-form input', 'you too');
    await b.page.press('.chat-form input', 'Enter');
    await w.page.locator('.chat-lines li', { hasText: 'you too' }).waitFor();

    await spectator.page.fill('.chat-form input', 'nice game so far');
    await spectator.page.click('.chat-form button');
    await spectator.page.locator('.chat-lines li', { hasText: 'nice game so far' }).waitFor();
    // During the game the players see only their own room.
    assert.equal(await w.page.locator('.chat-tabs button[data-room="spectator"]').count(), 0);
    assert.equal(await w.page.locator('.chat-lines li', { hasText: 'nice game so far' }).count(), 0);

    // A zero-width character is refused; the player is told why, beside the field.
    await w.page.fill('.chat-form input', 'hi\u200bthere');
    await w.page.click('.chat-form button');
    await w.page.locator('.chat .form-error', { hasText: 'A message is 1 to 140 characters on one line, without special characters.' }).waitFor();

    // A move by each side, then the end: the spectator still never saw the players' chat.
    await clickMove(w.page, 'e2', 'e4');
    await waitForMoves(spectator.page, 1);
    assert.deepEqual(await spectator.page.$$eval('.chat-lines li', (lis) => lis.map((li) => li.textContent)), [`${watcher.username} nice game so far`]);

    // After the end the players see the spectators' room too, and may write in it.
    await resign(b);
    await w.page.locator('.chat-tabs button[data-room="spectator"]').click();
    await w.page.locator('.chat-lines li', { hasText: 'nice game so far' }).waitFor();
    await w.page.fill('.chat-form input', 'thanks for watching');
    await w.page.click('.chat-form button');
    await spectator.page.locator('.chat-lines li', { hasText: 'thanks for watching' }).waitFor();
    await screenshot(w.page, 'game-chat');
    assert.equal(await spectator.page.locator('.chat-lines li', { hasText: 'good luck' }).count(), 0);
    assertNoProblems(w, b, spectator);
  });

  it('mutes the opponent: their messages leave this page, and come back when unmuted', async () => {
    const { w, b } = await seated();
    await b.page.fill('.chat-form input', 'hello');
    await b.page.click('.chat-form button');
    await w.page.locator('.chat-lines li', { hasText: 'hello' }).waitFor();
    await w.page.check('.chat-mute input');
    await w.page.locator('.chat-lines li', { hasText: 'hello' }).waitFor({ state: 'detached' });
    await b.page.fill('.chat-form input', 'are you there');
    await b.page.click('.chat-form button');
    await b.page.locator('.chat-lines li', { hasText: 'are you there' }).waitFor();
    // What the opponent says while muted is not sent to this page either (read again, still absent).
    await w.page.reload();
    await w.page.locator('.chat-lines li.empty').waitFor();
    assert.equal(await w.page.isChecked('.chat-mute input'), true, 'the switch is remembered on this device');
    await w.page.uncheck('.chat-mute input');
    await w.page.locator('.chat-lines li', { hasText: 'are you there' }).waitFor();
    assertNoProblems(w, b);
  });

  it('joins the room again with a fresh token before the one it joined with expires, the seat never empty', async () => {
    const game = await gameOverApi(app.base());
    const [w, b] = [await app.open(), await app.open()];
    // White's page runs on a clock the test moves: to just before its access token's hour ends.
    await w.page.clock.install();
    await logIn(w, game.white);
    await logIn(b, game.black);
    const roomSockets: { url: string; closed: boolean }[] = [];
    let rotated!: () => void;
    const rotation = new Promise<void>((resolve) => (rotated = resolve));
    const check = () => roomSockets.length === 2 && roomSockets[0].closed && rotated();
    w.page.on('websocket', (ws) => {
      if (!ws.url().includes(game.id)) return; // the room's socket names the room; the channel's does not
      const entry = { url: ws.url(), closed: false };
      roomSockets.push(entry);
      ws.on('close', () => {
        entry.closed = true;
        check();
      });
      check();
    });
    for (const u of [w, b]) {
      await u.page.goto(`/play/${game.id}`);
      await u.page.locator('.controls').waitFor();
    }
    // Black's page notes any moment White's seat shows as away.
    await b.page.evaluate(() => {
      const w = window as unknown as { sawAway: boolean };
      w.sawAway = false;
      new MutationObserver(() => (w.sawAway ||= !!document.querySelector('.player .away'))).observe(document.body, { subtree: true, childList: true });
    });
    assert.equal(roomSockets.length, 1);
    await w.page.clock.fastForward('59:20');
    await Promise.race([rotation, new Promise((_, reject) => setTimeout(() => reject(new Error(`no rotation: ${JSON.stringify(roomSockets)}`)), 20_000))]);
    assert.equal(roomSockets.length, 2, 'a second room socket');
    assert.equal(roomSockets[0].closed, true, 'the first one left');
    await clickMove(w.page, 'e2', 'e4');
    assert.deepEqual(await waitForMoves(b.page, 1), ['e4'], 'moves go through the new socket');
    assert.equal(await b.page.evaluate(() => (window as unknown as { sawAway: boolean }).sawAway), false, 'White was never away');
    assertNoProblems(w, b);
  });

  it('counts down while the opponent is gone, then claims victory after their tab closed', async () => {
    const { id, white, w, b } = await seated();
    const spectator = await app.open({ path: `/play/${id}` });
    await clickMove(w.page, 'e2', 'e4');
    await waitForMoves(b.page, 1);
    await clickMove(b.page, 'e7', 'e5');
    await waitForMoves(spectator.page, 2);
    assert.equal(await spectator.page.locator('.player .away').count(), 0);
    await b.context.close();
    // The spectator follows the channel: its `opponent_gone` marks Black away.
    await spectator.page.locator('.player.top .away').waitFor();

    await w.page.locator('.claim', { hasText: /You can claim victory in \d seconds?/ }).waitFor();
    // Black's clock stands still (White is to move): the claim must leave it as it is.
    const blackClock = await w.page.locator('.player.top .clock').textContent();
    assert.notEqual(blackClock, '0:00');
    await w.page.click('.claim button:has-text("Claim victory")');
    await w.page.locator('.end .result', { hasText: 'White wins: Black left the game' }).waitFor();
    const detail = await requestJson(app.base(), 'GET', `/v1/games/${id}`, undefined, white.token);
    assert.equal(detail.body.data.winner, 'white');
    assert.equal(detail.body.data.termination, 'timeout', 'the API says timeout');
    assert.ok(detail.body.data.black_time_remaining > 0 && detail.body.data.white_time_remaining > 0, 'both clocks kept their time');
    await spectator.page.locator('.end .result', { hasText: 'White wins: Black left the game' }).waitFor();
    assert.equal(await w.page.locator('.player.top .clock').textContent(), blackClock);
    // A visitor who opens the finished game reads the same.
    const late = await app.open({ path: `/play/${id}` });
    await late.page.locator('.end .result', { hasText: 'White wins: Black left the game' }).waitFor();
    assert.equal(await late.page.locator('.player.top .clock').textContent(), blackClock);
    assertNoProblems(w, spectator);
  });

  it('takes a move back: offered by one player, accepted by the other, seen on both boards and a spectator\'s', async () => {
    const { id, w, b } = await seated();
    const spectator = await app.open({ path: `/play/${id}` });
    for (const [u, from, to, n] of [[w, 'e2', 'e4', 1], [b, 'e7', 'e5', 2], [w, 'g1', 'f3', 3]] as const) {
      await clickMove(u.page, from, to);
      await waitForMoves(u === w ? b.page : w.page, n);
    }
    await waitForMoves(spectator.page, 3);
    await w.page.click('.controls button:has-text("Takeback")');
    await w.page.locator('.controls button:has-text("Takeback proposed")').waitFor();
    await b.page.locator('.takeback-offer', { hasText: 'Your opponent asks to take back their last move.' }).waitFor();
    await b.page.click('.takeback-offer button:has-text("Accept takeback")');

    for (const u of [w, b, spectator]) {
      await u.page.waitForFunction(() => document.querySelectorAll('.moves li span').length === 2);
      assert.deepEqual(await listedMoves(u.page), ['e4', 'e5']);
    }
    // Every status line says what happened, and none names the move taken back (a spectator's said "White played Nf3.").
    for (const u of [w, b, spectator]) {
      await u.page.locator('.status', { hasText: 'Takeback: the last move was taken back. The game goes on from 1… e5.' }).waitFor();
    }
    // White moves again from the position the takeback left.
    await clickMove(w.page, 'b1', 'c3');
    assert.deepEqual(await waitForMoves(b.page, 3), ['e4', 'e5', 'Nc3']);
    assert.deepEqual(await waitForMoves(spectator.page, 3), ['e4', 'e5', 'Nc3']);
    assertNoProblems(w, b, spectator);
  });
});

describe('correspondence in the web app, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it('challenges with days per move; each side finds the game in the lobby\'s "Your turn" list when it is theirs', async () => {
    const [white, black] = [await apiUser(app.base()), await apiUser(app.base())];
    const [w, b] = [await app.open(), await app.open()];
    await logIn(w, white);
    await logIn(b, black);

    await w.page.fill('#challenge-username', black.username);
    await w.page.selectOption('#challenge-kind', 'correspondence');
    assert.equal(await w.page.locator('#challenge-minutes').isVisible(), false, 'no clock fields for correspondence');
    await w.page.selectOption('#challenge-days', '2');
    await w.page.selectOption('#challenge-color', 'white');
    await w.page.click('form.time-form button:has-text("Challenge")');
    await w.page.waitForURL(/\/play\/[0-9a-f-]{36}$/);
    const id = new URL(w.page.url()).pathname.split('/').pop()!;
    await w.page.locator('.pending', { hasText: '2 days/move rated correspondence' }).waitFor();

    await b.page.goto('/');
    const incoming = b.page.locator('li.challenge.incoming', { hasText: white.username });
    await incoming.locator('button', { hasText: 'Accept' }).click();
    await b.page.waitForURL(`**/play/${id}`);
    await w.page.locator('.controls').waitFor();
    await w.page.locator('.info', { hasText: '2 days/move rated correspondence' }).waitFor();
    assert.match((await w.page.locator('.player.bottom .clock').textContent()) ?? '', /^(2d 00h|1d 23h)$/);
    assert.equal(await w.page.locator('.hint').isVisible(), false, 'no first-move deadline to tell');
    assert.equal(await w.page.locator('.first-move:visible').count(), 0, 'and no first-move count');

    // White's turn: it is in White's list, not in Black's.
    await w.page.goto('/');
    await w.page.locator('.my-turn li a', { hasText: `${white.username} vs ${black.username}` }).waitFor();
    await b.page.goto('/');
    await b.page.locator('.current-games li a', { hasText: `${white.username} vs ${black.username}` }).waitFor();
    assert.equal(await b.page.locator('.my-turn').isVisible(), false, 'no card without a game waiting');

    await w.page.click('.my-turn li a');
    await w.page.waitForURL(`**/play/${id}`);
    await w.page.locator('.controls').waitFor();
    await clickMove(w.page, 'e2', 'e4');
    await waitForMoves(w.page, 1);

    await b.page.reload();
    const entry = b.page.locator('.my-turn li', { hasText: `${white.username} vs ${black.username}` });
    await entry.waitFor();
    assert.match((await entry.textContent()) ?? '', / · 2 days\/move correspondence · (1 day 23 h|2 days 0 h) left$/);
    await w.page.goto('/');
    await w.page.locator('.current-games li a', { hasText: `${white.username} vs ${black.username}` }).waitFor();
    assert.equal(await w.page.locator('.my-turn').isVisible(), false);
    assertNoProblems(w, b);
  });
});

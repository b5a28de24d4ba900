import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { postData, requestJson } from '../support/process.ts';
import { apiUser, assertNoProblems, clickMove, gameOverApi, logIn, PHONE, waitForMoves, webAppSuite } from '../helpers/webApp.ts';

/** What a newcomer tried first (issue 27): as a person uses the app, in a real Chromium. */
describe('the web app as a newcomer finds it, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it('fits the navigation in one line of a phone, whatever the name, and opens its links from a menu', async () => {
    const page = await app.open({ viewport: PHONE });
    // The widest name there is (20 characters, W and M): the brand beside it once broke after
    // its knight, making the header two lines, for names of wide letters only.
    await logIn(page, await apiUser(app.base(), [...randomBytes(20)].map((b) => (b % 2 ? 'W' : 'M')).join('')));
    // The header is drawn again as the signed-in session loads: measure once it has settled (a
    // header that never fits one line fails here, naming its height).
    const height = () => page.page.evaluate(() => document.querySelector('.site-header')!.getBoundingClientRect().height);
    await page.page
      .waitForFunction(() => document.querySelector('.site-header')!.getBoundingClientRect().height < 60, null, { timeout: 5000 })
      .catch(async () => assert.fail(`one line: ${await height()}px`));
    assert.equal(await page.page.locator('.site-nav a:has-text("Puzzles")').isVisible(), false);
    await page.page.click('.menu-toggle');
    await page.page.click('.site-nav a:has-text("Puzzles")');
    await page.page.waitForURL(/\/puzzles$/);
    assert.equal(await page.page.locator('.site-nav a:has-text("Puzzles")').isVisible(), false, 'the menu closes on the way');
    assertNoProblems(page);
  });

  it("says beside the challenge form, in plain words, that one cannot challenge oneself; my games leave out a declined challenge", async () => {
    const base = app.base();
    const [me, other] = [await apiUser(base), await apiUser(base)];
    const declined = await postData(`${base}/v1`, '/games', { type: 'challenge', opponent_id: other.id, time_control: 'blitz', initial_time: 180, increment: 0 }, me.token);
    await postData(`${base}/v1`, `/games/${declined.id}/decline`, {}, other.token);
    const page = await app.open({ viewport: PHONE });
    await logIn(page, me);
    await page.page.fill('#challenge-username', me.username);
    await page.page.click('form.time-form button:has-text("Challenge")');
    const error = page.page.locator('form.time-form .form-error:not([hidden])');
    await error.waitFor();
    assert.equal(await error.textContent(), 'You cannot challenge yourself. Pick another player.');
    assert.ok(await error.isVisible());
    const box = (await error.boundingBox())!;
    // Scrolled into view to the nearest whole pixel: a fraction of one may hang below the edge.
    assert.ok(box.y >= 0 && box.y + box.height <= PHONE.height + 1, `in view: ${box.y}`);

    await page.page.goto('/games');
    await page.page.locator('p.empty', { hasText: 'No finished games yet' }).waitFor();
    assert.equal(await page.page.locator('table.games').count(), 0, 'a declined challenge is no game');
    assertNoProblems(page);
  });

  it('logs in by username, offers "Forgot your password?", and answers an unknown address with the app\'s own page', async () => {
    const account = await apiUser(app.base());
    const page = await app.open();
    await page.page.goto('/login');
    await page.page.click('a:has-text("Forgot your password?")');
    await page.page.waitForURL(/\/forgot-password$/);
    await page.page.fill('#f-email', account.email);
    await page.page.click('button:has-text("Mail me a link")');
    await page.page.locator('.status', { hasText: 'a link is on its way' }).waitFor();

    await page.page.goto('/login');
    await page.page.fill('#f-email', account.username);
    await page.page.fill('#f-password', account.password);
    await page.page.click('form.auth button[type="submit"]');
    await page.page.locator('.site-nav .me', { hasText: account.username }).waitFor();

    const res = await page.page.goto('/profile');
    assert.equal(res?.status(), 404);
    await page.page.locator('h1', { hasText: 'Nothing here' }).waitFor();
    await page.page.locator('.site-nav .brand').waitFor();
    assertNoProblems(page);
  });

  it("opens a player's profile from their name, sends a friend request the other sees at once, and the acceptance shows live", async () => {
    const base = app.base();
    const [alice, bob] = [await app.open(), await app.open()];
    const [a, b] = [await apiUser(base), await apiUser(base)];
    await logIn(alice, a);
    await logIn(bob, b);
    await bob.page.goto('/friends');
    await alice.page.goto(`/@/${b.username}`);
    await alice.page.locator('h1', { hasText: b.username }).waitFor();
    assert.match((await alice.page.locator('ul.ratings').textContent()) ?? '', /1500\?bullet.*1500\?blitz.*1500\?rapid.*1500\?classical/, "a new player's ratings, provisional");
    await alice.page.click('button:has-text("Add friend")');
    await alice.page.locator('.actions', { hasText: 'Friend request sent' }).waitFor();

    // Bob's page shows it without a reload, and a notice says so.
    await bob.page.locator('.notice', { hasText: `${a.username} wants to be your friend.` }).waitFor();
    const request = bob.page.locator('.people li', { hasText: a.username });
    await request.locator('button:has-text("Accept")').click();
    await alice.page.locator('.notice', { hasText: `${b.username} accepted your friend request.` }).waitFor();
    await alice.page.goto('/friends');
    await alice.page.locator('.people li', { hasText: b.username }).locator('a.user-link').click();
    await alice.page.waitForURL(new RegExp(`/@/${b.username}$`));
    await alice.page.locator('.badge', { hasText: 'Friend' }).waitFor();
    assertNoProblems(alice, bob);
  });

  it('changes the password in the settings (other sessions end), switches sounds on, and offers no Join for a club by invitation', async () => {
    const base = app.base();
    const account = await apiUser(base);
    const owner = await apiUser(base);
    const club = await postData(`${base}/v1`, '/clubs', { name: `Closed ${owner.username.slice(-6)}`, open: false }, owner.token);
    const page = await app.open();
    await logIn(page, account);
    await page.page.goto(`/clubs/${club.id}`);
    await page.page.locator('.muted', { hasText: 'By invitation only' }).waitFor();
    assert.equal(await page.page.locator('button:has-text("Join")').count(), 0);

    await page.page.click('.site-nav a:has-text("Settings")');
    await page.page.fill('#password-current_password', 'wrong-password-1');
    await page.page.fill('#password-new_password', 'changed-pass-2');
    await page.page.click('button:has-text("Change password")');
    await page.page.locator('form .form-error', { hasText: 'The password is wrong.' }).waitFor();
    await page.page.fill('#password-current_password', account.password);
    await page.page.fill('#password-new_password', 'changed-pass-2');
    await page.page.click('button:has-text("Change password")');
    await page.page.locator('.status', { hasText: 'Your password is changed' }).waitFor();
    assert.equal((await requestJson(base, 'GET', '/v1/users/me', undefined, account.token)).status, 401, 'the other session ended');
    await page.page.reload();
    await page.page.locator('h1', { hasText: 'Settings' }).waitFor();

    assert.equal(await page.page.isChecked('#sound'), false, 'off by default');
    await page.page.check('#sound');
    assert.equal(await page.page.evaluate(() => localStorage.getItem('chess.sound')), 'on');
    assertNoProblems(page);
  });

  it('changes the email in the settings only once the new address is confirmed, and says so', async () => {
    const base = app.base();
    const account = await apiUser(base);
    const page = await app.open();
    await logIn(page, account);
    await page.page.click('.site-nav a:has-text("Settings")');
    await page.page.locator('h1', { hasText: 'Settings' }).waitFor();
    const fresh = `moved.${randomBytes(4).toString('hex')}@example.com`;
    await page.page.fill('#email-email', fresh);
    await page.page.fill('#email-password', account.password);
    await page.page.click('button:has-text("Change email")');
    await page.page
      .locator('.status', { hasText: `We mailed a link to ${fresh}: open it to make it your email. Until then your email stays ${account.email}.` })
      .waitFor();
    // The account's address is still the old one, here and for the service, until the link is opened.
    const line = page.page.locator('p', { hasText: 'Your email:' });
    await line.locator('strong', { hasText: account.email }).waitFor();
    await line.locator('strong', { hasText: fresh }).waitFor();
    assert.match((await line.textContent())!, /Waiting for confirmation/);
    const me = await requestJson(base, 'GET', '/v1/users/me', undefined, account.token);
    assert.equal(me.body.data.email, account.email);
    await page.page.reload();
    await page.page.locator('p', { hasText: `Waiting for confirmation: ${fresh}` }).waitFor();
    assertNoProblems(page);
  });

  it('plays a premove whichever way the opponent moved: a move over REST reaches the board as a state patch alone', async () => {
    const base = app.base();
    const { id, white, black } = await gameOverApi(base);
    const b = await app.open();
    await logIn(b, black);
    await b.page.goto(`/play/${id}`);
    await b.page.locator('.controls').waitFor();
    await clickMove(b.page, 'e7', 'e5');
    await b.page.locator('.premove', { hasText: 'Premove e7–e5' }).waitFor();
    // White plays from a script: no client of White is in the room, so Black hears of it from the patch.
    await postData(`${base}/v1`, `/games/${id}/moves`, { from: 'd2', to: 'd4' }, white.token);
    assert.deepEqual(await waitForMoves(b.page, 2), ['d4', 'e5']);
    await b.page.locator('.premove').waitFor({ state: 'hidden' });
    // And the next move after the premove is taken at once (the board was not left busy).
    await postData(`${base}/v1`, `/games/${id}/moves`, { from: 'd4', to: 'e5' }, white.token);
    await waitForMoves(b.page, 3);
    await clickMove(b.page, 'b8', 'c6');
    assert.deepEqual(await waitForMoves(b.page, 4), ['d4', 'e5', 'dxe5', 'Nc6']);
    assertNoProblems(b);
  });

  it('steps back through the moves, plays a premove when the turn comes, rings the king in check, marks the turn in the title and tells a declined draw offer', async () => {
    const base = app.base();
    const { id, white, black } = await gameOverApi(base);
    const [w, b] = [await app.open(), await app.open()];
    // Sounds switched on: every oscillator started is counted (a headless browser has no speakers).
    for (const u of [w, b]) {
      await u.page.addInitScript(() => {
        localStorage.setItem('chess.sound', 'on');
        const start = OscillatorNode.prototype.start;
        OscillatorNode.prototype.start = function (...args: [number?]) {
          (window as unknown as { tones: number }).tones = ((window as unknown as { tones?: number }).tones ?? 0) + 1;
          return start.apply(this, args);
        };
      });
    }
    await logIn(w, white);
    await logIn(b, black);
    for (const u of [w, b]) await u.page.goto(`/play/${id}`);
    await w.page.locator('.controls').waitFor();
    await b.page.locator('.controls').waitFor();
    assert.match(await w.page.title(), /^▶ Your turn/);
    assert.doesNotMatch(await b.page.title(), /Your turn/);

    // Black queues e7-e5 while White thinks; it is played as soon as White has moved.
    await clickMove(b.page, 'e7', 'e5');
    await b.page.locator('.premove', { hasText: 'Premove e7–e5' }).waitFor();
    await clickMove(w.page, 'f2', 'f3');
    assert.deepEqual(await waitForMoves(w.page, 2), ['f3', 'e5']);
    await clickMove(w.page, 'g2', 'g4');
    await waitForMoves(b.page, 3);
    assert.match(await b.page.title(), /^▶ Your turn/);
    assert.ok(await b.page.evaluate(() => (window as unknown as { tones?: number }).tones ?? 0) >= 2, 'move sounds');

    // White offers a draw; Black declines; White is told.
    await w.page.click('button:has-text("Offer draw")');
    await b.page.locator('.draw-offer button:has-text("Decline")').click();
    await w.page.locator('.status', { hasText: 'Your draw offer was declined.' }).waitFor();

    // Stepping back with the keys and the buttons, then to the game as it is.
    await w.page.locator('.moves').click();
    await w.page.keyboard.press('ArrowLeft');
    await w.page.locator('.viewing', { hasText: 'Position after 1… e5' }).waitFor();
    await w.page.keyboard.press('Home');
    await w.page.locator('.viewing', { hasText: 'the start' }).waitFor();
    await w.page.click('.stepper button[aria-label="Next move"]');
    await w.page.locator('.moves .ply.current', { hasText: 'f3' }).waitFor();
    await w.page.keyboard.press('End');
    await w.page.locator('.viewing').waitFor({ state: 'hidden' });

    // Mate: the king in check is ringed on the final board, which stays.
    await clickMove(b.page, 'd8', 'h4');
    await w.page.locator('.end', { hasText: 'Black wins by checkmate' }).waitFor();
    await w.page.locator('.board-box .marker-circle-danger').waitFor();
    await w.page.keyboard.press('ArrowLeft');
    await w.page.locator('.viewing', { hasText: "2. g4" }).waitFor();
    assertNoProblems(w, b);
  });

  it('shows BOT before the name on the profile of a bot account (DESIGN 2.13), and nothing on a person\'s', async () => {
    const base = app.base();
    const [viewer, bot] = [await apiUser(base), await apiUser(base)];
    const token = await postData(`${base}/v1`, '/account/tokens', { description: 'my bot', scopes: ['bot:play'] }, bot.token);
    assert.equal((await requestJson(base, 'POST', '/api/bot/account/upgrade', undefined, token.token)).status, 200);
    const page = await app.open();
    await logIn(page, viewer);
    await page.page.goto(`/@/${bot.username}`);
    await page.page.locator('h1 .badge', { hasText: 'BOT' }).waitFor();
    await page.page.goto(`/@/${viewer.username}`);
    await page.page.locator('h1', { hasText: viewer.username }).waitFor();
    assert.equal(await page.page.locator('h1 .badge').count(), 0);
    assertNoProblems(page);
  });
});

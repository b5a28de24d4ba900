import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { postData, requestJson } from '../support/process.ts';
import { until } from '../helpers/poll.ts';
import { apiUser, assertNoProblems, logIn, screenshot, signUp, webAppSuite } from '../helpers/webApp.ts';

/** The rest of the app in a real Chromium: the lobby's seeks, my games, analysis, friends, clubs. */
describe('the web app around the board, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it('shows a seek in every lobby the moment it is made and drops it when cancelled; playing it pairs both people on one board', async () => {
    const [alice, bob] = [await app.open(), await app.open()];
    await signUp(alice);
    await signUp(bob);
    await bob.page.goto('/');
    const aliceSeek = bob.page.locator('table.seeks tr', { hasText: alice.username });

    await alice.page.click('.quick button[data-tc="3+2"]');
    await alice.page.locator('.seeking', { hasText: 'Seeking an opponent: 3+2 rated' }).waitFor();
    await aliceSeek.waitFor();
    assert.match((await aliceSeek.textContent()) ?? '', /3\+2.*rated blitz/);
    await screenshot(bob.page, 'lobby');

    await alice.page.click('.seeking button');
    await aliceSeek.waitFor({ state: 'detached' });

    await alice.page.click('.quick button[data-tc="3+2"]');
    await aliceSeek.locator('button', { hasText: 'Play' }).click();
    await Promise.all([alice.page.waitForURL(/\/play\//), bob.page.waitForURL(/\/play\//)]);
    assert.equal(alice.page.url(), bob.page.url(), 'one game for both');
    for (const u of [alice, bob]) await u.page.locator('h1', { hasText: alice.username }).waitFor();
    await alice.page.locator('.controls').waitFor();
    assertNoProblems(alice, bob);
  });

  it("lists my games with their results, downloads a game's PGN, and shows its analysis with an evaluation graph", async () => {
    const base = app.base();
    const [white, black] = [await apiUser(base), await apiUser(base)];
    const game = await postData(`${base}/v1`, '/games', { type: 'challenge', opponent_id: black.id, time_control: 'blitz', initial_time: 180, increment: 2, color: 'white' }, white.token);
    await postData(`${base}/v1`, `/games/${game.id}/accept`, {}, black.token);
    for (const [i, [from, to]] of [['f2', 'f3'], ['e7', 'e5'], ['g2', 'g4'], ['d8', 'h4']].entries()) {
      await postData(`${base}/v1`, `/games/${game.id}/moves`, { from, to }, i % 2 ? black.token : white.token);
    }
    const page = await app.open();
    await logIn(page, white);
    await page.page.click('.site-nav a:has-text("My games")');
    const row = page.page.locator('table.games tbody tr').first();
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', new RegExp(`${white.username}.*${black.username}.*0-1.*3\\+2 blitz`));

    const [download] = await Promise.all([page.page.waitForEvent('download'), row.locator('button', { hasText: 'PGN' }).click()]);
    const pgn = readFileSync((await download.path())!, 'utf8');
    assert.match(pgn, /\[Result "0-1"\]/);
    assert.match(pgn, /1\. f3 .*e5 .*2\. g4 .*Qh4#/s);

    await row.locator('a', { hasText: 'Analysis' }).click();
    await page.page.locator('svg.eval-graph').waitFor({ timeout: 60_000 });
    assert.equal(await page.page.locator('svg.eval-graph circle.graph-dot').count(), 4, 'a point per move');
    assert.match((await page.page.locator('table.summary').textContent()) ?? '', /Accuracy.*Mistakes.*Blunders/s);
    assert.equal(await page.page.locator('table.analysed-moves tbody tr').count(), 4);
    // A move of the table shows its position and what the engine thought of it.
    await page.page.locator('table.analysed-moves button', { hasText: 'g4' }).click();
    await page.page.locator('.caption', { hasText: /^2\. g4: .*blunder/ }).waitFor();
    const analysis = await requestJson(base, 'GET', `/v1/games/${game.id}/analysis`, undefined, white.token);
    assert.equal(analysis.body.data.moves[1].white.classification, 'blunder');
    await screenshot(page.page, 'analysis');
    assertNoProblems(page);
  });

  it('makes friends by username: a request, its acceptance on the other side, both lists', async () => {
    const base = app.base();
    const [a, b] = [await apiUser(base), await apiUser(base)];
    const [alice, bob] = [await app.open(), await app.open()];
    await logIn(alice, a);
    await logIn(bob, b);
    await alice.page.goto('/friends');
    await alice.page.fill('#friend-name', b.username.toUpperCase());
    await alice.page.click('form.inline-form button');
    await alice.page.locator('.status', { hasText: `Friend request sent to ${b.username}` }).waitFor();

    await bob.page.goto('/friends');
    const request = bob.page.locator('section', { hasText: 'Requests to you' }).locator('li', { hasText: a.username });
    await request.locator('button', { hasText: 'Accept' }).click();
    await bob.page.locator('section', { hasText: 'Friends' }).first().locator('li', { hasText: a.username }).waitFor();
    const friends = await requestJson(base, 'GET', '/v1/friends', undefined, a.token);
    assert.deepEqual(friends.body.data.map((f: { user: { username: string } }) => f.user.username), [b.username]);
    assertNoProblems(alice, bob);
  });

  it('creates a club, invites a player by name, who accepts on the club page and shows among its members', async () => {
    const base = app.base();
    const [a, b] = [await apiUser(base), await apiUser(base)];
    const [alice, bob] = [await app.open(), await app.open()];
    await logIn(alice, a);
    await logIn(bob, b);
    const name = `Web club ${a.username.slice(-6)}`;
    await alice.page.goto('/clubs');
    await alice.page.fill('#club-name', name);
    await alice.page.fill('#club-description', 'Rapid games on Sundays <b>bold</b>');
    await alice.page.uncheck('#club-open');
    await alice.page.click('form.stacked button');
    await alice.page.locator('h1', { hasText: name }).waitFor();
    assert.equal(await alice.page.locator('.description').textContent(), 'Rapid games on Sundays <b>bold</b>', 'text stays text');
    await alice.page.fill('#invite-name', b.username);
    await alice.page.click('form.inline-form button');
    await alice.page.locator('.status', { hasText: `${b.username} is invited` }).waitFor();
    const clubUrl = new URL(alice.page.url()).pathname;

    await bob.page.goto(clubUrl);
    await bob.page.click('button:has-text("Accept the invitation")');
    await bob.page.locator('section', { hasText: 'Members' }).locator('li', { hasText: b.username }).waitFor();
    await until('the club to count two members', async () => (await requestJson(base, 'GET', `/v1${clubUrl}`)).body.data.member_count === 2);
    assertNoProblems(alice, bob);
  });
});

import assert from 'node:assert/strict';
import { postData, requestJson } from '../support/process.ts';
import { TEST_ENV } from '../helpers/service.ts';
import { apiUser, assertNoProblems, clickMove, logIn, PHONE, screenshot, waitForMoves, webAppSuite, type AppUser } from '../helpers/webApp.ts';

const GAME_URL = /\/play\/[0-9a-f-]{36}$/;

/** Every address a page shows, in order (the app changes it with the History API). */
function addresses(user: AppUser): string[] {
  const seen: string[] = [];
  user.page.on('framenavigated', (frame) => {
    if (frame === user.page.mainFrame()) seen.push(new URL(frame.url()).pathname);
  });
  return seen;
}

async function resign(user: AppUser): Promise<void> {
  const button = user.page.locator('.controls button.danger');
  await button.click();
  await user.page.locator('.controls button.danger', { hasText: 'Confirm resignation' }).waitFor();
  await button.click();
}

describe('tournaments in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it('creates an arena from the form; two players join in their browsers, are taken to their board, play, stay on the final board and are taken on when paired again, while a third page follows the standings live, fire included', async () => {
    const base = app.base();
    const [alice, bob, carol] = [await app.open(), await app.open(), await app.open()];
    const accounts = [await apiUser(base), await apiUser(base), await apiUser(base)];
    await Promise.all([logIn(alice, accounts[0]), logIn(bob, accounts[1]), logIn(carol, accounts[2])]);
    for (const [u, a] of [[alice, accounts[0]], [bob, accounts[1]], [carol, accounts[2]]] as const) u.username = a.username;

    // What reaches Alice's page on the arena's channel.
    const heard: string[] = [];
    alice.page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
      try {
        const m = JSON.parse(String(payload));
        if (String(m.channel).startsWith('tournament:')) heard.push(m.type);
      } catch {
        // a room's binary frame
      }
    }));

    // Alice creates an arena that starts now, as short as this service allows; she watches it.
    const name = `Blitz arena ${accounts[0].username.slice(-5)}`;
    await alice.page.click('.site-nav a:has-text("Tournaments")');
    await alice.page.fill('#t-name', name);
    await alice.page.fill('#t-minutes', '3');
    await alice.page.fill('#t-increment', '0');
    await alice.page.selectOption('#t-start', '0');
    await alice.page.fill('#t-duration', TEST_ENV.TOURNAMENT_MIN_MINUTES);
    await alice.page.click('form.arena-form button[type=submit]');
    await alice.page.waitForURL(/\/tournaments\/[0-9a-f-]{36}$/);
    const id = new URL(alice.page.url()).pathname.split('/').pop()!;
    await alice.page.locator('h1', { hasText: name }).waitFor();
    assert.match((await alice.page.locator('.arena-head .info').textContent()) ?? '', /^3\+0 rated blitz arena · by /);
    // It starts within a second of its start; the page hears it on the channel.
    await alice.page.locator('.countdown', { hasText: /^Ends in (0:[0-5]\d|1:00)$/ }).waitFor();

    // Bob finds it among the running arenas; Carol comes by its link. Both join.
    const bobWent = addresses(bob);
    const carolWent = addresses(carol);
    await bob.page.goto('/tournaments');
    await bob.page.locator('.arenas-running a', { hasText: name }).click();
    await bob.page.locator('button.join').click();
    await bob.page.locator('.badge', { hasText: 'You are in' }).waitFor();
    await carol.page.goto(`/tournaments/${id}`);
    await carol.page.locator('button.join').click();

    // Paired: each is taken to the same board by their own channel's tournament_pairing.
    await Promise.all([bob.page.waitForURL(GAME_URL), carol.page.waitForURL(GAME_URL)]);
    const first = new URL(bob.page.url()).pathname;
    assert.equal(new URL(carol.page.url()).pathname, first, 'one game for both');
    const game1 = (await requestJson(base, 'GET', `/v1/games/${first.split('/').pop()}`, undefined, accounts[0].token)).body.data;
    assert.equal(game1.tournament_id, id);
    const [white, black] = game1.white_player.username === bob.username ? [bob, carol] : [carol, bob];

    await white.page.locator('.controls').waitFor();
    await clickMove(white.page, 'e2', 'e4');
    await waitForMoves(black.page, 1);
    await black.page.locator('.controls').waitFor();
    await clickMove(black.page, 'e7', 'e5');
    await waitForMoves(white.page, 2);
    await resign(white);

    // Alice's page shows the result as soon as the arena counts it: Black 2 points.
    const row = (u: AppUser) => alice.page.locator('table.standings tbody tr', { hasText: u.username });
    await row(black).locator('td.score', { hasText: /^2$/ }).waitFor();
    assert.match((await row(black).textContent()) ?? '', /^1.*2.*1.*1–0–0/);
    assert.match((await row(white).textContent()) ?? '', /^2.*0.*1.*0–0–1/);
    assert.ok(heard.includes('standings'), `the page follows the arena's channel (heard: ${heard.join(', ')})`);

    // Both stayed on the final board when the game ended (told of the next game), and went on to it when paired again.
    for (const u of [bob, carol]) {
      await u.page.locator('.end .result', { hasText: 'Black wins by resignation' }).waitFor();
      await u.page.locator('.next-game', { hasText: 'Your next game, against' }).waitFor();
      assert.equal(new URL(u.page.url()).pathname, first, 'still on the final board');
    }
    await Promise.all([bob.page.waitForURL((u) => GAME_URL.test(u.href) && u.pathname !== first), carol.page.waitForURL((u) => GAME_URL.test(u.href) && u.pathname !== first)]);
    const second = new URL(bob.page.url()).pathname;
    assert.equal(new URL(carol.page.url()).pathname, second);
    for (const went of [bobWent, carolWent]) {
      const path = went.filter((p, i) => p !== went[i - 1]);
      assert.deepEqual(path.slice(path.indexOf(first)), [first, second], path.join(' → '));
    }

    // The game's first loser resigns again: two wins in a row, the winner is on fire.
    await white.page.locator('.controls').waitFor();
    await resign(white);
    await row(black).locator('td.score', { hasText: /^4/ }).waitFor();
    const fire = row(black).locator('.fire');
    await fire.waitFor();
    assert.match((await fire.getAttribute('title')) ?? '', /^On fire: 2 wins in a row/);
    const standings = (await requestJson(base, 'GET', `/v1/tournaments/${id}/standings`)).body.data;
    assert.deepEqual(standings.map((s: { user: { username: string }; score: number; streak: number }) => [s.user.username, s.score, s.streak]), [[black.username, 4, 2], [white.username, 0, 0]]);
    await screenshot(alice.page, 'tournament');
    assertNoProblems(alice, bob, carol);
  });

  it('lists an upcoming arena with its start; joining and withdrawing before the start change the players; a visitor may read it and is asked to log in', async () => {
    const base = app.base();
    const [creator, player] = [await apiUser(base), await apiUser(base)];
    const startsAt = new Date(Date.now() + 3600_000).toISOString();
    const name = `Rapid hour ${creator.username.slice(-5)}`;
    const t = await postData(`${base}/v1`, '/tournaments', { name, time_control: 'rapid', initial_time: 600, increment: 5, starts_at: startsAt, duration_minutes: 60 }, creator.token);

    const user = await app.open();
    await logIn(user, player);
    await user.page.goto('/tournaments');
    const item = user.page.locator('.arenas-upcoming li', { hasText: name });
    assert.match((await item.textContent()) ?? '', /10\+5 rated rapid · 0 players · starts .* \(in (59 min|1 h)\)/);
    await item.locator('a').click();
    await user.page.locator('.countdown', { hasText: /^Starts in (59:[0-5]\d|1:00:00)$/ }).waitFor();
    await user.page.click('button.join');
    await user.page.locator('.arena-head .info', { hasText: '1 player' }).waitFor();
    assert.equal((await requestJson(base, 'GET', `/v1/tournaments/${t.id}`, undefined, player.token)).body.data.joined, true);
    await user.page.locator('table.standings tr.me', { hasText: player.username }).waitFor();
    await user.page.click('button.withdraw');
    await user.page.locator('.arena-head .info', { hasText: '0 players' }).waitFor();
    assert.equal((await requestJson(base, 'GET', `/v1/tournaments/${t.id}`, undefined, player.token)).body.data.player_count, 0);

    const visitor = await app.open();
    await visitor.page.goto(`/tournaments/${t.id}`);
    await visitor.page.locator('a.button', { hasText: 'Log in to join' }).waitFor();
    assertNoProblems(user, visitor);
  });

  it('fits a 375 px phone screen', async () => {
    const base = app.base();
    const creator = await apiUser(base);
    const t = await postData(`${base}/v1`, '/tournaments', { name: 'A phone-sized arena with a long name', time_control: 'blitz', initial_time: 180, increment: 2, starts_at: new Date(Date.now() + 600_000).toISOString(), duration_minutes: 30 }, creator.token);
    await postData(`${base}/v1`, `/tournaments/${t.id}/join`, {}, creator.token);
    const phone = await app.open({ viewport: PHONE });
    await logIn(phone, creator);
    for (const path of ['/tournaments', `/tournaments/${t.id}`]) {
      await phone.page.goto(path);
      await phone.page.locator('h1').waitFor();
      await phone.page.locator('.arenas li, table.standings tbody tr').first().waitFor();
      const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `${path} is ${width} px wide`);
    }
    assertNoProblems(phone);
  });
});

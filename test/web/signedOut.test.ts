import assert from 'node:assert/strict';
import { postData, requestJson } from '../support/process.ts';
import { assertNoProblems, gameOverApi, signUp, webAppSuite } from '../helpers/webApp.ts';

/** Issue 37 in a real Chromium: a visitor without an account (DESIGN 2.14), and a signup that says where its mail went. */
describe('the web app signed out, and after a signup, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it("opens a player's profile and a finished game's analysis without an account, offering to sign in for the rest", async () => {
    const base = app.base();
    const game = await gameOverApi(base);
    // Fool's mate: the game ends, and the service's engine analyses it.
    for (const [i, [from, to]] of [['f2', 'f3'], ['e7', 'e5'], ['g2', 'g4'], ['d8', 'h4']].entries()) {
      await postData(`${base}/v1`, `/games/${game.id}/moves`, { from, to }, i % 2 ? game.black.token : game.white.token);
    }
    const visitor = await app.open();
    const name = game.white.username;

    await visitor.page.goto(`/@/${name}`);
    await visitor.page.locator('h1', { hasText: name }).waitFor();
    await visitor.page.locator('ul.ratings').waitFor();
    const signIn = visitor.page.locator('p.actions a', { hasText: `Sign in to challenge ${name} or add them as a friend` });
    await signIn.waitFor();
    assert.equal(await signIn.getAttribute('href'), `/login?next=${encodeURIComponent(`/@/${name}`)}`);
    await visitor.page.locator('table.games a', { hasText: `Sign in to see ${name}’s games` }).waitFor();
    assert.equal(await visitor.page.locator('p.actions button').count(), 0, 'no friend button for nobody');
    assert.equal(new URL(visitor.page.url()).pathname, `/@/${name}`, 'not sent to the login page');

    await visitor.page.goto(`/analysis/${game.id}`);
    await visitor.page.locator('svg.eval-graph').waitFor({ timeout: 60_000 });
    assert.equal(await visitor.page.locator('svg.eval-graph circle.graph-dot').count(), 4, 'a point per move');
    assert.equal(await visitor.page.locator('table.analysed-moves tbody tr').count(), 4);
    assert.equal(new URL(visitor.page.url()).pathname, `/analysis/${game.id}`, 'not sent to the login page');

    // What the page read, read the same way: no token, the analysis and nothing else.
    const analysis = await requestJson(base, 'GET', `/v1/games/${game.id}/analysis`);
    assert.equal(analysis.status, 200);
    assert.deepEqual(Object.keys(analysis.body.data).sort(), ['accuracy', 'analyzed_at', 'blunders', 'depth', 'engine', 'game_id', 'mistakes', 'moves', 'opening']);
    assertNoProblems(visitor);
  });

  it('says after a signup that a confirmation mail went to the address, and how to get another', async () => {
    const person = await app.open();
    await signUp(person);
    const notice = person.page.locator('.notices .notice', { hasText: `We sent a confirmation mail to ${person.email}` });
    await notice.waitFor();
    await notice.locator('a', { hasText: 'No mail? Send another' }).click();
    await person.page.waitForURL(/\/confirm-email$/);
    await person.page.locator('h1', { hasText: 'Confirm your email' }).waitFor();
    assert.equal(await notice.count(), 1, 'the line stays until dismissed');
    assertNoProblems(person);
  });
});

import assert from 'node:assert/strict';
import { SCOPES } from '../../src/auth/scopes.ts';
import { requestJson } from '../support/process.ts';
import { apiUser, assertNoProblems, logIn, webAppSuite } from '../helpers/webApp.ts';

/** DESIGN 2.12's token page, as a person uses it, in a real Chromium. */
describe('the personal access tokens page, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it('makes a token with the picked scopes, shows it once with a copy button, lists it and revokes it', async () => {
    const base = app.base();
    const account = await apiUser(base);
    const user = await app.open();
    await user.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await logIn(user, account);
    const { page } = user;
    await page.goto('/settings');
    await page.click('a:has-text("Personal access tokens")');
    await page.waitForURL(/\/settings\/tokens$/);
    await page.locator('p.empty', { hasText: 'No tokens yet' }).waitFor();
    assert.deepEqual(await page.locator('fieldset.scopes input[type=checkbox]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)), [...SCOPES],
      'a checkbox for every scope the API knows');

    // No scope picked: said beside the form, nothing made.
    await page.fill('#token-description', 'my bot');
    await page.click('button:has-text("Make token")');
    await page.locator('.form-error:not([hidden])', { hasText: 'Pick at least one permission.' }).waitFor();

    await page.check('input[value="games:play"]');
    await page.check('input[value="games:read"]');
    await page.fill('#token-expires', '2099-12-31');
    await page.click('button:has-text("Make token")');
    const value = page.locator('#new-token-value');
    await value.waitFor();
    const token = await value.inputValue();
    assert.match(token, /^cst_[0-9A-Za-z]{43}$/);
    await page.click('.new-token button:has-text("Copy")');
    await page.locator('.new-token .status', { hasText: 'Copied.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);

    // The token works on the API, within its scopes.
    const games = await requestJson(`${base}/v1`, 'GET', '/games', undefined, token);
    assert.equal(games.status, 200, JSON.stringify(games.body));
    const profile = await requestJson(`${base}/v1`, 'GET', '/users/me', undefined, token);
    assert.equal(profile.body.error.code, 'MISSING_SCOPE');

    // Listed without the token; after a reload it is nowhere on the page.
    const row = page.locator('table.tokens tbody tr');
    await row.first().waitFor();
    assert.equal(await row.count(), 1);
    assert.match((await row.textContent()) ?? '', /my bot.*games:read games:play/);
    await page.reload();
    await row.first().waitFor();
    assert.ok(!(await page.content()).includes(token.slice(4)), 'shown only once');

    await page.click('table.tokens button:has-text("Revoke")');
    await page.locator('p.empty', { hasText: 'No tokens yet' }).waitFor();
    const after = await requestJson(`${base}/v1`, 'GET', '/games', undefined, token);
    assert.equal(after.status, 401);
    assertNoProblems(user);
  });
});

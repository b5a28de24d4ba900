import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertNoProblems, clickMove, listedMoves, signUp, waitForMoves, webAppSuite } from '../helpers/webApp.ts';
import { assertFits, measure, resizeTo } from './fit.ts';

/** From the lobby, the two clicks: a colour, then a level; the game's page opens, the person to move. */
async function playTheComputer(page: Page, username: string): Promise<void> {
  await page.selectOption('#computer-color', 'white');
  await page.click('.computer button[data-level="1"]');
  await page.waitForURL('**/play/*');
  await page.locator('h1', { hasText: `${username} vs stockfish-1` }).waitFor();
  await page.locator('.controls button', { hasText: 'Resign' }).waitFor();
}

/** The person's two moves (clicks on squares), each answered by the engine on the board. */
async function twoMovesAnswered(page: Page): Promise<void> {
  await clickMove(page, 'e2', 'e4');
  assert.equal((await waitForMoves(page, 2))[0], 'e4', "the person's move, then the engine's");
  await clickMove(page, 'd2', 'd4');
  const moves = await waitForMoves(page, 4);
  assert.deepEqual([moves[0], moves[2]], ['e4', 'd4']);
  assert.equal((await listedMoves(page)).length, 4);
}

/** The newcomer ends it as any game: the result is the computer's, said on the board. */
async function resign(page: Page): Promise<void> {
  await page.click('.controls button:has-text("Resign")');
  await page.click('.controls button:has-text("Confirm resignation")');
  await page.locator('.end .result', { hasText: 'Black wins by resignation' }).waitFor();
}

/**
 * Issue 37, DESIGN 2.14: a newcomer on an empty server plays the computer from the lobby: a
 * colour, then a level, and the game's page opens with the engine answering each move.
 */
describe('the computer as an opponent, in a real Chromium', function () {
  this.timeout(90_000);
  const app = webAppSuite();

  it('starts a game against the computer from the lobby in two clicks and plays it to its end: the engine answers each move', async () => {
    const LAPTOP = { width: 1366, height: 768 };
    const person = await app.open({ viewport: LAPTOP });
    await signUp(person);
    await person.page.goto('/');
    // On the first screen, no scrolling.
    const level = (await person.page.locator('.computer button[data-level="8"]').boundingBox())!;
    assert.ok(level.y >= 0 && level.y + level.height <= LAPTOP.height, `level 8 in view: ${level.y}`);
    // Beside quick pairing: the card right after it, in the page's order and on the screen.
    const quick = person.page.locator('section[aria-labelledby="quick-h"]');
    assert.equal(await quick.evaluate((el) => el.nextElementSibling?.querySelector('h2')?.textContent), 'Play the computer');
    const quickBox = (await quick.boundingBox())!;
    const computerBox = (await person.page.locator('section[aria-labelledby="computer-h"]').boundingBox())!;
    const gap = computerBox.y - (quickBox.y + quickBox.height);
    assert.ok(computerBox.x === quickBox.x && gap >= 0 && gap <= 24, `under quick pairing: ${JSON.stringify({ quickBox, computerBox })}`);

    await playTheComputer(person.page, person.username);
    await twoMovesAnswered(person.page);
    // The whole board, both clocks and both player lines in the window, on both laptop screens.
    assertFits(await measure(person.page), 560);
    await resizeTo(person.page, { width: 1280, height: 720 });
    assertFits(await measure(person.page), 520);
    await resign(person.page);
    assertNoProblems(person);
  });

  it('on a 375×667 phone: starts a game against the computer in the same two clicks, plays it to its end, the board and both clocks in the window', async () => {
    const person = await app.open({ viewport: { width: 375, height: 667 } });
    await signUp(person);
    await person.page.goto('/');
    await playTheComputer(person.page, person.username);
    await twoMovesAnswered(person.page);
    // The board takes the width: 375 less the page's margins.
    assertFits(await measure(person.page), 340);
    await resign(person.page);
    // Said where the person is looking: in the window, the page not scrolled away from it.
    const end = (await person.page.locator('.end .result').boundingBox())!;
    assert.ok(end.y >= 0 && end.y + end.height <= 667, `the result in view: ${end.y}`);
    assertNoProblems(person);
  });

  it('says so when the computer games a person may have at once are all going', async () => {
    const person = await app.open({ viewport: { width: 375, height: 667 } });
    await signUp(person);
    for (let i = 0; i < 3; i++) {
      await person.page.goto('/');
      await person.page.click('.computer button[data-level="2"]');
      await person.page.waitForURL('**/play/*');
    }
    await person.page.goto('/');
    await person.page.click('.computer button[data-level="2"]');
    await person.page.locator('.card', { hasText: 'Play the computer' }).locator('text=as many games against the computer').waitFor();
    assert.equal(new URL(person.page.url()).pathname, '/');
    assertNoProblems(person);
  });
});

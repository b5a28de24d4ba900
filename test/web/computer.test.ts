import assert from 'node:assert/strict';
import { assertNoProblems, clickMove, listedMoves, signUp, waitForMoves, webAppSuite } from '../helpers/webApp.ts';

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
    // Beside quick pairing: on the first screen, no scrolling.
    const level = (await person.page.locator('.computer button[data-level="8"]').boundingBox())!;
    assert.ok(level.y >= 0 && level.y + level.height <= LAPTOP.height, `level 8 in view: ${level.y}`);
    await person.page.selectOption('#computer-color', 'white');
    await person.page.click('.computer button[data-level="1"]');
    await person.page.waitForURL('**/play/*');
    await person.page.locator('h1', { hasText: `${person.username} vs stockfish-1` }).waitFor();
    await person.page.locator('.controls button', { hasText: 'Resign' }).waitFor();

    await clickMove(person.page, 'e2', 'e4');
    assert.equal((await waitForMoves(person.page, 2))[0], 'e4', "the person's move, then the engine's");
    await clickMove(person.page, 'd2', 'd4');
    const moves = await waitForMoves(person.page, 4);
    assert.deepEqual([moves[0], moves[2]], ['e4', 'd4']);
    assert.equal((await listedMoves(person.page)).length, 4);
    // The newcomer ends it as any game: the result is the computer's, said on the board.
    await person.page.click('.controls button:has-text("Resign")');
    await person.page.click('.controls button:has-text("Confirm resignation")');
    await person.page.locator('.end .result', { hasText: 'Black wins by resignation' }).waitFor();
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

import assert from 'node:assert/strict';
import { NdjsonClient, type NdMessage } from '../helpers/ndjson.ts';
import { apiUser, assertNoProblems, clickMove, listedMoves, signUp, waitForMoves, webAppSuite } from '../helpers/webApp.ts';
import { postData } from '../support/process.ts';

/**
 * DESIGN 2.13's promise, as its users see it: a person in the web app, in a real Chromium, plays a
 * whole game against someone who plays only through Lichess's Board API over HTTP, as a Board
 * API client does (a personal token, form POSTs, cued by the event stream and the game stream).
 */
describe("the web app against a client of Lichess's Board API, in a real Chromium", function () {
  this.timeout(90_000);
  const app = webAppSuite();
  const streams: NdjsonClient[] = [];
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });

  /** A Board API client: an account with a personal token of Lichess's scopes, made as its owner makes one. */
  async function boardClient() {
    const account = await apiUser(app.base());
    const made = await postData(`${app.base()}/v1`, '/account/tokens', { description: 'board app', scopes: ['board:play', 'challenge:write'] }, account.token);
    const token: string = made.token;
    return {
      username: account.username,
      /** A POST as the client sends it: the bearer token and a form body; answers the parsed JSON. */
      post: async (path: string, form: Record<string, string> = {}) => {
        const res = await fetch(`${app.base()}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
        const body = await res.json();
        assert.equal(res.status, 200, `${path}: ${JSON.stringify(body)}`);
        return body;
      },
      stream: async (path: string) => {
        const s = await NdjsonClient.open(`${app.base()}${path}`, { authorization: `Bearer ${token}` });
        streams.push(s);
        assert.equal(s.status, 200, `${path}: ${JSON.stringify(s.body)}`);
        return s;
      },
    };
  }

  /** The next line of `type` whose `pick` is `value`, passing over the others (chat, other games). */
  async function lineWhere(s: NdjsonClient, type: string, pick: (m: NdMessage) => unknown, value: unknown): Promise<NdMessage> {
    for (;;) {
      const m = await s.until(type, 30_000);
      if (pick(m) === value) return m;
    }
  }

  it('plays a Board API client from its challenge to mate by clicking squares; each side sees every move, the chat and the end', async () => {
    const person = await app.open();
    await signUp(person);
    await person.page.goto('/');
    await person.page.locator('.challenges p.empty', { hasText: 'No challenges.' }).waitFor();

    // The Board client challenges the person by name, 5+3 with Black, and hears of it on its event stream.
    const board = await boardClient();
    const events = await board.stream('/api/stream/event');
    const challenge = await board.post(`/api/challenge/${person.username}`, { 'clock.limit': '300', 'clock.increment': '3', color: 'black' });
    const id: string = challenge.id;
    assert.equal((await lineWhere(events, 'challenge', (m) => m.challenge.id, id)).challenge.direction, 'out');

    // The person sees it arrive in the lobby, live, and accepts it as any challenge.
    const incoming = person.page.locator('li.challenge.incoming', { hasText: board.username });
    await incoming.waitFor();
    assert.match((await incoming.textContent()) ?? '', /5\+3/);
    await incoming.locator('button', { hasText: 'Accept' }).click();
    await person.page.waitForURL(`**/play/${id}`);
    await person.page.locator('h1', { hasText: `${person.username} vs ${board.username}` }).waitFor();
    await person.page.locator('.controls button', { hasText: 'Resign' }).waitFor();

    // The Board client learns of the game from gameStart and opens its stream.
    const start = await lineWhere(events, 'gameStart', (m) => m.game.gameId, id);
    assert.deepEqual([start.game.color, start.game.isMyTurn, start.game.opponent.username], ['black', false, person.username]);
    const game = await board.stream(`/api/board/game/stream/${id}`);
    const full = await game.next('gameFull');
    assert.deepEqual([full.white.name, full.black.name], [person.username, board.username]);
    assert.deepEqual([full.clock, full.speed, full.state.moves, full.state.status], [{ initial: 300_000, increment: 3000 }, 'blitz', '', 'started']);

    // Chat both ways: the Board client's line on the page, the person's on the Board stream.
    await board.post(`/api/board/game/${id}/chat`, { room: 'player', text: 'good luck' });
    await person.page.locator('.chat-lines li', { hasText: `${board.username} good luck` }).waitFor();
    await person.page.fill('.chat-form input', 'thanks, you too');
    await person.page.press('.chat-form input', 'Enter');
    const said = await lineWhere(game, 'chatLine', (m) => m.username, person.username);
    assert.deepEqual(said, { type: 'chatLine', room: 'player', username: person.username, text: 'thanks, you too' });

    // Scholar's mate: the person clicks White's moves; the Board client answers each gameState that shows one.
    const white = [['e2', 'e4'], ['f1', 'c4'], ['d1', 'h5'], ['h5', 'f7']];
    const black = ['e7e5', 'b8c6', 'g8f6'];
    const played: string[] = [];
    for (const [i, [from, to]] of white.entries()) {
      await clickMove(person.page, from, to);
      played.push(from + to);
      const state = await lineWhere(game, 'gameState', (m) => m.moves, played.join(' '));
      if (i === white.length - 1) {
        assert.deepEqual([state.status, state.winner], ['mate', 'white']);
        break;
      }
      assert.equal(state.status, 'started');
      assert.ok(state.wtime > 0 && state.btime > 0 && state.winc === 3000 && state.binc === 3000, JSON.stringify(state));
      await board.post(`/api/board/game/${id}/move/${black[i]}`);
      played.push(black[i]);
      await waitForMoves(person.page, played.length);
    }
    assert.equal(await game.ended, 'complete', 'the Board stream ends after the final gameState');
    const finish = await lineWhere(events, 'gameFinish', (m) => m.game.gameId, id);
    assert.deepEqual([finish.game.status.name, finish.game.winner], ['mate', 'white']);

    // The page shows the same game and how it ended.
    await person.page.locator('.end .result', { hasText: 'White wins by checkmate' }).waitFor();
    assert.deepEqual(await listedMoves(person.page), ['e4', 'e5', 'Bc4', 'Nc6', 'Qh5', 'Nf6', 'Qxf7#']);
    // The board draws once the animations queued before the mate have run (its model has the mate at once).
    const drawn = { f7: 'wq', c6: 'bn', f6: 'bn' };
    await person.page
      .waitForFunction(
        (want) => Object.entries(want).every(([sq, piece]) => document.querySelector(`.play-board [data-square="${sq}"][data-piece]`)?.getAttribute('data-piece') === piece),
        drawn,
        { timeout: 5000 },
      )
      .catch(() => assert.fail("the board shows the Board client's pieces where it put them, and White's queen on f7"));
    assert.equal(await person.page.locator('.controls').isVisible(), false, 'no controls once the game is over');
    assertNoProblems(person);
  });
});

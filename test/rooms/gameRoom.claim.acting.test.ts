import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { api, type ApiResponse } from '../helpers/http.ts';
import { as, createActiveGame, play, sendMove, type ActiveGame } from '../helpers/games.ts';
import { until } from '../helpers/poll.ts';
import { leaveRooms, nextMessage } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const claim = (id: string, user: TestUser) => api('POST', `/v1/games/${id}/claim`, as(user, { result: 'win' }));

/**
 * DESIGN 2.11: "A player who acts in the game by any API (a move, an offer, an answer, chat) is
 * present: the count starts again." White joins the room and leaves it; past CLAIM_SECONDS White
 * acts over REST, and Black's claim right after is refused. The service's clock is skipped forward.
 */
describe('claiming against a player who acts by another API (DESIGN 2.11)', () => {
  let game: ActiveGame;
  let sdk: Client;
  let black: Room;
  const rooms: Room[] = [];

  beforeEach(async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(a, b, { rated: true });
    await play(game, game.white, 'e2', 'e4');
    await play(game, game.black, 'e7', 'e5');
    sdk = new Client((await testService()).service.url.replace('http', 'ws'));
    // White's client joins and leaves: the count against White runs, past its end.
    const white = await join(game.white);
    black = await join(game.black);
    const gone = nextMessage(black, 'opponent_gone');
    rooms.splice(rooms.indexOf(white), 1);
    await white.leave(true);
    assert.equal((await gone).color, 'white');
    await skipClaimTime();
  });

  afterEach(async () => {
    (await testService()).clock.reset();
    await leaveRooms(rooms);
  });

  const join = async (user: TestUser) => {
    const room = await sdk.joinById(game.id, { token: user.accessToken });
    rooms.push(room);
    room.onMessage('*', () => {});
    await new Promise<void>((resolve) => ((room.state as any)?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return room;
  };
  const skipClaimTime = async () => {
    const { clock, config } = await testService();
    clock.skip(config.claimMs);
  };

  /** White acts over REST; the count starts again from then: Black's claim is refused until it ends. */
  async function expectCountStartsAgain(act: () => Promise<ApiResponse>, status: number): Promise<void> {
    const { clock, config } = await testService();
    const again = nextMessage(black, 'opponent_gone');
    const actedAt = clock.now();
    const res = await act();
    assert.equal(res.status, status, res.text);
    const early = await claim(game.id, game.black);
    assert.equal(early.status, 409, early.text);
    assert.equal(early.body.error.code, 'CLAIM_NOT_ALLOWED');
    // The room's clients are told the count's new end, in a message and in the state.
    const news = await again;
    assert.equal(news.color, 'white');
    const claimableAt = Date.parse(news.claimable_at);
    assert.ok(claimableAt >= actedAt + config.claimMs && claimableAt < clock.now() + config.claimMs + 1, news.claimable_at);
    await until('the room state to carry the new count', () => (black.state as any).white.claimableAt === claimableAt, { ms: 5000 });
    // White is still not in the room: once the new count ends, the claim is allowed.
    await skipClaimTime();
    const late = await claim(game.id, game.black);
    assert.equal(late.status, 200, late.text);
    assert.deepEqual([late.body.data.winner, late.body.data.termination], ['black', 'timeout']);
  }

  it('refuses a claim right after the absent player moved over REST', async () => {
    await expectCountStartsAgain(() => sendMove(game, game.white, 'g1', 'f3'), 200);
  });

  it('refuses a claim right after the absent player wrote in the player chat over REST', async () => {
    await expectCountStartsAgain(() => api('POST', `/v1/games/${game.id}/chat`, as(game.white, { text: 'still here', room: 'player' })), 201);
  });

  it('refuses a claim right after the absent player offered a draw over REST', async () => {
    await expectCountStartsAgain(() => api('POST', `/v1/games/${game.id}/draw`, as(game.white)), 200);
  });

  it('refuses a claim right after the absent player made a refused command (it is still an act)', async () => {
    // Not White's turn after this: the command is refused, yet White is there.
    await play(game, game.white, 'g1', 'f3');
    await skipClaimTime();
    await expectCountStartsAgain(() => sendMove(game, game.white, 'f3', 'g5'), 403);
  });
});

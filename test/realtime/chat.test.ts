import assert from 'node:assert/strict';
import { insertActiveGame } from '../support/fixtures.ts';
import { receiverPerTest } from '../support/receiver.ts';
import { as, play } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import type { ChannelMessage, StreamMessage } from '../../src/realtime/messages.ts';
import { WsClient, type WsMessage } from '../helpers/ws.ts';

// DESIGN 2.11 "Chat" on the game stream and the realtime channel: the spectator room to every
// watcher, the player room to a socket signed in as a player only, live and never replayed.

const stream = (id: string, query = '') => WsClient.open<StreamMessage>(`/v1/games/${id}/stream${query}`);
const say = (gameId: string, user: TestUser, text: string, room: 'player' | 'spectator') =>
  api('POST', `/v1/games/${gameId}/chat`, as(user, { text, room })).then((res) => assert.equal(res.status, 201, res.text));

/** Every chat the socket was sent, in order, as `room:text`. */
const chats = (s: WsClient<any>) => s.seen.filter((m: WsMessage) => m.type === 'chat').map((m: WsMessage) => `${m.room}:${m.message.text}`);
/** Waits until the socket was sent the chat `text`. */
async function heard(s: WsClient<any>, text: string): Promise<WsMessage> {
  for (;;) {
    const found = s.seen.find((m: WsMessage) => m.type === 'chat' && m.message.text === text);
    if (found) return found;
    await s.until('chat');
  }
}

describe('chat on the game stream and the realtime channel', () => {
  let white: TestUser;
  let black: TestUser;
  let watcher: TestUser;
  let gameId: string;

  beforeEach(async () => {
    const { service } = await testService();
    [white, black, watcher] = await Promise.all([createUser(), createUser(), createUser()]);
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
  });

  it("sends a spectator's stream the spectator room only, and a player's stream both rooms", async () => {
    const [anon, signedIn, whites, blacks] = await Promise.all([
      stream(gameId),
      stream(gameId, `?token=${watcher.accessToken}`),
      stream(gameId, `?token=${white.accessToken}`),
      stream(gameId, `?token=${black.accessToken}`),
    ]);
    await Promise.all([anon, signedIn, whites, blacks].map((s) => s.next('state')));
    await say(gameId, white, 'secret plan', 'player');
    await say(gameId, watcher, 'hello players', 'spectator');
    await play(gameId, white, 'e2', 'e4');
    await say(gameId, black, 'nice try', 'player');
    await say(gameId, watcher, 'the end', 'spectator');
    const [last] = await Promise.all([anon, signedIn, whites, blacks].map((s) => heard(s, 'the end')));
    for (const s of [anon, signedIn]) {
      assert.deepEqual(chats(s), ['spectator:hello players', 'spectator:the end']);
      assert.ok(!s.seen.some((m: WsMessage) => JSON.stringify(m).includes('secret') || JSON.stringify(m).includes('nice try')));
    }
    for (const s of [whites, blacks]) assert.deepEqual(chats(s), ['player:secret plan', 'spectator:hello players', 'player:nice try', 'spectator:the end']);
    // A chat carries `ts` and the viewer's current event number (the move was v 1), and nothing internal.
    assert.deepEqual(Object.keys(last).sort(), ['message', 'room', 'ts', 'type', 'v']);
    assert.equal(last.v, 1);
    assert.deepEqual(Object.keys(last.message).sort(), ['created_at', 'id', 'room', 'text', 'user']);
    const whiteNice: WsMessage = whites.seen.find((m: WsMessage) => m.type === 'chat' && m.message.text === 'nice try')!;
    assert.equal(whiteNice.v, 1);
    assert.ok(!JSON.stringify(whites.seen).includes('hidden_from'));
    for (const s of [anon, signedIn, whites, blacks]) s.close();
  });

  it('never replays chat: a spectator coming back with ?since gets the missed moves and no player chat', async () => {
    const first = await stream(gameId);
    await first.next('state');
    await play(gameId, white, 'e2', 'e4');
    await first.until('time_update');
    first.close();
    await say(gameId, white, 'between us', 'player');
    await say(gameId, watcher, 'meanwhile', 'spectator');
    await play(gameId, black, 'e7', 'e5');
    const back = await stream(gameId, '?since=1');
    const move = await back.next('move');
    assert.equal(move.v, 2);
    await back.next('time_update');
    await say(gameId, black, 'psst', 'player');
    await say(gameId, watcher, 'live again', 'spectator');
    await heard(back, 'live again');
    assert.deepEqual(chats(back), ['spectator:live again']);
    assert.ok(!JSON.stringify(back.seen).includes('between us') && !JSON.stringify(back.seen).includes('psst'));
    // A player coming back is replayed no chat either (the buffer holds none); live chat goes on.
    const player = await stream(gameId, `?token=${white.accessToken}&since=1`);
    assert.equal((await player.next('move')).v, 2);
    await player.next('time_update');
    await say(gameId, black, 'welcome back', 'player');
    await heard(player, 'welcome back');
    assert.deepEqual(chats(player), ['player:welcome back']);
    back.close();
    player.close();
  });

  it("keeps the opponent's messages from a player's stream once they muted the game", async () => {
    const [whites, blacks] = await Promise.all([stream(gameId, `?token=${white.accessToken}`), stream(gameId, `?token=${black.accessToken}`)]);
    await Promise.all([whites.next('state'), blacks.next('state')]);
    assert.equal((await api('POST', `/v1/games/${gameId}/chat/mute`, as(white))).status, 200);
    await say(gameId, black, 'you are muted', 'player');
    await say(gameId, white, 'quiet now', 'player');
    await Promise.all([heard(whites, 'quiet now'), heard(blacks, 'quiet now')]);
    assert.deepEqual(chats(whites), ['player:quiet now']);
    assert.deepEqual(chats(blacks), ['player:you are muted', 'player:quiet now']);
    whites.close();
    blacks.close();
  });

  it('sends a game: subscription the spectator room, and the player room only with a player’s token', async () => {
    const open = async (token?: string) => {
      const s = await WsClient.open<ChannelMessage>('/v1/realtime');
      s.send({ type: 'subscribe', channel: `game:${gameId}`, ...(token ? { token } : {}) });
      await s.until('subscribed');
      return s;
    };
    const [spectator, player] = await Promise.all([open(watcher.accessToken), open(black.accessToken)]);
    await say(gameId, white, 'players only', 'player');
    await say(gameId, watcher, 'for all', 'spectator');
    const [forAll] = await Promise.all([heard(spectator, 'for all'), heard(player, 'for all')]);
    assert.equal(forAll.channel, `game:${gameId}`);
    assert.deepEqual(chats(spectator), ['spectator:for all']);
    assert.deepEqual(chats(player), ['player:players only', 'spectator:for all']);
    spectator.close();
    player.close();
  });

  describe('webhooks', () => {
    const hooks = receiverPerTest();

    it("delivers no chat to the players' webhooks", async () => {
      for (const user of [white, black]) {
        const events = ['game.started', 'game.move', 'game.finished'];
        const res = await api('POST', '/v1/webhooks', as(user, { url: hooks.url, events, secret: 'a-secret-of-16-chars-or-more' }));
        assert.equal(res.status, 201, res.text);
      }
      await say(gameId, white, 'webhook secret', 'player');
      await say(gameId, watcher, 'webhook hello', 'spectator');
      await play(gameId, white, 'e2', 'e4');
      const got = await hooks.receiver.waitFor(2);
      assert.deepEqual(got.map((r) => r.json.type), ['game.move', 'game.move']);
      assert.ok(!hooks.receiver.received.some((r) => r.body.includes('webhook')));
    });
  });
});

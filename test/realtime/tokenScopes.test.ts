// DESIGN 2.12: on sockets and streams a personal token sees only what its scopes read over REST.
// Without games:read its own games' streams are a spectator's (no player chat, no pending game)
// and the lobby room sends it no challenges; the game room sends the player chat only to a token
// that may read it.
import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { openGame } from '../../src/gateway/index.ts';
import { personalToken } from '../helpers/credentials.ts';
import { as, challenge } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { leaveRooms, nextMessage } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { WsClient } from '../helpers/ws.ts';
import { insertActiveGame } from '../support/fixtures.ts';

describe("a personal token's scopes on sockets and streams (DESIGN 2.12)", () => {
  let white: TestUser;
  let black: TestUser;
  let watcher: TestUser;
  let gameId: string;
  let sdk: Client;
  const joined: Room[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    [white, black, watcher] = await Promise.all([createUser(), createUser(), createUser()]);
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
    sdk = new Client(service.url.replace('http', 'ws'));
  });

  afterEach(() => leaveRooms(joined.splice(0)));

  /** Black's player-room message, then the watcher's spectator-room one: every viewer hears the second. */
  async function chatBoth(): Promise<void> {
    for (const [user, text, room] of [[black, 'secret plan', 'player'], [watcher, 'hello all', 'spectator']] as const) {
      const res = await api('POST', `/v1/games/${gameId}/chat`, as(user, { text, room }));
      assert.equal(res.status, 201, res.text);
    }
  }

  /** The chat texts a viewer got, up to and with the spectator message every viewer gets. */
  async function chatsUntilSpectator(next: () => Promise<Record<string, any>>): Promise<string[]> {
    const seen: string[] = [];
    for (;;) {
      const m = await next();
      if (m.type !== 'chat') continue;
      seen.push(`${m.room}:${m.message.text}`);
      if (m.message.text === 'hello all') return seen;
    }
  }

  it("streams a player's own game to a token without games:read as to a spectator, WebSocket and NDJSON: no player chat", async () => {
    const { token } = await personalToken(white, ['account:read']);
    const ws = await WsClient.open(`/v1/games/${gameId}/stream?token=${token}`);
    const nd = await NdjsonClient.open(`/v1/games/${gameId}/stream`, { authorization: `Bearer ${token}` });
    await Promise.all([ws.next('state'), nd.next('state')]);
    await chatBoth();
    assert.deepEqual(await chatsUntilSpectator(() => ws.next()), ['spectator:hello all']);
    assert.deepEqual(await chatsUntilSpectator(() => nd.next()), ['spectator:hello all']);
    ws.close();
    nd.close();
  });

  it('streams the player chat to a token with games:read', async () => {
    const { token } = await personalToken(white, ['games:read']);
    const nd = await NdjsonClient.open(`/v1/games/${gameId}/stream`, { authorization: `Bearer ${token}` });
    await nd.next('state');
    await chatBoth();
    assert.deepEqual(await chatsUntilSpectator(() => nd.next()), ['player:secret plan', 'spectator:hello all']);
    nd.close();
  });

  it('sends a game: subscription of a tournaments:write token no player chat', async () => {
    const { token } = await personalToken(white, ['tournaments:write']);
    const socket = await WsClient.open('/v1/realtime');
    socket.send({ type: 'subscribe', channel: `game:${gameId}`, token });
    await socket.next('subscribed');
    await socket.next('state');
    await chatBoth();
    assert.deepEqual(await chatsUntilSpectator(() => socket.next()), ['spectator:hello all']);
    socket.close();
  });

  it("shows a token without games:read its pending challenge as it shows anyone: GAME_NOT_FOUND on the stream, the channel and GET /games/{id}", async () => {
    const [from, to] = await Promise.all([createUser(), createUser()]);
    const pending = await challenge(from, to);
    const { token } = await personalToken(to, ['account:read']);
    const nd = await NdjsonClient.open(`/v1/games/${pending}/stream`, { authorization: `Bearer ${token}` });
    assert.deepEqual([nd.status, nd.body.error.code], [404, 'GAME_NOT_FOUND']);
    const ws = await WsClient.open(`/v1/games/${pending}/stream?token=${token}`);
    assert.equal((await ws.next('error')).code, 'GAME_NOT_FOUND');
    assert.equal((await ws.closed).code, 4404);
    const socket = await WsClient.open('/v1/realtime');
    socket.send({ type: 'subscribe', channel: `game:${pending}`, token });
    assert.equal((await socket.next('error')).code, 'GAME_NOT_FOUND');
    socket.close();
    const rest = await api('GET', `/v1/games/${pending}`, { token, ip: to.ip });
    assert.deepEqual([rest.status, rest.body.error.code], [404, 'GAME_NOT_FOUND']);
    // With games:read it is the player's, everywhere.
    const reader = await personalToken(to, ['games:read']);
    assert.equal((await api('GET', `/v1/games/${pending}`, { token: reader.token, ip: to.ip })).status, 200);
    const mine = await NdjsonClient.open(`/v1/games/${pending}/stream`, { authorization: `Bearer ${reader.token}` });
    assert.equal((await mine.next('state')).game.status, 'pending');
    mine.close();
  });

  it('sends no challenges to a lobby socket of a token without games:read; a games:read one gets them', async () => {
    const [target, alice, bob] = await Promise.all([createUser(), createUser(), createUser()]);
    await challenge(alice, target);
    const blind = await sdk.joinOrCreate('lobby', { token: (await personalToken(target, ['puzzles:write'])).token });
    joined.push(blind);
    const blindChallenges: unknown[] = [];
    blind.onMessage('challenges', (m: unknown) => blindChallenges.push(m));
    blind.onMessage('game_started', () => {});
    const reader = await sdk.joinOrCreate('lobby', { token: (await personalToken(target, ['games:read'])).token });
    joined.push(reader);
    await challengesUntil(reader, 1);
    // A change of the user's challenges reaches every socket that follows them: the reader's
    // second list comes after anything the other socket would have been sent.
    const second = challengesUntil(reader, 2);
    await challenge(bob, target);
    await second;
    assert.deepEqual(blindChallenges, []);
  });

  it('sends the player chat in the game room only to a seat whose token has games:read', async () => {
    assert.equal(await openGame(gameId), true);
    const join = async (scopes: string[]) => {
      const room = await sdk.joinById(gameId, { token: (await personalToken(white, scopes)).token });
      joined.push(room);
      const chats: string[] = [];
      const spectatorSaid = new Promise<void>((resolve) =>
        room.onMessage('chat', (m: { room: string; message: { text: string } }) => {
          chats.push(`${m.room}:${m.message.text}`);
          if (m.message.text === 'hello all') resolve();
        }),
      );
      return { chats, spectatorSaid };
    };
    const player = await join(['games:play']);
    const reader = await join(['games:play', 'games:read']);
    await chatBoth();
    await Promise.all([player.spectatorSaid, reader.spectatorSaid]);
    assert.deepEqual(player.chats, ['spectator:hello all']);
    assert.deepEqual(reader.chats, ['player:secret plan', 'spectator:hello all']);
  });
});

/** Takes the lobby's `challenges` messages one by one until one holds `count` challenges. */
async function challengesUntil(room: Room, count: number): Promise<void> {
  for (let i = 0; i < 10; i++) if ((await nextMessage(room, 'challenges')).challenges.length === count) return;
  assert.fail(`no challenges message with ${count} challenges`);
}

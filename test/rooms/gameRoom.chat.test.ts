import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { matchMaker } from '@colyseus/core';
import { openGame } from '../../src/gateway/index.ts';
import { insertActiveGame } from '../support/fixtures.ts';
import { as } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { expectError, expectOk, leaveRooms, nextMessage } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// DESIGN 2.11 "Chat" in the game's room, with real SDK clients: two players, a signed-in watcher
// and an anonymous one.

type Heard = { room: string; message: { text: string; user: { id: string } } };

describe('GameRoom chat', () => {
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
    assert.equal(await openGame(gameId), true);
    sdk = new Client(service.url.replace('http', 'ws'));
  });

  afterEach(async () => {
    await leaveRooms(joined);
  });

  /** Joins and records every `chat` the client is sent. */
  const join = async (token?: string) => {
    const room = await sdk.joinById(gameId, token ? { token } : {});
    joined.push(room);
    const heard: Heard[] = [];
    room.onMessage('chat', (m: Heard) => heard.push(m));
    await new Promise<void>((resolve) => (room.state?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return { room, heard };
  };

  const joinAll = async () => {
    const [w, b, s, anon] = await Promise.all([join(white.accessToken), join(black.accessToken), join(watcher.accessToken), join()]);
    return { w, b, s, anon };
  };

  /** Waits until the client has heard a chat with `text`. */
  const hears = (client: { heard: Heard[] }, text: string) => until(`chat "${text}"`, () => client.heard.some((h) => h.message.text === text), { ms: 5000 });
  const textsOf = (client: { heard: Heard[] }) => client.heard.map((h) => `${h.room}:${h.message.text}`);

  it('answers a player-room message with chat:ok and tells both players, never a spectator', async () => {
    const { w, b, s, anon } = await joinAll();
    // Listened for first: the message may reach the opponent before the sender's chat:ok.
    const toBlack = nextMessage(b.room, 'chat');
    const { message: ok } = await expectOk(w.room, 'chat', { text: '  have fun  ', room: 'player' });
    assert.equal(ok.text, 'have fun');
    assert.equal(ok.room, 'player');
    assert.deepEqual(ok.user, { id: white.id, username: white.username });
    const heard = await toBlack;
    assert.deepEqual(heard, { room: 'player', message: { id: ok.id, room: 'player', user: ok.user, text: 'have fun', created_at: ok.created_at } });
    await hears(w, 'have fun');
    // A spectator-room message after it reaches the spectators: the player's went by on the same channel before it.
    await expectOk(s.room, 'chat', { text: 'nice', room: 'spectator' });
    await Promise.all([hears(s, 'nice'), hears(anon, 'nice'), hears(w, 'nice'), hears(b, 'nice')]);
    assert.deepEqual(textsOf(s), ['spectator:nice']);
    assert.deepEqual(textsOf(anon), ['spectator:nice']);
    assert.deepEqual(textsOf(b), ['player:have fun', 'spectator:nice']);
  });

  it('tells the room a message sent over REST, the player room to the players only', async () => {
    const { w, b, s, anon } = await joinAll();
    assert.equal((await api('POST', `/v1/games/${gameId}/chat`, as(black, { text: 'from REST', room: 'player' }))).status, 201);
    assert.equal((await api('POST', `/v1/games/${gameId}/chat`, as(watcher, { text: 'watching', room: 'spectator' }))).status, 201);
    await Promise.all([hears(w, 'watching'), hears(b, 'watching'), hears(s, 'watching'), hears(anon, 'watching')]);
    assert.deepEqual(textsOf(w), ['player:from REST', 'spectator:watching']);
    assert.deepEqual(textsOf(b), ['player:from REST', 'spectator:watching']);
    assert.deepEqual(textsOf(s), ['spectator:watching']);
    assert.deepEqual(textsOf(anon), ['spectator:watching']);
  });

  it('refuses what the REST route refuses, with the same codes', async () => {
    const { w, s, anon } = await joinAll();
    assert.equal((await expectError(anon.room, 'chat', { text: 'hi', room: 'spectator' })).code, 'UNAUTHORIZED');
    assert.equal((await expectError(s.room, 'chat', { text: 'hi', room: 'player' })).code, 'NOT_A_PLAYER');
    assert.equal((await expectError(w.room, 'chat', { text: 'hi', room: 'spectator' })).code, 'FORBIDDEN');
    const invalid = await expectError(w.room, 'chat', { text: 'x'.repeat(141), room: 'player' });
    assert.equal(invalid.code, 'VALIDATION_ERROR');
    assert.ok(invalid.details?.text);
    const badRoom = await expectError(w.room, 'chat', { text: 'hi', room: 'everyone' });
    assert.ok(badRoom.details?.room);
    assert.equal((await expectError(w.room, 'chat', { text: 12, room: 'player' })).code, 'VALIDATION_ERROR');
    const stored = await api('GET', `/v1/games/${gameId}/chat?room=player`, as(white));
    assert.deepEqual(stored.body.data, []);
  });

  it('masks offensive words in what it tells', async () => {
    const { w, b } = await joinAll();
    const toBlack = nextMessage(b.room, 'chat');
    assert.equal((await expectOk(w.room, 'chat', { text: 'shit happens', room: 'player' })).message.text, '**** happens');
    assert.equal((await toBlack).message.text, '**** happens');
  });

  it("stops telling a player who muted the game the opponent's messages; the sender still sees theirs", async () => {
    const { w, b } = await joinAll();
    assert.equal((await api('POST', `/v1/games/${gameId}/chat/mute`, as(white))).status, 200);
    await expectOk(b.room, 'chat', { text: 'you will lose', room: 'player' });
    await hears(b, 'you will lose');
    await expectOk(w.room, 'chat', { text: 'hello?', room: 'player' });
    await Promise.all([hears(w, 'hello?'), hears(b, 'hello?')]);
    assert.deepEqual(textsOf(w), ['player:hello?']);
    assert.deepEqual(textsOf(b), ['player:you will lose', 'player:hello?']);
    assert.equal((await api('DELETE', `/v1/games/${gameId}/chat/mute`, as(white))).status, 200);
    await expectOk(b.room, 'chat', { text: 'sorry', room: 'player' });
    await hears(w, 'sorry');
  });

  it('keeps the messages once the room is gone', async () => {
    const { w, b, s, anon } = await joinAll();
    await expectOk(w.room, 'chat', { text: 'good game', room: 'player' });
    for (const r of [w.room, b.room, s.room, anon.room]) r.onMessage('game_end', () => {});
    await expectOk(b.room, 'resign');
    // Players may talk to the spectators once it is over.
    await expectOk(w.room, 'chat', { text: 'thanks all', room: 'spectator' });
    await leaveRooms(joined);
    await until('the room is gone', () => matchMaker.getLocalRoomById(gameId) === undefined, { ms: 5000 });
    const player = await api('GET', `/v1/games/${gameId}/chat?room=player`, as(black));
    assert.deepEqual(player.body.data.map((m: { text: string }) => m.text), ['good game']);
    const spectator = await api('GET', `/v1/games/${gameId}/chat?room=spectator`, as(watcher));
    assert.deepEqual(spectator.body.data.map((m: { text: string }) => m.text), ['thanks all']);
  });
});

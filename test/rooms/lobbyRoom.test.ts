import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import type { Channel } from '../../src/events.ts';
import { channels } from '../../src/services/channelEvents.ts';
import type { SeekView } from '../../src/services/seekViews.ts';
import { insertUser } from '../support/fixtures.ts';
import { as, challenge } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { leaveRooms } from '../helpers/rooms.ts';

type Message = Record<string, any>;

/** Every message of the watched types from the moment of joining, so none slips by a test. */
class Inbox {
  private messages: { type: string; body: Message }[] = [];
  private waiters: { type: string; match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];

  constructor(room: Room, types: string[]) {
    for (const type of types) room.onMessage(type, (body: Message) => this.receive(type, body));
  }

  private receive(type: string, body: Message): void {
    const waiter = this.waiters.find((w) => w.type === type && w.match(body));
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      return waiter.resolve(body);
    }
    this.messages.push({ type, body });
  }

  /** The first message of `type` (received or to come) that `match` accepts; earlier ones are dropped. */
  next(type: string, match: (m: Message) => boolean = () => true, timeoutMs = 3000): Promise<Message> {
    const i = this.messages.findIndex((m) => m.type === type && match(m.body));
    if (i >= 0) {
      const [found] = this.messages.splice(0, i + 1).slice(-1);
      return Promise.resolve(found.body);
    }
    return new Promise((resolve, reject) => {
      const waiter = { type, match, resolve: (m: Message) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no matching ${type} within ${timeoutMs} ms; got ${JSON.stringify(this.messages)}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  count(type: string): number {
    return this.messages.filter((m) => m.type === type).length;
  }
}

type Watcher = { room: Room; inbox: Inbox };

/** Resolves once `done(state)` holds, checked now and after every patch; returns when it did. */
function waitForState(room: Room, done: (state: any) => boolean, timeoutMs = 3000): Promise<number> {
  return new Promise((resolve, reject) => {
    if (room.state && done(room.state)) return resolve(Date.now());
    const timer = setTimeout(() => {
      room.onStateChange.remove(check);
      reject(new Error(`lobby state never matched within ${timeoutMs} ms`));
    }, timeoutMs);
    const check = (state: any) => {
      if (!done(state)) return;
      clearTimeout(timer);
      room.onStateChange.remove(check);
      resolve(Date.now());
    };
    room.onStateChange(check);
  });
}

const seekView = (o: Partial<SeekView> = {}): SeekView => ({
  id: randomUUID(),
  user: { id: randomUUID(), username: `seeker_${randomInt(1e6)}`, rating: 1612 },
  time_control: 'rapid',
  initial_time: 600,
  increment: 5,
  rated: true,
  color: 'random',
  created_at: new Date().toISOString(),
  expires_at: new Date(Date.now() + 60_000).toISOString(),
  ...o,
});

describe('LobbyRoom over Colyseus', () => {
  let sdk: Client;
  const joined: Room[] = [];

  const publish = async <Event>(channel: Channel<Event>, event: NoInfer<Event>) => (await testService()).service.ctx.events.publish(channel, event);

  const join = async (token?: string): Promise<Watcher> => {
    const room = await sdk.joinOrCreate('lobby', token ? { token } : {});
    joined.push(room);
    const inbox = new Inbox(room, ['challenges', 'game_started', 'error']);
    await new Promise<void>((resolve) => (room.state?.seeks ? resolve() : room.onStateChange.once(() => resolve())));
    return { room, inbox };
  };

  const leaveAll = async () => {
    await leaveRooms(joined);
  };

  /** Once its last watcher left, the lobby goes; the next join loads a fresh one from the database. */
  const lobbyGone = async () => {
    for (let i = 0; i < 100 && (await matchMaker.query({ name: 'lobby' })).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await matchMaker.query({ name: 'lobby' })).length, 0, 'the lobby was not disposed');
  };

  beforeEach(async () => {
    const { service } = await testService();
    sdk = new Client(service.url.replace('http', 'ws'));
  });

  afterEach(leaveAll);

  it('lets anyone watch without a token', async () => {
    const { room } = await join();
    assert.equal(typeof (room.state as any).seeks.size, 'number');
  });

  it('refuses to join with an invalid token', async () => {
    await assert.rejects(sdk.joinOrCreate('lobby', { token: 'not-a-token' }));
  });

  it('lists a seek when it is announced and drops it when it is removed', async () => {
    const { room } = await join();
    const seek = seekView();
    await publish(channels.lobby, { type: 'seek_added', seek, ts: 1 });
    await waitForState(room, (s) => s.seeks.has(seek.id));
    const shown = (room.state as any).seeks.get(seek.id);
    assert.deepEqual(
      {
        userId: shown.userId,
        username: shown.username,
        rating: shown.rating,
        timeControl: shown.timeControl,
        initialTime: shown.initialTime,
        increment: shown.increment,
        rated: shown.rated,
        color: shown.color,
        createdAt: shown.createdAt,
        expiresAt: shown.expiresAt,
      },
      {
        userId: seek.user.id,
        username: seek.user.username,
        rating: 1612,
        timeControl: 'rapid',
        initialTime: 600,
        increment: 5,
        rated: true,
        color: 'random',
        createdAt: seek.created_at,
        expiresAt: Date.parse(seek.expires_at),
      },
    );
    await publish(channels.lobby, { type: 'seek_removed', id: seek.id, reason: 'cancelled', ts: 1 });
    await waitForState(room, (s) => !s.seeks.has(seek.id));
  });

  it('drops a seek once it is past its expiry, without being told', async () => {
    const { room } = await join();
    const expiresAt = Date.now() + 1000;
    const seek = seekView({ expires_at: new Date(expiresAt).toISOString() });
    await publish(channels.lobby, { type: 'seek_added', seek, ts: 1 });
    await waitForState(room, (s) => s.seeks.has(seek.id));
    const goneAt = await waitForState(room, (s) => !s.seeks.has(seek.id), 3000);
    assert.ok(goneAt >= expiresAt, 'dropped before its expiry');
    assert.ok(goneAt - expiresAt < 1500, `dropped ${goneAt - expiresAt} ms after its expiry`);
  });

  it('starts from the open seeks in the database, and stops listening when it goes', async () => {
    const { service } = await testService();
    const { pool } = service.ctx;
    await lobbyGone();
    assert.deepEqual(await matchMaker.presence.channels(channels.lobby), []);
    const userId = await insertUser(pool);
    const { rows } = await pool.query(
      `INSERT INTO games (kind, created_by, white_id, color_preference, status, time_control, initial_time, increment, rated,
                          white_time_ms, black_time_ms, expires_at)
       VALUES ('matchmaking', $1, $1, 'black', 'pending', 'classical', 1800, 30, false, 1800000, 1800000, now() + interval '1 minute')
       RETURNING id`,
      [userId],
    );
    const seekId: string = rows[0].id;
    try {
      const { room } = await join();
      const shown = (room.state as any).seeks.get(seekId);
      assert.ok(shown, 'the seek from the database is listed');
      assert.equal(shown.userId, userId);
      assert.equal(shown.rating, 1500);
      assert.deepEqual([shown.timeControl, shown.initialTime, shown.increment, shown.rated, shown.color], ['classical', 1800, 30, false, 'black']);
      await leaveAll();
      await lobbyGone();
      assert.deepEqual(await matchMaker.presence.channels(channels.lobby), []);
    } finally {
      await pool.query(`UPDATE games SET status = 'abandoned', abort_reason = 'cancelled' WHERE id = $1`, [seekId]);
    }
  });

  it("sends a logged-in watcher its incoming and outgoing challenges", async () => {
    const [alice, bob, carol] = await Promise.all([createUser(), createUser(), createUser()]);
    const fromAlice = await challenge(alice, bob, { color: 'black', rated: false });
    const toCarol = await challenge(bob, carol);
    const { inbox } = await join(bob.accessToken);
    const { challenges } = await inbox.next('challenges');
    const byId = new Map<string, Message>(challenges.map((c: Message) => [c.id, c]));
    assert.equal(challenges.length, 2);
    const incoming = byId.get(fromAlice)!;
    assert.deepEqual(
      { ...incoming, expires_at: typeof incoming.expires_at },
      {
        id: fromAlice,
        from: { id: alice.id, username: alice.username },
        to: { id: bob.id, username: bob.username },
        time_control: 'blitz',
        initial_time: 300,
        increment: 0,
        rated: false,
        color: 'black',
        expires_at: 'string',
        direction: 'incoming',
      },
    );
    assert.ok(Date.parse(incoming.expires_at) > Date.now());
    const outgoing = byId.get(toCarol)!;
    assert.deepEqual([outgoing.direction, outgoing.from.id, outgoing.to.username], ['outgoing', bob.id, carol.username]);
  });

  it('sends the challenges again when its user channel says they changed', async () => {
    const { service } = await testService();
    const [alice, bob] = await Promise.all([createUser(), createUser()]);
    const id = await challenge(alice, bob);
    const { inbox } = await join(bob.accessToken);
    assert.equal((await inbox.next('challenges')).challenges.length, 1);
    // Changed behind the lobby's back: only the event makes it look again.
    await service.ctx.pool.query(`UPDATE games SET status = 'abandoned', abort_reason = 'cancelled' WHERE id = $1`, [id]);
    await publish(channels.user(bob.id), { type: 'challenges_changed', ts: 1 });
    assert.deepEqual((await inbox.next('challenges')).challenges, []);
  });

  it('shows a challenge made over REST to the challenged player at once', async () => {
    const [alice, bob] = await Promise.all([createUser(), createUser()]);
    const { inbox } = await join(bob.accessToken);
    assert.deepEqual((await inbox.next('challenges')).challenges, []);
    const id = await challenge(alice, bob);
    const { challenges } = await inbox.next('challenges', (m) => m.challenges.length > 0);
    assert.deepEqual(challenges.map((c: Message) => [c.id, c.direction]), [[id, 'incoming']]);
  });

  it("relays the watcher's game_started events, and only its own", async () => {
    const [alice, bob] = await Promise.all([createUser(), createUser()]);
    const { room: bobRoom, inbox } = await join(bob.accessToken);
    const { room: anonymousRoom, inbox: anonymous } = await join();
    const gameId = randomUUID();
    await publish(channels.user(alice.id), { type: 'game_started', game_id: randomUUID(), ts: 1 });
    await publish(channels.user(bob.id), { type: 'game_started', game_id: gameId, seek_id: 'seek-1', ts: 1 });
    const started = await inbox.next('game_started');
    assert.deepEqual(started, { type: 'game_started', game_id: gameId, seek_id: 'seek-1', ts: 1 });
    // Alice's event was published first, and whatever the room relayed on hearing Bob's is ahead
    // of its answer to a message sent now (one socket, in order): once that answer is in, anything
    // relayed wrongly would be too.
    for (const [room, box] of [[bobRoom, inbox], [anonymousRoom, anonymous]] as const) {
      room.send('anything');
      await box.next('error');
    }
    assert.equal(inbox.count('game_started'), 0);
    assert.equal(anonymous.count('game_started'), 0);
  });

  it('sends the challenges again to a watcher who reconnects after a drop', async () => {
    const [alice, bob] = await Promise.all([createUser(), createUser()]);
    const id = await challenge(alice, bob);
    const { room, inbox } = await join(bob.accessToken);
    assert.equal((await inbox.next('challenges')).challenges.length, 1);
    room.reconnection.minUptime = 0;
    room.reconnection.minDelay = 10;
    const back = new Promise<void>((resolve) => room.onReconnect(() => resolve()));
    (room.connection as any).transport.ws.terminate(); // the network drops: close code 1006, no leave
    await back;
    const again = await inbox.next('challenges');
    assert.deepEqual(again.challenges.map((c: Message) => c.id), [id]);
  });

  it("stops listening to a user's channel when they leave", async () => {
    const bob = await createUser();
    const { room } = await join(bob.accessToken);
    assert.deepEqual(await matchMaker.presence.channels(channels.user(bob.id)), [channels.user(bob.id)]);
    await room.leave();
    for (let i = 0; i < 40 && (await matchMaker.presence.channels(channels.user(bob.id))).length; i++) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(await matchMaker.presence.channels(channels.user(bob.id)), []);
  });

  describe('with the seek pool', () => {
    // A blitz pool of its own per test (estimate 180..479 s), so no other seek can pair with ours.
    const ownPool = () => ({ time_control: 'blitz', initial_time: randomInt(200, 470), increment: 0, rated: false });
    const seek = (user: TestUser, pool: object) => api('POST', '/v1/games', as(user, { type: 'matchmaking', color: 'random', ...pool }));

    it('lists a REST seek and drops it when the seeker is paired', async function () {
      const [alice, bob] = await Promise.all([createUser(), createUser()]);
      const { room, inbox } = await join(alice.accessToken);
      const pool = ownPool();
      const first = await seek(alice, pool);
      assert.equal(first.status, 201, first.text);
      assert.equal(first.body.data.status, 'pending');
      const seekId = first.body.data.id;
      await waitForState(room, (s) => s.seeks.get(seekId)?.username === alice.username);
      const expiresAt = (room.state as any).seeks.get(seekId).expiresAt;
      const second = await seek(bob, pool);
      assert.equal(second.status, 201, second.text);
      assert.equal(second.body.data.status, 'active');
      const goneAt = await waitForState(room, (s) => !s.seeks.has(seekId));
      assert.ok(goneAt < expiresAt, 'removed by the pairing, not by its expiry');
      const started = await inbox.next('game_started');
      assert.equal(started.game_id, second.body.data.id);
    });

    it('drops a REST seek when the seeker cancels it', async function () {
      const alice = await createUser();
      const { room } = await join();
      const first = await seek(alice, ownPool());
      assert.equal(first.status, 201, first.text);
      const seekId = first.body.data.id;
      await waitForState(room, (s) => s.seeks.has(seekId));
      const expiresAt = (room.state as any).seeks.get(seekId).expiresAt;
      const cancelled = await api('POST', `/v1/games/${seekId}/cancel`, as(alice));
      assert.equal(cancelled.status, 200, cancelled.text);
      const goneAt = await waitForState(room, (s) => !s.seeks.has(seekId));
      assert.ok(goneAt < expiresAt, 'removed by the cancel, not by its expiry');
    });
  });

  describe('the matchmake route', () => {
    const refuses = async (method: string, room: string) => {
      const res = await api('POST', `/matchmake/${method}/${room}`, { body: { gameId: randomUUID() } });
      assert.equal(res.status, 404, `${method} ${room}: ${res.text}`);
      assert.equal(res.body?.error?.code, 'NOT_FOUND');
    };

    it("refuses joinOrCreate, create and join for 'game' with the 404 envelope", async () => {
      for (const method of ['joinOrCreate', 'create', 'join']) await refuses(method, 'game');
    });

    // joinOrCreate of a seek pool is the realtime seekers' way in (src/server.ts MATCHMAKE_BY_NAME).
    it("refuses create and join for 'seek_pool' with the 404 envelope", async () => {
      for (const method of ['create', 'join']) await refuses(method, 'seek_pool');
    });

    it('refuses joinOrCreate for unknown and disguised room names', async () => {
      for (const room of ['nope', 'lobby%20', 'lobby/x', 'Lobby']) await refuses('joinOrCreate', room);
    });

    it("refuses create and join for 'lobby': clients reach the one lobby with joinOrCreate", async () => {
      for (const method of ['create', 'join']) await refuses(method, 'lobby');
    });

    it("allows joinOrCreate for 'lobby' and answers a seat reservation", async () => {
      const res = await api('POST', '/matchmake/joinOrCreate/lobby', { body: {} });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'lobby');
      assert.equal(typeof res.body.sessionId, 'string');
      // Take the seat, so the reservation does not keep the lobby alive for 15 s.
      joined.push(await sdk.consumeSeatReservation(res.body));
    });
  });
});

import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import { poolId } from '../../src/domain/pairing.ts';
import type { SeekPoolRoom } from '../../rooms/SeekPoolRoom.ts';
import { as, getGame, uniquePool } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { command, expectError, leaveRooms, type Message } from '../helpers/rooms.ts';
import { sleep } from '../../src/time.ts';

type Pool = ReturnType<typeof uniquePool> & { rated: boolean };
type Color = 'white' | 'black' | 'random';

/** Every message of the watched types from the moment of joining, so none slips by a test. */
class Inbox {
  private messages: { type: string; body: Message }[] = [];
  private waiters: { type: string; resolve: (m: Message) => void }[] = [];

  constructor(room: Room, types: string[]) {
    for (const type of types) room.onMessage(type, (body: Message) => this.receive(type, body));
  }

  private receive(type: string, body: Message): void {
    const waiter = this.waiters.find((w) => w.type === type);
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      return waiter.resolve(body);
    }
    this.messages.push({ type, body });
  }

  next(type: string, timeoutMs = 3000): Promise<Message> {
    const i = this.messages.findIndex((m) => m.type === type);
    if (i >= 0) return Promise.resolve(this.messages.splice(i, 1)[0].body);
    return new Promise((resolve, reject) => {
      const waiter = { type, resolve: (m: Message) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no ${type} within ${timeoutMs} ms; got ${JSON.stringify(this.messages)}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  types(): string[] {
    return this.messages.map((m) => m.type);
  }
}

type Seeker = { room: Room; inbox: Inbox };

const newPool = (): Pool => ({ ...uniquePool(), rated: true });

function restSeek(user: TestUser, pool: Pool, color: Color = 'random'): Promise<ApiResponse> {
  return api('POST', '/v1/games', as(user, { type: 'matchmaking', ...pool, color }));
}

async function view(id: string, user: TestUser): Promise<any> {
  const res = await getGame(id, user);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function pollGame(id: string, user: TestUser, done: (g: any) => boolean, timeoutMs = 3000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const g = await view(id, user);
    if (done(g) || Date.now() > until) return g;
    await sleep(200);
  }
}

/** Sends a command to a GameRoom and resolves with its answer: `<name>:ok` or `error`. */

describe('SeekPoolRoom over Colyseus', () => {
  let sdk: Client;
  const joined: Room[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    // An address of its own per test: socket seeks count against a per-address limit.
    sdk = new Client(service.url.replace('http', 'ws'), { headers: { 'x-forwarded-for': newIp() } });
  });

  afterEach(async () => {
    await leaveRooms(joined);
  });

  const joinPool = async (user: TestUser | undefined, pool: Pool, color: Color = 'random', extra: object = {}): Promise<Seeker> => {
    const room = await sdk.joinOrCreate('seek_pool', { ...pool, color, ...(user ? { token: user.accessToken } : {}), ...extra });
    joined.push(room);
    return { room, inbox: new Inbox(room, ['seeking', 'paired', 'error']) };
  };

  /** Joins the game of a `paired` message with its reservation, as the paired player. */
  const takeSeat = async (paired: Message): Promise<Room> => {
    assert.ok(paired.reservation, 'paired without a seat reservation');
    const room = await sdk.consumeSeatReservation(paired.reservation);
    joined.push(room);
    await new Promise<void>((resolve) => ((room.state as any)?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return room;
  };

  it('tells a realtime seeker it is seeking, then seats it when a REST seeker arrives', async () => {
    const [socketUser, restUser] = await Promise.all([createUser(), createUser()]);
    const pool = newPool();
    const seeker = await joinPool(socketUser, pool, 'white');
    const seeking = await seeker.inbox.next('seeking');
    assert.match(seeking.seek_id, /^[0-9a-f-]{36}$/);
    assert.ok(Date.parse(seeking.expires_at) > Date.now(), 'expires_at is in the future');

    const res = await restSeek(restUser, pool);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'active');
    assert.equal(res.body.data.id, seeking.seek_id, "the socket seeker's seek became the game");
    assert.deepEqual([res.body.data.white_player.id, res.body.data.black_player.id], [socketUser.id, restUser.id]);

    const paired = await seeker.inbox.next('paired');
    assert.equal(paired.game_id, seeking.seek_id);
    const game = await takeSeat(paired);
    const state = game.state as any;
    assert.equal(state.gameId, paired.game_id);
    assert.equal(state.white.id, socketUser.id);
    const move = await command(game, 'move', { from: 'e2', to: 'e4' });
    assert.equal(move.type, 'move:ok', JSON.stringify(move.body));
    assert.equal(move.body.game.move_count, 1);
    assert.equal((await view(paired.game_id, restUser)).move_count, 1, 'the REST player sees the socket move');
  });

  it('pairs a realtime seeker at once with a waiting REST seeker', async () => {
    const [restUser, socketUser] = await Promise.all([createUser(), createUser()]);
    const pool = newPool();
    const pending = await restSeek(restUser, pool, 'white');
    assert.equal(pending.body.data.status, 'pending', pending.text);
    const seeker = await joinPool(socketUser, pool);
    const paired = await seeker.inbox.next('paired');
    assert.equal(paired.game_id, pending.body.data.id);
    assert.ok(!seeker.inbox.types().includes('seeking'), 'a seeker paired on arrival is never told to wait');
    const game = await takeSeat(paired);
    assert.equal((game.state as any).black.id, socketUser.id);
    const detail = await view(pending.body.data.id, restUser);
    assert.equal(detail.status, 'active');
    assert.deepEqual([detail.white_player.id, detail.black_player.id], [restUser.id, socketUser.id]);
    const refusal = await expectError(game, 'move', { from: 'e7', to: 'e5' });
    assert.equal(refusal.code, 'NOT_YOUR_TURN', 'seated as Black');
  });

  it('pairs two realtime seekers with each other, each with a seat of their own', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const pool = newPool();
    const first = await joinPool(a, pool, 'black');
    const seeking = await first.inbox.next('seeking');
    const second = await joinPool(b, pool);
    const [pairedA, pairedB] = await Promise.all([first.inbox.next('paired'), second.inbox.next('paired')]);
    assert.equal(pairedA.game_id, seeking.seek_id);
    assert.equal(pairedB.game_id, seeking.seek_id);
    const [roomA, roomB] = [await takeSeat(pairedA), await takeSeat(pairedB)];
    assert.equal((await command(roomB, 'move', { from: 'e2', to: 'e4' })).type, 'move:ok', 'b plays White');
    assert.equal((await command(roomA, 'move', { from: 'e7', to: 'e5' })).type, 'move:ok', 'a plays Black');
  });

  it('cancels the seek when the realtime seeker leaves', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const pool = newPool();
    const seeker = await joinPool(a, pool);
    const { seek_id } = await seeker.inbox.next('seeking');
    await seeker.room.leave();
    const game = await pollGame(seek_id, a, (g) => g.status !== 'pending', 1500);
    assert.equal(game.status, 'abandoned');
    assert.equal(game.abort_reason, 'cancelled');
    const res = await restSeek(b, pool);
    assert.equal(res.body.data.status, 'pending', 'nobody is paired with a seeker who left');
  });

  it('refuses a seeker who already has an open seek with PLAYER_BUSY', async () => {
    const a = await createUser();
    assert.equal((await restSeek(a, newPool())).body.data.status, 'pending');
    await assert.rejects(joinPool(a, newPool()), (err: Error) => /PLAYER_BUSY/.test(err.message));
  });

  it('refuses a seeker without a token, or with an invalid one', async () => {
    await assert.rejects(joinPool(undefined, newPool()));
    await assert.rejects(joinPool(undefined, newPool(), 'random', { token: 'not-a-token' }));
  });

  it('refuses an invalid pool: a time control that does not match the clock', async () => {
    const a = await createUser();
    await assert.rejects(joinPool(a, { time_control: 'bullet', initial_time: 300, increment: 0, rated: true } as unknown as Pool));
  });

  it('refuses join options that do not name a pool, even when another pool is open', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const open = newPool();
    const waiting = await joinPool(a, open);
    const { seek_id } = await waiting.inbox.next('seeking');
    // filterBy only compares the options given: without them any open pool would match.
    for (const options of [{}, { time_control: 'blitz' }, { ...open, rated: 'true' }]) {
      const outcome = await sdk.joinOrCreate('seek_pool', { ...options, token: b.accessToken }).then(
        (r) => (joined.push(r), `joined ${r.roomId}`),
        (err: Error) => err.message,
      );
      assert.match(outcome, /VALIDATION_ERROR/, `${JSON.stringify(options)} put the seeker in some pool`);
    }
    assert.equal((await view(seek_id, a)).status, 'pending', 'the waiting seeker was paired with nobody');
  });

  it('rebuilds a pool from PostgreSQL after its node died: an acknowledged seek is paired, new seeks are told to retry meanwhile', async () => {
    const { service } = await testService();
    const [a, b, c] = await Promise.all([createUser(), createUser(), createUser()]);
    const pool = newPool();
    const id = poolId({ timeControl: pool.time_control, initialTime: pool.initial_time, increment: pool.increment, rated: pool.rated });
    const acknowledged = await restSeek(a, pool);
    assert.equal(acknowledged.body.data.status, 'pending', acknowledged.text);
    // The seek must outlive this test's detour (SEEK_TTL_SECONDS is 2 in tests).
    await service.ctx.pool.query(`UPDATE games SET expires_at = now() + interval '30 seconds' WHERE id = $1`, [acknowledged.body.data.id]);

    // The node dies: its pool stops pairing and never releases its lease.
    const room = matchMaker.getLocalRoomById(id) as SeekPoolRoom;
    assert.ok(room, 'the pool room runs in this process');
    (room.pool as unknown as { timers: { clearAll(): void } }).timers.clearAll();
    room.pool.close = async () => {};
    await room.disconnect();

    // While the dead node's lease runs, nobody else may host the pool: a seek is told to retry.
    const meanwhile = await restSeek(b, pool);
    assert.equal(meanwhile.status, 503, meanwhile.text);
    assert.equal(meanwhile.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.ok(Number(meanwhile.headers.get('retry-after')) >= 1, 'with Retry-After');
    await assert.rejects(joinPool(b, pool), (err: Error) => /^SERVICE_UNAVAILABLE: /.test(err.message), 'a socket seeker is told to retry too');

    // The lease lapses; the next seek re-creates the pool, which reads the waiting seek back.
    await service.ctx.pool.query(`UPDATE seek_pools SET lease_expires_at = now() - interval '1 second' WHERE pool = $1`, [id]);
    const res = await restSeek(c, pool);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'active');
    assert.equal(res.body.data.id, acknowledged.body.data.id, 'paired with the seek acknowledged before the crash');
    assert.deepEqual([res.body.data.white_player.id, res.body.data.black_player.id].sort(), [a.id, c.id].sort());
    const { rows } = await service.ctx.pool.query('SELECT host_epoch FROM seek_pools WHERE pool = $1', [id]);
    assert.equal(Number(rows[0].host_epoch), 2, 'the new actor holds the next epoch');
    assert.equal((await restSeek(b, newPool())).body.data.status, 'pending', 'the refused seeker left nothing behind');
  });
});

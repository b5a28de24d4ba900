import assert from 'node:assert/strict';
import type { Room } from '@colyseus/sdk';
import { joinWhenServed, nodeIdOf, queryRow, twoNodesOverRedis } from '../helpers/cluster.ts';
import { until } from '../helpers/poll.ts';
import { requestJson, type ServiceProcess } from '../support/process.ts';
import { WsClient, type WsMessage } from '../helpers/ws.ts';

/**
 * Chat across nodes (DESIGN 2.11): a message sent over REST to the node that does not host the
 * game reaches the room's players on the other node, and a stream there, through the event bus;
 * the player room still reaches no spectator. Needs REDIS_URL (CI sets it).
 */
describe('Chat across two nodes (REDIS_URL)', function () {
  this.timeout(60_000);
  const cluster = twoNodesOverRedis('chat');

  const call = (node: ServiceProcess, method: string, path: string, body?: unknown, token?: string) => requestJson(`${node.base}/v1`, method, path, body, token);

  it("tells a message sent on one node to the game's room and streams on the other", async () => {
    const [a, b] = cluster.nodes;
    const tag = Date.now().toString(36);
    const signup = async (name: string) =>
      (await call(a, 'POST', '/auth/signup', { email: `${name}@example.com`, password: 'cluster-test-1', username: name })).body.data;
    const [white, black, watcher] = await Promise.all([signup(`ch_w${tag}`), signup(`ch_b${tag}`), signup(`ch_s${tag}`)]);
    const [wt, bt, st] = [white, black, watcher].map((u) => u.session.access_token as string);
    const created = await call(a, 'POST', '/games', { type: 'challenge', opponent_id: black.user.id, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white' }, wt);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id as string;
    assert.equal((await call(b, 'POST', `/games/${id}/accept`, {}, bt)).status, 200);

    // Both players and a signed-in spectator in the game's room, wherever it is.
    const rooms: Room[] = [];
    const heard = new Map<Room, string[]>();
    for (const token of [wt, bt, st]) {
      const room = await joinWhenServed(a, id, token);
      heard.set(room, []);
      room.onMessage('chat', (m: { room: string; message: { text: string } }) => heard.get(room)!.push(`${m.room}:${m.message.text}`));
      rooms.push(room);
    }
    const [wRoom, bRoom, sRoom] = rooms;
    const host = await until('the game is hosted', async () => (await queryRow(cluster.dbUrl, 'SELECT host FROM games WHERE id = $1', [id])).host as string | undefined);
    const ids = await Promise.all(cluster.nodes.map(nodeIdOf));
    const other = cluster.nodes[ids.indexOf(host) === 0 ? 1 : 0];
    // A spectator's stream on the node that does not host the game.
    const stream = await WsClient.open(`ws://127.0.0.1:${other.port}/v1/games/${id}/stream`);
    await stream.next('state');

    assert.equal((await call(other, 'POST', `/games/${id}/chat`, { text: 'across nodes', room: 'player' }, bt)).status, 201);
    assert.equal((await call(other, 'POST', `/games/${id}/chat`, { text: 'hello from afar', room: 'spectator' }, st)).status, 201);
    await until('every room client heard the spectator message', () => rooms.every((r) => heard.get(r)!.includes('spectator:hello from afar')), { ms: 10_000 });
    assert.deepEqual(heard.get(wRoom), ['player:across nodes', 'spectator:hello from afar']);
    assert.deepEqual(heard.get(bRoom), ['player:across nodes', 'spectator:hello from afar']);
    assert.deepEqual(heard.get(sRoom), ['spectator:hello from afar']);
    const chat = (await stream.until('chat', 10_000)) as WsMessage;
    assert.deepEqual([chat.room, chat.message.text], ['spectator', 'hello from afar']);
    assert.ok(!JSON.stringify(stream.seen).includes('across nodes'));
    stream.close();
    await Promise.all(rooms.map((r) => r.leave().catch(() => {})));
  });
});

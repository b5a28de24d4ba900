import assert from 'node:assert/strict';
import pg from 'pg';
import { recompute } from '../../src/domain/arena.ts';
import { createDatabase } from '../support/database.ts';
import { clusterRedisUrl } from '../helpers/cluster.ts';
import { until } from '../helpers/poll.ts';
import { postData, requestJson, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { WebhookReceiver } from '../support/receiver.ts';
import { testService } from '../helpers/service.ts';

/**
 * An arena on two processes joined by Redis: the node that hosts its actor is killed with
 * SIGKILL mid-tournament, right after a round of games ended. The other node takes the
 * tournament over once the lease lapses, counts those games, and goes on pairing: standings
 * intact, no finished game lost or counted twice. Needs REDIS_URL (CI sets it).
 */
describe('An arena survives the death of its host node (REDIS_URL)', function () {
  this.timeout(120_000);
  let nodes: ServiceProcess[] = [];
  let db: { url: string; drop: () => Promise<void> };
  let client: pg.Client;
  const receiver = new WebhookReceiver();
  let hook: string;

  before(async function () {
    const redisUrl = await clusterRedisUrl();
    if (!redisUrl) {
      console.warn('    SKIPPED: REDIS_URL is not set, so the arena crash test did not run');
      return this.skip();
    }
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    const env = {
      REDIS_URL: redisUrl,
      GAME_LEASE_SECONDS: '2',
      FIRST_MOVE_SECONDS: '60',
      TOURNAMENT_MIN_MINUTES: '1',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      JWT_SECRET: 'arena-crash-test-secret-'.padEnd(48, 'x'),
      PUBLIC_URL: 'http://chess.arena.test',
    };
    nodes = [await startServiceProcess(db.url, { env })];
    nodes.push(await startServiceProcess(db.url, { env }));
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    hook = await receiver.start();
  });

  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await client?.end();
    await receiver.stop();
    await db?.drop();
  });

  const sql = async (text: string, params: unknown[] = []) => (await client.query(text, params)).rows;

  it('goes on elsewhere: the survivor counts what ended, keeps the standings and pairs on', async () => {
    const tag = Date.now().toString(36);
    const bots: Array<{ id: string; token: string; node: ServiceProcess }> = [];
    for (let i = 0; i < 8; i++) {
      const node = nodes[i % 2];
      const signed = await postData(`${node.base}/v1`, '/auth/signup', { email: `arena${i}${tag}@example.com`, password: 'arena-crash-1', username: `ar${i}${tag}` });
      const token = signed.session.access_token;
      await postData(`${node.base}/v1`, '/webhooks', { url: hook, events: ['tournament.started'], secret: 'arena-crash-secret-1' }, token);
      bots.push({ id: signed.user.id, token, node });
    }
    const startsAt = new Date(Date.now() + 3000).toISOString();
    const t = await postData(
      `${nodes[0].base}/v1`,
      '/tournaments',
      { name: 'Crash Arena', time_control: 'blitz', initial_time: 180, increment: 0, rated: true, starts_at: startsAt, duration_minutes: 5 },
      bots[0].token,
    );
    for (const b of bots) await postData(`${b.node.base}/v1`, `/tournaments/${t.id}/join`, {}, b.token);

    // The bots: every 200 ms, Black resigns each game of the arena in progress, through a live node.
    const tokenOf = new Map(bots.map((b) => [b.id, b.token]));
    const playing = { on: true };
    const play = async (alive: ServiceProcess[]) => {
      while (playing.on) {
        const node = alive[Math.floor(Math.random() * alive.length)];
        const listed = await requestJson(`${node.base}/v1`, 'GET', `/games?tournament_id=${t.id}&status=active&limit=100`, undefined, bots[0].token).catch(() => undefined);
        for (const g of listed?.body?.data ?? []) {
          await requestJson(`${node.base}/v1`, 'POST', `/games/${g.id}/resign`, {}, tokenOf.get(g.black_player.id)).catch(() => undefined);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const loop = play(nodes);
    const counted = async () => (await sql('SELECT count(*)::int AS n FROM tournament_games WHERE tournament_id = $1 AND counted_at IS NOT NULL', [t.id]))[0].n;
    await until('two rounds counted', async () => (await counted()) >= 8, { ms: 30_000, everyMs: 100 });

    // Started once, with two nodes' sweepers racing: one tournament.started per participant.
    const started = await receiver.waitFor(8, (r) => r.json?.type === 'tournament.started');
    assert.equal(started.length, 8);

    // Stop the bots, let a round be paired, end its games, and kill the tournament's host at once:
    // those games ended, but their host most likely died before counting them.
    playing.on = false;
    await loop;
    await until('a round in progress', async () => (await sql(`SELECT 1 FROM games WHERE tournament_id = $1 AND status = 'active'`, [t.id])).length >= 4, { ms: 10_000 });
    const before = (await sql('SELECT host, host_epoch FROM tournaments WHERE id = $1', [t.id]))[0];
    const nodeIds = await Promise.all(nodes.map(async (n) => (await (await fetch(`${n.base}/healthz`)).json()).data.node));
    const victim = nodes[nodeIds.indexOf(before.host)];
    assert.ok(victim, `the tournament's host ${before.host} is one of ${nodeIds}`);
    const survivor = victim === nodes[0] ? nodes[1] : nodes[0];
    const inProgress = await sql(`SELECT id, black_id FROM games WHERE tournament_id = $1 AND status = 'active'`, [t.id]);
    for (const g of inProgress) {
      // Through the victim: it hosts the tournament, and maybe the game too.
      const answer = await requestJson(`${victim.base}/v1`, 'POST', `/games/${g.id}/resign`, {}, tokenOf.get(g.black_id));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    }
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = new Date();
    const standingsBefore = new Map(
      (await sql('SELECT user_id, games FROM tournament_players WHERE tournament_id = $1', [t.id])).map((r) => [r.user_id, r.games]),
    );

    // The survivor's sweeper hosts the tournament once the lease lapses, and counts the round.
    playing.on = true;
    const again = play([survivor]);
    const survivorId = nodeIds[nodes.indexOf(survivor)];
    await until('the survivor hosts the arena', async () => (await sql('SELECT host FROM tournaments WHERE id = $1', [t.id]))[0].host === survivorId, { ms: 20_000, everyMs: 100 });
    // Pairing goes on there: two more rounds paired after the kill.
    await until('pairing goes on', async () => (await sql('SELECT count(*)::int AS n FROM tournament_games WHERE tournament_id = $1 AND paired_at > $2', [t.id, killedAt]))[0].n >= 8, { ms: 30_000, everyMs: 100 });
    playing.on = false;
    await again;

    // Let every game that ended be counted, then check the books.
    await until('everything ended is counted', async () => {
      const [r] = await sql(
        `SELECT count(*) FILTER (WHERE t.counted_at IS NULL AND g.status <> 'active')::int AS missing FROM tournament_games t JOIN games g ON g.id = t.game_id WHERE t.tournament_id = $1`,
        [t.id],
      );
      return r.missing === 0;
    }, { ms: 10_000 });
    const finished = await sql(
      `SELECT g.id, g.white_id, g.black_id, g.winner, g.white_rating, g.black_rating, t.counted_at IS NOT NULL AS counted
         FROM games g JOIN tournament_games t ON t.game_id = g.id WHERE g.tournament_id = $1 AND g.status = 'finished' ORDER BY g.finished_at, g.id`,
      [t.id],
    );
    assert.ok(finished.every((g) => g.counted), 'every finished game is counted');
    for (const g of inProgress) assert.ok(finished.some((f) => f.id === g.id), 'the games ended at the kill are in');
    const rows = await sql('SELECT user_id, score, games, wins, draws, losses, streak FROM tournament_players WHERE tournament_id = $1', [t.id]);
    const expected = recompute(
      bots.map((b) => b.id),
      finished.map((g) => ({ whiteId: g.white_id, blackId: g.black_id, winner: g.winner, whiteRating: g.white_rating, blackRating: g.black_rating })),
    );
    for (const r of rows) {
      const e = expected.get(r.user_id)!;
      assert.deepEqual([r.score, r.games, r.wins, r.losses, r.streak], [e.score, e.games, e.wins, e.losses, e.streak], 'each game counted exactly once');
      assert.ok(r.games >= standingsBefore.get(r.user_id)!, 'nothing counted before the kill was lost');
    }
    const shown = await requestJson(`${survivor.base}/v1`, 'GET', `/tournaments/${t.id}`);
    assert.equal(shown.body.data.status, 'running');
    assert.equal(shown.body.data.standings.reduce((sum: number, s: any) => sum + s.games, 0), 2 * finished.length);
    assert.equal(receiver.received.filter((r) => r.json?.type === 'tournament.started').length, 8, 'still one start per participant');
  });
});

/**
 * Benchmark: what webhooks cost the move path and how fast they go out.
 *   none        --games games, nobody subscribed: the baseline, measured in the same run;
 *   one         the same with one game.move endpoint (one white player's);
 *   hundred     the same with 100 endpoints (one per game's white player, 100 games);
 *   hanging     the hundred endpoints' receiver never answers (each delivery waits out the
 *               timeout): move acknowledgement latency must not change.
 * For each: server CPU per move (from /proc), move acknowledgement latency p50/p99, and the
 * deliveries per second to a local receiver (until every expected delivery arrived).
 *
 *   npx tsx loadtest/webhooks.ts [--games 100] [--plies 40]
 *
 * DATABASE_URL names the PostgreSQL server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import os from 'node:os';
import { Client, type Room } from '@colyseus/sdk';
import { createDatabase } from '../test/support/database.ts';
import { postData, startServiceProcess } from '../test/support/process.ts';
import { WebhookReceiver } from '../test/support/receiver.ts';
import { processCpu } from './cpu.ts';
import { LINE, sendMove, setupGames, type BenchGame } from './setup.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const GAMES = arg('games', 100);
const PLIES = Math.min(arg('plies', 40), LINE.length);

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await createDatabase(serverUrl);
  const receiver = new WebhookReceiver();
  const url = await receiver.start();
  const env = { FIRST_MOVE_SECONDS: '900', WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_SECONDS: '2' };
  const { child: server, port, base, exited } = await startServiceProcess(db.url, { env });
  try {
    /** Plays PLIES moves in each game, all games side by side, over the players' Colyseus sockets. */
    async function play(games: BenchGame[]) {
      const sdk = new Client(`ws://127.0.0.1:${port}`);
      const rooms: Array<{ white: Room; black: Room }> = [];
      for (const g of games) rooms.push({ white: await sdk.joinById(g.id, { token: g.white.token }), black: await sdk.joinById(g.id, { token: g.black.token }) });
      const acks: number[] = [];
      await Promise.all(
        rooms.map(async (r) => {
          for (const [i, uci] of LINE.slice(0, PLIES).entries()) {
            const t = await sendMove(i % 2 === 0 ? r.white : r.black, uci);
            acks.push(t.ack - t.sent);
          }
        }),
      );
      return { rooms, acks };
    }

    async function phase(name: string, subscribed: number, respond: WebhookReceiver['respond']) {
      const games = await setupGames(base, GAMES, `wh_${name}_`);
      receiver.respond = respond;
      const before = receiver.received.length;
      for (const g of games.slice(0, subscribed)) {
        await postData(`${base}/v1`, '/webhooks', { url, events: ['game.move'], secret: 'benchmark-secret-16' }, g.white.token);
      }
      const t0 = performance.now();
      const cpu0 = processCpu(server.pid!);
      const { rooms, acks } = await play(games);
      const moves = games.length * PLIES;
      const expected = subscribed * PLIES;
      let deliveredS: number | null = null;
      if (respond !== hang) {
        await receiver.waitFor(before + expected, () => true, 120_000);
        deliveredS = (performance.now() - t0) / 1000;
      }
      // The server's CPU from the first move until every delivery is out (and a second after:
      // the same tail for every phase), so the dispatcher's work is counted with the moves.
      await new Promise((r) => setTimeout(r, 1000));
      const cpuS = processCpu(server.pid!) - cpu0;
      await Promise.all(rooms.flatMap((r) => [r.white.leave(), r.black.leave()]));
      const { p50, p99 } = percentiles(acks);
      return {
        phase: name,
        endpoints: subscribed,
        moves,
        server_cpu_us_per_move: Math.round((cpuS * 1e6) / moves),
        move_ack_ms: { p50, p99 },
        deliveries: expected,
        ...(deliveredS === null ? {} : { deliveries_per_s: Math.round(expected / deliveredS) }),
      };
    }

    const ok: WebhookReceiver['respond'] = () => ({ status: 200 });
    const hang: WebhookReceiver['respond'] = () => 'hang';
    await phase('warm', 0, ok); // the JIT and the pools warm up; not reported
    const phases = [await phase('none', 0, ok), await phase('one', 1, ok), await phase('hundred', Math.min(100, GAMES), ok), await phase('hanging', Math.min(100, GAMES), hang)];
    const baseline = phases[0];
    console.log(
      JSON.stringify(
        {
          benchmark: 'webhook deliveries beside durable moves (real PostgreSQL, a local receiver)',
          node: process.version,
          cpus: os.cpus().length,
          games: GAMES,
          plies: PLIES,
          phases: phases.map((p) => ({ ...p, added_server_cpu_us_per_move: p.server_cpu_us_per_move - baseline.server_cpu_us_per_move })),
        },
        null,
        2,
      ),
    );
  } finally {
    server.kill('SIGTERM');
    await exited;
    await receiver.stop();
    await db.drop();
  }
}

await main();
process.exit(0);

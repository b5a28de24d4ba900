import type pg from 'pg';
import { connectNodeSession, deregisterNode, endLeasesOf, lockNode, pollNodes, registerNode, unlockNode } from '../db/nodes.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { Timers } from '../services/timers.ts';
import { sleep, type Clock } from '../time.ts';

export type NodeWatchDeps = {
  databaseUrl: string;
  pool: Pool;
  log: Logger;
  /** Paces the polls and retries and ends the grace after a rejoin (the service's system clock). */
  clock: Clock;
  /** This node's id: the `host` of its leases (Colyseus's process id). */
  id: string;
  /** Where clients reach it (PUBLIC_ADDRESS), for operators reading the `nodes` table. */
  address?: string;
  /**
   * Told when another node is gone: `endedHere` when this node found it dead and ended its
   * leases (its rooms' listings are then this node's to drop, and its games to host again), else
   * it vanished from the table (another node did that, or it shut down).
   */
  onGone: (id: string, endedHere: boolean) => Promise<void> | void;
  /** Told of a node that appeared in the table (started, or registered again after being judged dead). */
  onSeen?: (id: string) => void;
  /** How often the other nodes' locks are tried. */
  intervalMs?: number;
  /**
   * After this node's own session came back (a PostgreSQL restart ends every node's session at
   * once), how long it waits before judging others, so that they can take their locks again.
   */
  rejoinGraceMs?: number;
};

export type NodeWatch = {
  /** The other nodes registered at the last poll. */
  peers: () => string[];
  /** Polls now, between the timer's polls (tests drive it with a long interval). */
  check: () => Promise<void>;
  stop: () => Promise<void>;
};

const INTERVAL_MS = 250;
const REJOIN_GRACE_MS = 2_000;

/**
 * Dead-node detection (README, Failover). The node holds a session-level advisory lock on its id
 * on a connection of its own and a row in `nodes`; a process that dies, however it dies, ends its
 * session and so frees its lock. Every node tries the other nodes' locks four times a second. A
 * lock found free twice in a row (a node whose connection merely blipped takes its lock back in
 * between) belongs to a dead node, whose leases (games, seek pools) are ended at once, so its games
 * are hosted again within a second instead of after GAME_LEASE_SECONDS.
 *
 * Leases and their epochs stay the safety net: a node alive but cut off from PostgreSQL, or
 * paused, keeps its lock until its session times out, and its games move when their leases
 * lapse; a node wrongly judged dead (its session dropped and came back late) finds its writes
 * refused once another node took a game, and its rooms close so that their players join the new
 * host.
 *
 * Resolves once this node holds its lock and is registered, and the nodes found dead at start (a
 * crashed predecessor) have lost their leases: start it before listening.
 */
export async function startNodeWatch(d: NodeWatchDeps): Promise<NodeWatch> {
  const intervalMs = d.intervalMs ?? INTERVAL_MS;
  const graceMs = d.rejoinGraceMs ?? REJOIN_GRACE_MS;
  let session: pg.Client | undefined;
  let judgeFrom = 0;
  let known = new Set<string>();
  /** Nodes whose lock was free at the last poll. */
  let suspects = new Set<string>();
  let stopped = false;
  let rejoining: Promise<void> | undefined;

  const onLost = (lost: pg.Client, err?: Error) => {
    if (stopped || lost !== session) return;
    d.log.warn({ err: err?.message }, 'node session lost; taking the node lock again');
    session = undefined;
    rejoining ??= rejoin().finally(() => (rejoining = undefined));
  };

  /** Connects and takes this node's lock; throws when the lock is held elsewhere. */
  const connect = async (): Promise<pg.Client> => {
    const client = await connectNodeSession(d.databaseUrl, onLost);
    try {
      if (!(await lockNode(client, d.id))) throw new Error(`the lock of node ${d.id} is held by another session`);
      await registerNode(client, d.id, d.address ?? null);
      return client;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  };

  const rejoin = async () => {
    while (!stopped) {
      try {
        const client = await connect();
        if (stopped) {
          await client.end().catch(() => {});
          return;
        }
        session = client;
        judgeFrom = d.clock.now() + graceMs;
        suspects = new Set();
        d.log.info('node session back; lock taken again');
        return;
      } catch (err) {
        // PostgreSQL is still away, or a node that suspects this one holds its lock for a moment.
        d.log.debug({ err: (err as Error).message }, 'node lock not taken yet');
      }
      await sleep(intervalMs, d.clock);
    }
  };

  const poll = async () => {
    const s = session;
    if (!s) return;
    const nodes = await pollNodes(s, d.id, d.clock.now() >= judgeFrom).catch(async (error) => {
      // A session that stopped answering holds nothing useful: drop it and take the lock anew.
      if (/timeout/i.test((error as Error).message)) {
        void s.end().catch(() => {});
        onLost(s, error as Error);
      }
      throw error;
    });
    const present = new Set(nodes.map((n) => n.id));
    if (!present.has(d.id)) {
      // Another node judged this one dead while its session was down; its games are being moved.
      d.log.warn('this node was taken for dead by another; registering again');
      await registerNode(s, d.id, d.address ?? null);
    }
    const free = new Set<string>();
    for (const n of nodes.filter((n) => n.taken)) {
      try {
        if (!suspects.has(n.id)) {
          free.add(n.id);
          continue;
        }
        const ended = await endLeasesOf(d.pool, n.id);
        d.log.warn({ node: n.id, ended }, 'node found dead: its leases are ended');
        present.delete(n.id);
        known.delete(n.id);
        await d.onGone(n.id, true);
      } finally {
        await unlockNode(s, n.id).catch(() => {});
      }
    }
    suspects = free;
    for (const id of known) if (!present.has(id)) await d.onGone(id, false);
    present.delete(d.id);
    for (const id of present) if (!known.has(id)) d.onSeen?.(id);
    known = present;
  };

  session = await connect();
  await poll();
  // A crashed predecessor is taken over before this node serves anything.
  if (suspects.size) {
    await sleep(Math.min(intervalMs, INTERVAL_MS), d.clock);
    await poll();
  }
  let running: Promise<void> | undefined;
  const check = async () => {
    // One poll at a time: a check asked for during a poll waits for it, then polls again.
    while (running) await running;
    running = poll()
      .catch((err) => d.log.warn({ err }, 'node poll failed'))
      .finally(() => (running = undefined));
    await running;
  };
  const timers = new Timers<'poll'>(d.clock);
  timers.every('poll', intervalMs, () => {
    if (!running) void check();
  });

  return {
    peers: () => [...known],
    check,
    stop: async () => {
      stopped = true;
      timers.clearAll();
      await running;
      await rejoining;
      const s = session;
      session = undefined;
      if (!s) return;
      await deregisterNode(s, d.id).catch((err) => d.log.warn({ err }, 'node deregistration failed'));
      await s.end().catch(() => {});
    },
  };
}

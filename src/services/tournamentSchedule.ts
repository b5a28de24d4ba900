import type { AppContext } from '../context.ts';
import { withTransaction } from '../db/pool.ts';
import * as play from '../db/tournamentPlay.ts';
import { findStandingsPage } from '../db/tournaments.ts';
import { channels } from './channelEvents.ts';
import { formatStanding, STANDINGS_SHOWN, type TournamentEvent } from './tournamentViews.ts';
import { userNotifier } from './userEvents.ts';
import { emit } from './webhooks.ts';

/** What tending the arenas without an actor works with (`pool`: the sweepers' own, in production). */
export type ScheduleDeps = Pick<AppContext, 'pool' | 'clock' | 'events' | 'log'>;

const announce = (d: ScheduleDeps, id: string, event: TournamentEvent) => d.events.publish(channels.tournament(id), { ...event, ts: d.clock.now() });

async function start(d: ScheduleDeps, id: string, now: Date): Promise<void> {
  const started = await withTransaction(d.pool, async (tx) => {
    const t = await play.lockUnhosted(tx, id, 'upcoming', now);
    if (!t) return undefined;
    const payload = { tournament: { id, name: t.name, starts_at: t.startsAt.toISOString() } };
    const joined = await play.markStarted(tx, id, now);
    if (joined.length > 0) await emit(tx, 'tournament.started', joined, payload);
    return { joined, payload };
  });
  if (!started) return;
  const notify = userNotifier(d);
  for (const userId of started.joined) notify(userId, { type: 'tournament_started', ...started.payload });
  announce(d, id, { type: 'status', status: 'running' });
}

async function finish(d: ScheduleDeps, id: string, now: Date): Promise<void> {
  const finished = await withTransaction(d.pool, async (tx) => {
    if (!(await play.lockUnhosted(tx, id, 'running', now))) return false;
    await play.markFinished(tx, id, now);
    return true;
  });
  if (!finished) return;
  // One snapshot: the total agrees with the standings it comes with.
  const page = await findStandingsPage(d.pool, id, { limit: STANDINGS_SHOWN, offset: 0 });
  if (page) announce(d, id, { type: 'standings', standings: page.standings.map(formatStanding), standings_total: page.total });
  announce(d, id, { type: 'status', status: 'finished' });
}

/**
 * The start and the end of arenas that have no actor (DESIGN 2.10): an arena gets one only
 * once two players are in it (or a game of it is to be counted), so that empty arenas cost no
 * lease and no pass every 2 s. The sweepers of every node call this each second: a due arena
 * with fewer than two players is started here (`tournament.started` to its one participant, if
 * any), and a running one past `ends_at` with nothing left to count is finished here. Each is
 * decided under the tournament's row lock, read again there, so one node does it once.
 */
export async function tendTournaments(d: ScheduleDeps): Promise<void> {
  const now = new Date(d.clock.now());
  const due = await play.findUnhostedDue(d.pool, now);
  await Promise.all(
    due.map((t) =>
      (t.status === 'upcoming' ? start(d, t.id, now) : finish(d, t.id, now)).catch((err) =>
        d.log.warn({ err, tournamentId: t.id }, 'could not start or finish an arena without an actor'),
      ),
    ),
  );
}

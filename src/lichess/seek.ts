// `POST /api/board/seek` (lichess-org/api, doc/specs/tags/board/api-board-seek.yaml): a seek in the
// pool /v1's matchmaking uses (POST /v1/games {type: matchmaking}: src/services/gameLifecycle.ts,
// the seek pool actor), held by the response. A realtime seek's answer stays open (blank lines)
// until the seek is paired or lapses, then ends with no data; closing it cancels the seek. The
// game that pairing starts is told on the event stream (`gameStart`), as on Lichess.
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AuthUser } from '../auth/scopes.ts';
import { categoryOf } from '../domain/timeControl.ts';
import { AppError, isAppError } from '../errors.ts';
import type { Realtime } from '../realtime/index.ts';
import { channels } from '../services/channelEvents.ts';
import type { GamesService } from '../services/games.ts';
import type { Logger } from '../logger.ts';
import { formBool, formInt, formNumber, given } from './query.ts';

export const SeekBody = z.object({
  rated: formBool.transform((v) => v ?? false),
  /** Minutes of the clock (a realtime seek). */
  time: formNumber(0, 180),
  /** Seconds added per move (a realtime seek). */
  increment: formInt(0, 180),
  /** Days per move (a correspondence seek). */
  days: formInt(1, 14),
  variant: z.preprocess(given, z.literal('standard', { error: 'only standard chess is played here' }).optional()),
  color: z.preprocess(given, z.enum(['random', 'white', 'black'], { error: 'must be random, white or black' }).optional()).transform((v) => v ?? 'random'),
  ratingRange: z.preprocess(given, z.string().max(20).optional()),
});
export type SeekBody = z.infer<typeof SeekBody>;

export type SeekDeps = { games: GamesService; realtime: Realtime; log: Logger };

/**
 * A correspondence seek: the pool's answer at once (`{id}`). The service pairs correspondence
 * games by challenge only (docs/decisions.md), so the matchmaking refuses it: 400 with its words.
 */
export async function correspondenceSeek(d: Pick<SeekDeps, 'games'>, user: AuthUser, body: SeekBody & { days: number }): Promise<{ id: string }> {
  const created = await d.games.createGame(user.id, {
    type: 'matchmaking',
    time_control: 'correspondence',
    days_per_move: body.days,
    rated: body.rated,
    color: body.color,
  });
  return { id: created.id };
}

/**
 * A realtime seek held by its response (`res`, hosted as one of the node's streams): the 200 and
 * a blank line every few seconds while it waits; the body ends once it is paired (at once, or
 * later: its pending game's channel says `active`) or lapses (`abandoned`); the client closing
 * the response cancels it as `POST /v1/games/{id}/cancel` would. Refusals before the 200 are
 * Lichess's `{"error"}` answers (`refuseWith`).
 */
export async function realtimeSeek(
  d: SeekDeps,
  http: { req: Parameters<Realtime['hostStream']>[0]; res: ServerResponse; refuseWith: (error: unknown) => void },
  user: AuthUser,
  body: SeekBody,
): Promise<void> {
  if (body.time === undefined || body.increment === undefined) {
    throw new AppError('VALIDATION_ERROR', 'A realtime seek needs time (minutes) and increment (seconds); a correspondence seek needs days');
  }
  const peer = d.realtime.hostStream(http.req, http.res, http.refuseWith);
  if (!peer) return;
  const over = d.realtime.admitUser(peer, user.id);
  if (over) return peer.refuse(over);
  const initial = Math.round(body.time * 60);
  let created;
  try {
    created = await d.games.createGame(user.id, {
      type: 'matchmaking',
      time_control: categoryOf(initial, body.increment),
      initial_time: initial,
      increment: body.increment,
      rated: body.rated,
      color: body.color,
    });
  } catch (error) {
    return peer.refuse(error);
  }
  // Paired at once: nothing to wait for.
  if (created.status !== 'pending') return peer.end({ kind: 'over' });
  const seekId = created.id;
  let done = false;
  let stop: (() => void) | undefined;
  const finish = () => {
    if (done) return;
    done = true;
    stop?.();
    peer.end({ kind: 'over' });
  };
  peer.onClose(() => {
    stop?.();
    if (done) return;
    done = true;
    // The seeker went: the seek goes too, unless it was paired meanwhile (then the game is on).
    d.games.cancelGame(user.id, seekId).catch((error) => {
      if (!(isAppError(error) && (error.code === 'GAME_NOT_PENDING' || error.code === 'GAME_NOT_FOUND'))) {
        d.log.warn({ err: error, seekId }, 'a Lichess seek could not be cancelled');
      }
    });
  });
  if (done) return;
  peer.begin();
  // Its pending game's channel says when it is paired or lapses; then the seek is read again, for
  // what happened before the subscription was live.
  const listening = await d.realtime.sessions.hub.listen(channels.game(seekId), (m) => {
    if (m.type === 'status') finish();
  });
  if (done) return listening();
  stop = listening;
  const seek = await d.games.getGame(user.id, seekId).catch(() => undefined);
  if (seek && seek.status !== 'pending') finish();
}

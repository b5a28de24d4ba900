// Lichess's event stream, `GET /api/stream/event` (DESIGN 2.13): the user's channel, the one a
// realtime socket subscribes to as `user:<id>` and /v1/stream/events streams, spelled as Lichess's
// NDJSON lines (src/lichess/eventStream.ts). Hosted by the realtime side as one of its HTTP
// streams: counted in the client address's and the user's socket caps, kept alive with a blank
// line every 7 s, ended at shutdown. Several may be open per token (Lichess keeps one).
import type { Scope } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';
import { UserChannelSession } from '../realtime/userChannelSession.ts';
import { findEventGame, listChallenges, listPlaying } from '../services/userEventGames.ts';
import type { LichessDeps } from './deps.ts';
import { refuseStream } from './errors.ts';
import { LichessEventStream, type EventReads } from './eventStream.ts';
import { lichessRoute, STREAMED, type LichessRoute } from './route.ts';

/** Who may hear the event stream: Lichess's scopes for it, any one of them. */
export const EVENT_STREAM_SCOPES: readonly Scope[] = ['challenge:read', 'bot:play', 'board:play'];


/** The games and challenges the event stream reads, bound to the service's pool, clock and address. */
export function eventReads({ ctx }: Pick<LichessDeps, 'ctx'>): EventReads {
  return {
    game: (userId, gameId) => findEventGame(ctx, userId, gameId),
    playing: (userId) => listPlaying(ctx, userId),
    challenges: (userId) => listChallenges(ctx, userId),
    publicUrl: ctx.config.publicUrl,
    now: () => ctx.clock.now(),
  };
}

export function eventRoutes(d: LichessDeps): LichessRoute[] {
  const reads = eventReads(d);
  return [
    lichessRoute({
      method: 'get',
      path: '/api/stream/event',
      auth: { anyOf: EVENT_STREAM_SCOPES },
      handler: async ({ req, res, user }) => {
        const realtime = d.streams();
        if (!realtime) throw new AppError('SERVICE_UNAVAILABLE', 'The service is starting: connect again', undefined, { retryAfter: 1 });
        const peer = realtime.hostStream(req, res, (error) => refuseStream(res, error));
        if (!peer) return STREAMED; // past the address's cap: refused with 429
        const me = user!;
        const stream = new LichessEventStream(peer, me.id, reads, d.ctx.log);
        const session = new UserChannelSession(realtime.sessions, stream, {
          user: me,
          id: me.id,
          channel: `user:${me.id}`,
          admit: (u) => realtime.admitUser(peer, u.id),
          scopes: EVENT_STREAM_SCOPES,
          internal: (event) => stream.internal(event),
        });
        peer.onClose(() => {
          session.close();
          stream.close();
        });
        await session.start();
        return STREAMED;
      },
    }),
  ];
}

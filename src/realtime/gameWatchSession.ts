import { gameReader, type AuthUser } from '../auth/scopes.ts';
import { parseId } from '../domain/ids.ts';
import { AppError, isAppError } from '../errors.ts';
import { notFound } from '../services/gameAccess.ts';
import type { SessionDeps } from './deps.ts';
import { GameWatch } from './gameWatch.ts';
import { CLOSE, type ServerMessage } from './messages.ts';
import { refused, tokenRefusal, watchCredential, type Connection, type Ending, type Subscriber } from './subscriber.ts';

export type GameWatchRequest = {
  /** The game's id as parsed (lower case): its events go out on `game:<that id>`. */
  gameId: string;
  /**
   * Who opened the session with a token, if anyone: its credential ends the session, and it
   * watches as that user when the token may read games (gameReader: a player's chat, a pending game).
   */
  viewer?: AuthUser;
  /** Resume after this event number (`?since=v`). */
  since?: number;
  /** The `channel` every message carries (a subscription of the realtime channel); none on the stream. */
  channel?: string;
};

/**
 * Watching one game (DESIGN 2.6), whatever carries it: the game stream over a WebSocket or as
 * NDJSON, a `game:` subscription of the realtime channel. The watch (GameWatch) puts the game's
 * events in order; the session starts it as its viewer may see the game, sends what it says,
 * and ends the subscriber when the game ends, the game cannot be read, or the credential ends.
 */
export class GameWatchSession {
  private watch: GameWatch | undefined;
  private stopCredential: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly deps: SessionDeps,
    private readonly sub: Subscriber,
    private readonly request: GameWatchRequest,
  ) {}

  async start(): Promise<void> {
    if (this.closed || !this.sub.open) return;
    const { gameId, viewer, since, channel } = this.request;
    if (viewer) this.stopCredential = watchCredential(this.deps.credentials, viewer, (ending) => this.end(ending), channel);
    const reader = gameReader(viewer);
    const d = this.deps;
    let begun = false;
    const watch = (this.watch = new GameWatch(
      { hub: d.hub, ticks: d.ticks, snapshot: () => d.snapshot(reader?.id, gameId), missed: (after) => d.missed(gameId, after), watching: () => d.watching?.(gameId), now: d.now },
      {
        gameId,
        viewerId: reader?.id,
        since,
        send: (m) => {
          if (!begun) {
            begun = true;
            this.sub.begin();
          }
          if (this.sub.sendParsed) this.sub.sendParsed(m.data as ServerMessage);
          else this.sub.send(channel ? m.withChannel(channel) : m.json);
        },
        ended: () => this.end({ kind: 'over' }),
        failed: (error) => this.end({ kind: 'broken', error }),
      },
    ));
    try {
      await watch.start();
    } catch (error) {
      if (isAppError(error) && error.code === 'GAME_NOT_FOUND') return this.end(gameNotFound(channel));
      d.log.warn({ err: error, gameId }, 'game watch could not start');
      this.end({ kind: 'failed', error });
    }
  }

  /** Stops watching (the client went, or unsubscribed). */
  close(): void {
    this.closed = true;
    this.watch?.close();
    this.stopCredential?.();
  }

  private end(ending: Ending): void {
    if (this.closed) return;
    this.close();
    this.sub.end(ending);
  }
}

/** The game stream's request as its transport read it: the path's id, `?since`, the token. */
export type GameStreamRequest = { gameId: string; since: string | null; token: string | undefined };

/**
 * The game stream, in either form (`/v1/games/{id}/stream` over a WebSocket or as NDJSON):
 * `since`, the token (`authenticate` counts the connection as its user's), the id, then the
 * session. A refusal ends the connection; a failure that is none of these is thrown.
 */
export async function openGameStream(
  deps: SessionDeps & { authenticate: (token: string) => Promise<AuthUser> },
  connection: Connection,
  request: GameStreamRequest,
): Promise<void> {
  const since = parseSince(request.since);
  if (since === null) return connection.end(refused(new AppError('VALIDATION_ERROR', INVALID_SINCE.message, INVALID_SINCE.details), CLOSE.POLICY, 'invalid since'));
  let viewer: AuthUser | undefined;
  if (request.token) {
    try {
      viewer = await deps.authenticate(request.token);
    } catch (error) {
      return connection.end(tokenRefusal(error));
    }
  }
  // The game's events go out on `game:<its id>`, in lower case: another spelling would hear none.
  const gameId = parseId(request.gameId);
  if (!gameId) return connection.end(gameNotFound());
  const session = new GameWatchSession(deps, connection, { gameId, viewer, since });
  connection.onClose(() => session.close());
  await session.start();
}

/** No such game, or a pending game of others (the stream closes 4404). */
const gameNotFound = (channel?: string) => refused(notFound(), CLOSE.NOT_FOUND, 'game not found', channel);

const INVALID_SINCE = { message: 'since must be an event number (an integer ≥ 0)', details: { since: ['must be an integer ≥ 0'] } };

/** `?since=`: the event number, undefined when absent, null when it is none. */
function parseSince(text: string | null): number | undefined | null {
  if (text === null) return undefined;
  const since = Number(text);
  return Number.isInteger(since) && since >= 0 ? since : null;
}

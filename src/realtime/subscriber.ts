import type { AuthUser } from '../auth/scopes.ts';
import { AppError, isAppError } from '../errors.ts';
import { CREDENTIAL_ENDED, type LiveCredentials } from '../services/liveCredentials.ts';
import { CLOSE, type CloseCode, type ServerMessage, type Wire } from './messages.ts';

/**
 * The far side of a session of watching (a game, a user's channel), whatever carries it: a
 * WebSocket (Peer), an NDJSON response (HttpPeer), one subscription of a realtime socket. A
 * session decides what is sent and why it ends; its subscriber only says it in its own way, so a
 * new transport is an adapter of these few members.
 */
export interface Subscriber {
  /** Sends one message: one of ours, or a relayed one as its JSON text. */
  send(message: ServerMessage | Wire<ServerMessage>): void;
  /**
   * A subscriber that reads a game's messages rather than forwarding their text (Lichess's game
   * stream spells them as its own lines) takes them as the hub parsed them, once per node.
   */
  sendParsed?(message: ServerMessage): void;
  /**
   * The session is live, before its first message: a channel's subscription answers
   * `subscribed`, an HTTP stream sends its 200. A socket has nothing to say.
   */
  begin(): void;
  /** Ends the session as `ending` says; nothing more goes out. */
  end(ending: Ending): void;
  /** Neither ended nor gone: worth sending to. */
  readonly open: boolean;
  /** Bytes sent and not yet taken by the client (a reader past its transport's bound is cut off). */
  readonly buffered: number;
}

/**
 * A subscriber that its client can close (a socket, an HTTP stream, a realtime socket's
 * subscription): the client went, or unsubscribed.
 */
export interface Connection extends Subscriber {
  /** Runs `f` once it closes, or at once if it has: what its session holds is given back there. */
  onClose(f: () => void): void;
}

/**
 * Why a session ends, which each transport says its own way: a socket with a close code (after
 * an `error` message when it is told why), an HTTP stream with its status before the body or its
 * last line after, a channel's subscription with an `error` naming the channel.
 */
export type Ending =
  /** It ran its course: the game ended. */
  | { kind: 'over' }
  /**
   * Refused or taken away: the client is told `error` (naming `channel` on a channel's session);
   * a socket then closes with `code` and `reason`.
   */
  | { kind: 'refused'; error: AppError; code: CloseCode; reason: string; channel?: string }
  /** It could not start: the game could not be read, or the bus not listened to. Try again. */
  | { kind: 'failed'; error: unknown }
  /** It broke off: the game could not be read to fill a hole. Come back with `?since`. */
  | { kind: 'broken'; error: unknown };

export const refused = (error: AppError, code: CloseCode, reason: string, channel?: string): Ending => ({
  kind: 'refused',
  error,
  code,
  reason,
  ...(channel ? { channel } : {}),
});

/**
 * DESIGN 2.12: a session opened with a token lives no longer than its credential. Revoked or
 * expired, `end` is called with the refusal that says so; the way to stop watching is returned.
 */
export function watchCredential(credentials: Pick<LiveCredentials, 'watch'>, user: AuthUser, end: (ending: Ending) => void, channel?: string): () => void {
  return credentials.watch(user, (why) =>
    end(refused(new AppError('UNAUTHORIZED', CREDENTIAL_ENDED[why]), CLOSE.UNAUTHORIZED, why === 'expired' ? 'token expired' : 'token revoked', channel)),
  );
}

/**
 * A session refused for its token: invalid (UNAUTHORIZED), or its user past their socket cap
 * (RATE_LIMIT_EXCEEDED). Any other failure is thrown on: the session could not be opened.
 */
export function tokenRefusal(error: unknown): Ending {
  if (isAppError(error) && error.code === 'UNAUTHORIZED') return refused(error, CLOSE.UNAUTHORIZED, 'unauthorized');
  if (isAppError(error) && error.code === 'RATE_LIMIT_EXCEEDED') return refused(error, CLOSE.TOO_MANY_SOCKETS, 'too many sockets');
  throw error;
}

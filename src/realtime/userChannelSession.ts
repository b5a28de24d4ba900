import { hasScope, type AuthUser, type Scope } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';
import { fail, ok, type Failure, type Result } from '../result.ts';
import { channels, type ChannelEvents } from '../services/channelEvents.ts';
import { INTERNAL_USER_EVENTS, type InternalUserEventType } from '../services/userEvents.ts';
import type { SessionDeps } from './deps.ts';
import type { Relayed } from './hub.ts';
import { CLOSE, type RelayedUserEvent } from './messages.ts';
import { refused, watchCredential, type Ending, type Subscriber } from './subscriber.ts';

export type UserChannelRequest = {
  /** Who presented a token, if anyone. */
  user: AuthUser | undefined;
  /** Whose channel: `user:<id>`. */
  id: string;
  /** formatChannel of it: the `channel` every message carries. */
  channel: string;
  /**
   * Counts the connection as one of the user's sockets once they may hear the channel: the
   * refusal past their cap. (A realtime socket counted it when the token was checked.)
   */
  admit?: (user: AuthUser) => AppError | undefined;
  /**
   * The scopes that let a personal token hear it, any one of them: games:read unless told (DESIGN
   * 2.12); Lichess's event stream is heard with challenge:read, bot:play or board:play (2.13).
   */
  scopes?: readonly Scope[];
  /**
   * Hears the internal events (challenges_changed, game_finished), which no socket is sent: a
   * surface of the service's own that spells the user's events itself (Lichess's event stream).
   */
  internal?: (event: Relayed<InternalUserEvent>) => void;
};

/** A user event that stays inside the service (src/services/userEvents.ts). */
export type InternalUserEvent = Extract<ChannelEvents['user'], { type: InternalUserEventType }>;

/**
 * A user's own channel (DESIGN 2.6): their personal events, whatever carries them (a `user:`
 * subscription of the realtime channel, `GET /v1/stream/events`). Only the user may hear it, with
 * a token that may read games; it ends with that token's credential, and the user is online
 * (friend lists) while it is open.
 */
export class UserChannelSession {
  private stopListening: (() => void) | undefined;
  private stopCredential: (() => void) | undefined;
  private release: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly deps: Pick<SessionDeps, 'hub' | 'hold' | 'credentials' | 'log'>,
    private readonly sub: Subscriber,
    private readonly request: UserChannelRequest,
  ) {}

  async start(): Promise<void> {
    if (this.closed || !this.sub.open) return;
    const { id, channel } = this.request;
    const heard = mayHear(this.request.user, id, this.request.scopes);
    if (!heard.ok) {
      const { code, message, details } = heard.error;
      return this.end(refused(new AppError(code, message, details), code === 'UNAUTHORIZED' ? CLOSE.UNAUTHORIZED : CLOSE.POLICY, 'not your channel', channel));
    }
    const user = heard.value;
    const over = this.request.admit?.(user);
    if (over) return this.end(refused(over, CLOSE.TOO_MANY_SOCKETS, 'too many sockets', channel));
    this.stopCredential = watchCredential(this.deps.credentials, user, (ending) => this.end(ending), channel);
    // An open user channel is a live socket: its user is online for as long as it stays open.
    this.release = this.deps.hold?.(user.id);
    let stop: () => void;
    try {
      stop = await this.deps.hub.listen(channels.user(user.id), (m) => {
        if (relayable(m)) this.sub.send(m.withChannel(channel));
        else this.request.internal?.(m as Relayed<InternalUserEvent>);
      });
    } catch (error) {
      this.deps.log.warn({ err: error, channel }, 'user channel could not start');
      return this.end({ kind: 'failed', error });
    }
    if (this.closed) return stop();
    this.stopListening = stop;
    this.sub.begin();
  }

  /** Stops listening (the client went, or unsubscribed). */
  close(): void {
    this.closed = true;
    this.stopListening?.();
    this.stopListening = undefined;
    this.stopCredential?.();
    this.release?.();
    this.release = undefined;
  }

  private end(ending: Ending): void {
    if (this.closed) return;
    this.close();
    this.sub.end(ending);
  }
}

/**
 * Whether `user` (who presented a token, if anyone) may hear `user:<id>`: the one check of both
 * forms of the user channel.
 */
function mayHear(
  user: AuthUser | undefined,
  id: string,
  scopes: readonly Scope[] = ['games:read'],
): Result<AuthUser, Failure<'UNAUTHORIZED' | 'FORBIDDEN' | 'MISSING_SCOPE'>> {
  if (!user) return fail('UNAUTHORIZED', 'A user channel needs that user\u2019s access token');
  if (user.id !== id) return fail('FORBIDDEN', 'Only your own user channel');
  // DESIGN 2.12: a personal token needs games:read for its user's personal events, in either form.
  if (!scopes.some((s) => hasScope(user, s))) {
    return fail('MISSING_SCOPE', `This personal access token lacks the scope ${scopes.join(' or ')}`, { scope: [...scopes] });
  }
  return ok(user);
}

/** The user events a socket may see: the internal ones stay on the bus. */
const relayable = (m: Relayed<ChannelEvents['user']>): m is Relayed<RelayedUserEvent> => !INTERNAL_USER_EVENTS.has(m.type as ChannelEvents['user']['type']);

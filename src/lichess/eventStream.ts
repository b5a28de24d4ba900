// Lichess's event stream (`GET /api/stream/event`, DESIGN 2.13) as a subscriber of the user's
// channel (src/realtime/userChannelSession.ts): the session decides what the user hears and when
// the stream ends, as it does for /v1/stream/events; this adapter only spells the user's events
// as Lichess's lines, reading each game or challenge they name.
import type { Logger } from '../logger.ts';
import type { HttpPeer } from '../realtime/httpPeer.ts';
import type { Relayed } from '../realtime/hub.ts';
import type { ServerMessage, Wire } from '../realtime/messages.ts';
import type { Ending, Subscriber } from '../realtime/subscriber.ts';
import type { InternalUserEvent } from '../realtime/userChannelSession.ts';
import type { ChannelEvents } from '../services/channelEvents.ts';
import type { EventGame } from '../services/userEventGames.ts';
import { formatChallenge, formatDeclined } from './challengeShapes.ts';
import { challengeEvent, formatGameEventInfo, type LichessEvent } from './eventShapes.ts';

/** What the stream reads: the games and challenges its lines tell of (src/services/userEventGames.ts). */
export type EventReads = {
  /** The game or challenge as its player sees it; GAME_NOT_FOUND when it is none of theirs. */
  game: (userId: string, gameId: string) => Promise<EventGame>;
  /** The user's games in progress. */
  playing: (userId: string) => Promise<EventGame[]>;
  /** The user's pending challenges, sent and received. */
  challenges: (userId: string) => Promise<EventGame[]>;
  publicUrl: string;
  now: () => number;
};

type UserEvent = ChannelEvents['user'];

/**
 * One client's event stream. Every line is made in the order its event came, one at a time (each
 * may read the database), after the opening lines: a `gameStart` for each game in progress and a
 * `challenge` for each pending challenge. A game or challenge is told once per stream, so that
 * one that changed while the opening lines were read is not told twice.
 */
export class LichessEventStream implements Subscriber {
  /** The lines being made, in order. */
  private queue: Promise<void> = Promise.resolve();
  /** Challenges told (`challenge`) and not yet ended. */
  private readonly challenges = new Set<string>();
  /** Games told (`gameStart`) and not yet finished. */
  private readonly games = new Set<string>();
  private closed = false;

  constructor(
    private readonly peer: Pick<HttpPeer, 'begin' | 'sendLine' | 'end' | 'open' | 'buffered' | 'live'>,
    private readonly userId: string,
    private readonly reads: EventReads,
    private readonly log: Logger,
  ) {}

  get open(): boolean {
    return !this.closed && this.peer.open;
  }

  get buffered(): number {
    return this.peer.buffered;
  }

  /** The user may hear their channel and it is listened to: the 200, then the opening lines. */
  begin(): void {
    this.peer.begin();
    this.then(() => this.opening());
  }

  /** A relayed event of the user's channel, as its JSON text. */
  send(message: ServerMessage | Wire<ServerMessage>): void {
    if (typeof message !== 'string') return;
    this.then(() => this.tell(JSON.parse(message) as UserEvent));
  }

  /** An internal event of the user's channel (challenges_changed, game_finished). */
  internal(event: Relayed<InternalUserEvent>): void {
    this.then(() => this.tell(event.data as InternalUserEvent));
  }

  /**
   * Refused before it began: Lichess's error answer (401, 403, 429). Ended after (a credential
   * that ended, the service restarting, a read that failed): the body ends, and a Lichess client
   * connects again.
   */
  end(ending: Ending): void {
    this.close();
    this.peer.end(this.peer.live ? { kind: 'over' } : ending);
  }

  /** Nothing more is made (the client went, or the stream ended). */
  close(): void {
    this.closed = true;
  }

  private then(make: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (!this.open) return;
      try {
        await make();
      } catch (error) {
        // A line that could not be made would be lost for good: the stream ends instead, and the
        // client's reconnection is told every game and challenge again.
        this.log.warn({ err: error, userId: this.userId }, 'a Lichess event could not be read; ending the event stream');
        this.end({ kind: 'failed', error });
      }
    });
  }

  private line(event: LichessEvent): void {
    if (this.open) this.peer.sendLine(JSON.stringify(event));
  }

  private async opening(): Promise<void> {
    const [playing, challenges] = await Promise.all([this.reads.playing(this.userId), this.reads.challenges(this.userId)]);
    for (const e of playing) this.gameStart(e);
    for (const e of challenges) this.challenge(e);
  }

  private async tell(event: UserEvent): Promise<void> {
    switch (event.type) {
      case 'challenges_changed':
        // A challenge sent by the user is told them too (Lichess: "or you challenge someone").
        for (const e of await this.reads.challenges(this.userId)) if (!this.challenges.has(e.game.id)) this.challenge(e);
        return;
      case 'challenge_received':
      case 'rematch_offer':
        if (!this.challenges.has(event.game_id)) this.challenge(await this.read(event.game_id));
        return;
      case 'challenge_declined': {
        this.challenges.delete(event.game_id);
        const e = await this.read(event.game_id);
        return this.line({ type: 'challengeDeclined', challenge: formatDeclined(e, this.userId, this.reads.publicUrl, event.reason) });
      }
      case 'challenge_cancelled':
      case 'challenge_expired': {
        this.challenges.delete(event.game_id);
        const e = await this.read(event.game_id);
        return this.line({ type: 'challengeCanceled', challenge: formatChallenge(e, this.userId, this.reads.publicUrl) });
      }
      case 'game_started':
      case 'tournament_pairing':
        this.challenges.delete(event.game_id);
        if (!this.games.has(event.game_id)) this.gameStart(await this.read(event.game_id));
        return;
      case 'game_finished': {
        this.games.delete(event.game_id);
        const e = await this.read(event.game_id);
        return this.line({ type: 'gameFinish', game: formatGameEventInfo(e, this.userId, this.reads.now()) });
      }
      default:
        // Friends, clubs, tournaments starting: Lichess's stream has no line for them.
        return;
    }
  }

  private read(gameId: string): Promise<EventGame> {
    return this.reads.game(this.userId, gameId);
  }

  private gameStart(e: EventGame): void {
    this.games.add(e.game.id);
    this.line({ type: 'gameStart', game: formatGameEventInfo(e, this.userId, this.reads.now()) });
  }

  private challenge(e: EventGame): void {
    this.challenges.add(e.game.id);
    this.line(challengeEvent(formatChallenge(e, this.userId, this.reads.publicUrl)));
  }
}

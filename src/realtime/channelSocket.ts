import type { WebSocket } from 'ws';
import { openChannel, type ChannelDeps } from './channels.ts';
import type { RealtimeNode } from './deps.ts';
import { errorMessage, formatChannel, parseChannel, type ClientMessage, type ErrorMessage, type ServerMessage, type Wire } from './messages.ts';
import { socketAuthenticate, type Peer } from './peer.ts';
import type { Connection, Ending } from './subscriber.ts';

/** Channels one realtime socket may listen to at once. */
const MAX_CHANNELS = 100;

type Echo = { id?: string | number };

/**
 * The realtime channel (`/realtime`): subscribe / unsubscribe / ping, many channels per socket.
 * Subscribes and unsubscribes are answered in the order they came (a subscribe's answer waits on
 * its token's check): each is taken up once the one before it is answered. A ping is answered at once.
 */
export function serveChannelSocket(node: RealtimeNode, ws: WebSocket): void {
  const { log, now } = node;
  const peer = node.connections.socket(ws);
  const subscriptions = new Map<string, ChannelSubscription>();
  let answered: Promise<void> = Promise.resolve();
  const inTurn = (answer: () => void | Promise<void>) => {
    answered = answered.then(answer).catch((err) => log.warn({ err }, 'realtime answer failed'));
  };
  const deps: ChannelDeps = {
    ...node.sessions,
    openSeeks: node.deps.openSeeks,
    tournamentExists: node.deps.tournamentExists,
    // A token makes this socket one of its user's, which the user may have only so many of.
    authenticate: node.caps.authenticateFor(peer, socketAuthenticate(node.deps.authenticate)),
  };
  peer.onClose(() => {
    for (const s of subscriptions.values()) s.close();
    subscriptions.clear();
  });
  peer.receive((parsed) => {
    if (!parsed.ok) {
      const refusal = errorMessage('VALIDATION_ERROR', parsed.error.message, parsed.error.details ? { details: parsed.error.details } : {}, now());
      return inTurn(() => peer.refuse(refusal));
    }
    const m = parsed.value;
    inTurn(() => answer(m));
  });

  /** Answers a subscribe or an unsubscribe: resolves once its answer went out. */
  function answer(m: Exclude<ClientMessage, { type: 'ping' }>): void | Promise<void> {
    if (!peer.open) return;
    const reply = { ...(m.id !== undefined ? { id: m.id } : {}) };
    const name = parseChannel(m.channel);
    const channel = name ? formatChannel(name) : m.channel;
    if (m.type === 'unsubscribe') {
      subscriptions.get(channel)?.close();
      subscriptions.delete(channel);
      return peer.send({ type: 'unsubscribed', channel, ...reply, ts: now() });
    }
    if (!name) {
      return peer.refuse(
        errorMessage('VALIDATION_ERROR', 'Unknown channel: game:<id>, user:<your id>, tournament:<id>, lobby or tv', { channel, ...reply, details: { channel: ['is not a channel'] } }, now()),
      );
    }
    if (subscriptions.has(channel)) return peer.send({ type: 'subscribed', channel, ...reply, ts: now() });
    if (subscriptions.size >= MAX_CHANNELS) {
      return peer.send(errorMessage('VALIDATION_ERROR', `At most ${MAX_CHANNELS} channels per socket`, { channel, ...reply }, now()));
    }
    return new Promise<void>((done) => {
      const subscription = new ChannelSubscription(peer, channel, reply, now, (ended) => {
        if (ended && subscriptions.get(channel) === subscription) subscriptions.delete(channel);
        done();
      });
      subscriptions.set(channel, subscription);
      openChannel(deps, subscription, { name, channel, token: m.token });
    });
  }
}

/**
 * One subscription of a realtime socket, as its session's subscriber: the channel's messages go
 * out on the socket, `subscribed` and an `error` that ends it name the channel and echo the
 * subscribe's `id`, and the socket stays for its other channels. Nothing more goes out once the
 * client unsubscribed, even what was on its way.
 */
class ChannelSubscription implements Connection {
  private closed = false;
  private readonly closing: Array<() => void> = [];

  constructor(
    private readonly peer: Peer,
    private readonly channel: string,
    private readonly reply: Echo,
    private readonly now: () => number,
    /** The subscribe is answered: `subscribed`, or `ended` (refused, or over). */
    private readonly answered: (ended: boolean) => void,
  ) {}

  get open(): boolean {
    return !this.closed && this.peer.open;
  }

  get buffered(): number {
    return this.peer.buffered;
  }

  send(message: ServerMessage | Wire<ServerMessage>): void {
    if (!this.closed) this.peer.send(message);
  }

  begin(): void {
    if (this.closed) return;
    this.peer.send({ type: 'subscribed', channel: this.channel, ...this.reply, ts: this.now() });
    this.answered(false);
  }

  /** A game's end ends the subscription quietly; any other ending is its `error`. */
  end(ending: Ending): void {
    if (this.closed) return;
    this.close();
    const told = tell(ending);
    if (told) this.peer.send(errorMessage(told.code, told.message, { channel: this.channel, ...this.reply }, this.now()));
    this.answered(true);
  }

  onClose(f: () => void): void {
    if (this.closed) f();
    else this.closing.push(f);
  }

  /** The client unsubscribed, or the socket closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const f of this.closing.splice(0)) f();
  }
}

/** What a subscription's `error` says of an ending (none for a game that ended). */
function tell(ending: Ending): Pick<ErrorMessage, 'code' | 'message'> | undefined {
  switch (ending.kind) {
    case 'over':
      return undefined;
    case 'refused':
      return ending.error;
    case 'failed':
      return { code: 'SERVICE_UNAVAILABLE', message: 'Could not subscribe; try again' };
    case 'broken':
      return { code: 'SERVICE_UNAVAILABLE', message: 'The game could not be read; subscribe again' };
  }
}

import type { WebSocket } from 'ws';
import { openChannel, type ChannelDeps, type Subscription } from './channels.ts';
import type { RealtimeNode } from './deps.ts';
import { errorMessage, formatChannel, parseChannel, type ClientMessage } from './messages.ts';

/** Channels one realtime socket may listen to at once. */
const MAX_CHANNELS = 100;

/**
 * The realtime channel (`/realtime`): subscribe / unsubscribe / ping, many channels per socket.
 * Subscribes and unsubscribes are answered in the order they came (a subscribe's answer waits on
 * its token's check): each is taken up once the one before it is answered. A ping is answered at once.
 */
export function serveChannelSocket(node: RealtimeNode, ws: WebSocket): void {
  const { log, now } = node;
  const peer = node.connections.socket(ws);
  const subscriptions = new Map<string, Subscription>();
  let answered: Promise<void> = Promise.resolve();
  const inTurn = (answer: () => void | Promise<void>) => {
    answered = answered.then(answer).catch((err) => log.warn({ err }, 'realtime answer failed'));
  };
  const channelDeps: ChannelDeps = {
    ...node.channels,
    // A token makes this socket one of its user's, which the user may have only so many of.
    authenticate: async (token) => {
      const user = await node.deps.authenticate(token);
      const over = node.caps.admitUser(peer, user.id);
      if (over) throw over;
      return user;
    },
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
        errorMessage('VALIDATION_ERROR', 'Unknown channel: game:<id>, user:<your id>, tournament:<id> or lobby', { channel, ...reply, details: { channel: ['is not a channel'] } }, now()),
      );
    }
    if (subscriptions.has(channel)) return peer.send({ type: 'subscribed', channel, ...reply, ts: now() });
    if (subscriptions.size >= MAX_CHANNELS) {
      return peer.send(errorMessage('VALIDATION_ERROR', `At most ${MAX_CHANNELS} channels per socket`, { channel, ...reply }, now()));
    }
    return new Promise<void>((done) => {
      const subscription = openChannel(channelDeps, {
        channel,
        name,
        token: m.token,
        send: (text) => peer.send(text),
        subscribed: () => {
          peer.send({ type: 'subscribed', channel, ...reply, ts: now() });
          done();
        },
        refused: (code, message) => {
          if (subscriptions.get(channel) === subscription) subscriptions.delete(channel);
          peer.send(errorMessage(code, message, { channel, ...reply }, now()));
          done();
        },
        ended: () => {
          if (subscriptions.get(channel) === subscription) subscriptions.delete(channel);
          done();
        },
      });
      subscriptions.set(channel, subscription);
    });
  }
}

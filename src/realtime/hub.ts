import type { Channel, EventBus } from '../events.ts';
import { formatServerMessage, type GameStreamEvent, type WithChannel, type Wire } from './messages.ts';

/**
 * One published message as every local subscriber gets it: parsed once per node, its JSON kept
 * to be sent as is (the stream), and the realtime channel's variant with `channel` made once per
 * channel, not once per socket.
 */
export class Relayed<M> {
  private variants?: Map<string, Wire<WithChannel<M>>>;
  constructor(
    readonly json: Wire<M>,
    readonly data: { type?: unknown; v?: unknown; ts?: unknown; [k: string]: unknown },
  ) {}

  get type(): string {
    return typeof this.data.type === 'string' ? this.data.type : '';
  }

  /** The per-game event number (time_update carries the current one). */
  get v(): number {
    return typeof this.data.v === 'number' ? this.data.v : -1;
  }

  /** The same JSON with `channel` first: `{"channel":"game:…",…}`. */
  withChannel(channel: string): Wire<WithChannel<M>> {
    this.variants ??= new Map();
    let text = this.variants.get(channel);
    if (text === undefined) this.variants.set(channel, (text = withChannel(this.json, channel)));
    return text;
  }

  /**
   * This message with `"v":v` added at its end, for a message that is no game event (chat): it
   * carries the viewer's current event number, as time_update does. The last one made is kept, as
   * a node's viewers of a game are mostly at the same number.
   */
  at(v: number): Relayed<M & { v: number }> {
    if (this.lastAt?.v !== v) {
      const json = `${this.json.slice(0, -1)},"v":${v}}` as Wire<M & { v: number }>;
      this.lastAt = { v, relayed: new Relayed(json, { ...this.data, v }) };
    }
    return this.lastAt.relayed as Relayed<M & { v: number }>;
  }
  private lastAt?: { v: number; relayed: Relayed<unknown> };

  /** A stream message made on this node (a state, a time_update) to go where relayed ones go. */
  static of<M extends GameStreamEvent>(data: M): Relayed<M> {
    return new Relayed(formatServerMessage(data), data);
  }
}

/** `{"channel":…,` spliced in front of an object's members, without parsing it again. */
export const withChannel = <M>(json: Wire<M>, channel: string) =>
  (json === '{}' ? `{"channel":${JSON.stringify(channel)}}` : `{"channel":${JSON.stringify(channel)},${json.slice(1)}`) as Wire<WithChannel<M>>;

type Listener = (message: Relayed<unknown>) => void;
type Entry = { listeners: Set<Listener>; ready: Promise<() => void> };

/**
 * The presence subscriptions of this node's sockets: one per channel however many sockets listen
 * (a game with 1,000 spectators here is one subscription, one parse per message), dropped when
 * the last listener leaves.
 */
export class ChannelHub {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly bus: Pick<EventBus, 'subscribeRaw'>) {}

  /** Listens to `channel`; resolves once the subscription is live, with the way to stop listening. */
  async listen<Event>(channel: Channel<Event>, listen: (message: Relayed<Event>) => void): Promise<() => void> {
    // One entry serves a channel's listeners whatever they were told it carries: its name says that.
    const listener = listen as Listener;
    let entry = this.entries.get(channel);
    if (!entry) {
      const listeners = new Set<Listener>();
      const ready = this.bus.subscribeRaw(channel, (json) => {
        let data: Relayed<unknown>['data'];
        try {
          data = JSON.parse(json);
        } catch {
          return;
        }
        const message = new Relayed(json as Wire<unknown>, data);
        for (const l of listeners) l(message);
      });
      this.entries.set(channel, (entry = { listeners, ready }));
      ready.catch(() => this.entries.get(channel) === entry && this.entries.delete(channel));
    }
    entry.listeners.add(listener);
    try {
      await entry.ready;
    } catch (error) {
      entry.listeners.delete(listener);
      throw error;
    }
    const current = entry;
    return () => {
      if (!current.listeners.delete(listener) || current.listeners.size > 0) return;
      if (this.entries.get(channel) === current) this.entries.delete(channel);
      void current.ready.then((stop) => stop());
    };
  }

  /** Channels this node listens to (metrics). */
  get size(): number {
    return this.entries.size;
  }
}

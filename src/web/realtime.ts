// The realtime channel (README, "Realtime over plain WebSocket"): one socket, a subscription to
// one channel, the token in the subscribe message (never in the URL). A dropped socket is opened
// again and the channel subscribed again; the first message of a game channel is then a fresh
// `state`, so nothing is missed.

export type ChannelMessage = { type: string; channel?: string; ts?: number; v?: number; [key: string]: unknown };

export type Subscription = { close: () => void };

export function subscribe(
  channel: string,
  o: {
    token: () => Promise<string | undefined>;
    onMessage: (message: ChannelMessage) => void;
    /** `error` for this channel (GAME_NOT_FOUND, UNAUTHORIZED, …): the subscription stops. */
    onError: (code: string, message: string) => void;
    onStatus?: (connected: boolean) => void;
  },
): Subscription {
  let socket: WebSocket | undefined;
  let closed = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The socket's subscription was answered `subscribed`. */
  let live = false;

  const open = () => {
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/realtime`);
    socket = ws;
    live = false;
    ws.onopen = async () => {
      const token = await o.token().catch(() => undefined);
      if (ws.readyState !== WebSocket.OPEN) return;
      ws.send(JSON.stringify({ type: 'subscribe', channel, ...(token ? { token } : {}) }));
    };
    ws.onmessage = (event) => {
      let m: ChannelMessage;
      try {
        m = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (m.type === 'subscribed') {
        attempt = 0;
        live = true;
        o.onStatus?.(true);
      } else if (m.type === 'error' && m.code === 'UNAUTHORIZED' && m.channel === channel && live) {
        // The token a live subscription was made with ended (it expired; or the session did, and
        // subscribing again is refused): as after a drop, subscribe again with a fresh one.
        ws.close();
      } else if (m.type === 'error' && (m.channel === channel || m.channel === undefined)) {
        closed = true;
        ws.close();
        o.onError(String(m.code), String(m.message ?? m.code));
      } else if (m.channel === channel) {
        o.onMessage(m);
      }
    };
    ws.onclose = () => {
      if (closed) return;
      o.onStatus?.(false);
      timer = setTimeout(open, Math.min(5000, 250 * 2 ** attempt++));
    };
  };
  open();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      socket?.close();
    },
  };
}

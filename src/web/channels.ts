// Many channels of the realtime channel on one socket (the Watch page follows the TV and every
// listed game): subscribed as asked, again after a dropped socket. No token: what it follows is
// public. One socket per page instead of one per game keeps a page far inside the address's
// socket cap.

import type { ChannelMessage } from './realtime.ts';

export type ChannelSet = {
  /** Follows `channel` (again after a drop) until `drop(channel)`. */
  add: (channel: string) => void;
  drop: (channel: string) => void;
  close: () => void;
};

export function openChannels(onMessage: (channel: string, message: ChannelMessage) => void): ChannelSet {
  const wanted = new Set<string>();
  let socket: WebSocket | undefined;
  let closed = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const send = (m: object) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(m));
  };
  const open = () => {
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/realtime`);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      for (const channel of wanted) send({ type: 'subscribe', channel });
    };
    ws.onmessage = (event) => {
      let m: ChannelMessage;
      try {
        m = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (typeof m.channel === 'string' && wanted.has(m.channel)) onMessage(m.channel, m);
    };
    ws.onclose = () => {
      if (closed) return;
      timer = setTimeout(open, Math.min(5000, 250 * 2 ** attempt++));
    };
  };
  open();
  return {
    add(channel) {
      if (wanted.has(channel)) return;
      wanted.add(channel);
      send({ type: 'subscribe', channel });
    },
    drop(channel) {
      if (!wanted.delete(channel)) return;
      send({ type: 'unsubscribe', channel });
    },
    close() {
      closed = true;
      clearTimeout(timer);
      socket?.close();
    },
  };
}

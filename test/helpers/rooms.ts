import type { Room } from '@colyseus/sdk';

export type Message = Record<string, any>;

/** Resolves with the next message of `type` the room receives. */
export function nextMessage(room: Room, type: string, timeoutMs = 5000): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms`)), timeoutMs);
    const off = room.onMessage(type, (m: Message) => {
      clearTimeout(timer);
      off();
      resolve(m);
    });
  });
}

/** Sends a GameRoom command with a request id and resolves with its answer: `<name>:ok` or `error`. */
export function command(room: Room, name: string, payload: Message = {}): Promise<{ type: string; body: Message }> {
  const id = Math.floor(Math.random() * 1e9);
  const answer = new Promise<{ type: string; body: Message }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${name}`)), 5000);
    const done = (type: string) => (body: Message) => {
      if (body.id !== id) return;
      clearTimeout(timer);
      offOk();
      offErr();
      resolve({ type, body });
    };
    const offOk = room.onMessage(`${name}:ok`, done(`${name}:ok`));
    const offErr = room.onMessage('error', done('error'));
  });
  room.send(name, { ...payload, id });
  return answer;
}

import { isDeepStrictEqual } from 'node:util';
import type { Room } from '@colyseus/sdk';

import type { ErrorBody, GameClientMessages, GameRequest, ServerBody, ServerMessage } from '../../rooms/messages.ts';

export type Message = Record<string, any>;

/** Resolves with the body of the next message of `type` the room receives, typed by the catalogue (rooms/messages.ts). */
export function nextMessage<T extends ServerMessage['type']>(room: Room, type: T, timeoutMs = 5000): Promise<ServerBody<T>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms`)), timeoutMs);
    const off = room.onMessage(type, (m: ServerBody<T>) => {
      clearTimeout(timer);
      off();
      resolve(m);
    });
  });
}

/** A command's answer: `<name>:ok` with the command's answer, or `error`. */
export type Answer<C extends GameRequest> = { type: `${C}:ok`; body: ServerBody<`${C}:ok`> } | { type: 'error'; body: ErrorBody };

/**
 * Sends a GameRoom command with a request id and resolves with its answer. The payload may be
 * anything, so a test can send what the schema refuses.
 */
export function command<C extends GameRequest>(room: Room, name: C, payload: Partial<GameClientMessages[C]> | Message = {}): Promise<Answer<C>> {
  const id = Math.floor(Math.random() * 1e9);
  const answer = new Promise<Answer<C>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${name}`)), 5000);
    const done = (type: Answer<C>['type']) => (body: Answer<C>['body']) => {
      if ((body as { id?: unknown }).id !== id) return;
      clearTimeout(timer);
      offOk();
      offErr();
      resolve({ type, body } as Answer<C>);
    };
    const offOk = room.onMessage(`${name}:ok`, done(`${name}:ok`));
    const offErr = room.onMessage('error', done('error'));
  });
  room.send(name, { ...payload, id });
  return answer;
}

/** The body of a command's `<name>:ok`; fails with the error when the room refused it. */
export async function expectOk<C extends GameRequest>(room: Room, name: C, payload?: Partial<GameClientMessages[C]> | Message): Promise<ServerBody<`${C}:ok`>> {
  const answer = await command(room, name, payload);
  if (answer.type === 'error') throw new Error(`${name} refused: ${JSON.stringify(answer.body)}`);
  return answer.body as ServerBody<`${C}:ok`>;
}

/** The error a command was refused with; fails when the room accepted it. */
export async function expectError<C extends GameRequest>(room: Room, name: C, payload?: Partial<GameClientMessages[C]> | Message): Promise<ErrorBody> {
  const answer = await command(room, name, payload);
  if (answer.type !== 'error') throw new Error(`${name} was accepted: ${JSON.stringify(answer.body)}`);
  return answer.body as ErrorBody;
}

/** A plain JSON copy of a schema state, the server's or a client's decoded one, for deep comparison. */
export function plainState(state: unknown): unknown {
  return JSON.parse(JSON.stringify((state as { toJSON(): unknown }).toJSON()));
}

/**
 * Resolves once every room's decoded state equals the server's (`server()`, read afresh at each
 * check) and `until` holds for the server's; checks again on each room's state change, so it
 * waits for the patches instead of sleeping. After `timeoutMs` it fails with the first room
 * that still differs, both states in the message.
 */
export function statesSettle(
  rooms: Room[],
  server: () => unknown,
  until: (serverState: any) => boolean = () => true,
  timeoutMs = 3000,
): Promise<void> {
  return Promise.all(
    rooms.map(
      (room, i) =>
        new Promise<void>((resolve, reject) => {
          const settled = () => {
            const expected = server();
            return until(expected) && isDeepStrictEqual(plainState(room.state), expected);
          };
          if (settled()) return resolve();
          const check = () => {
            if (!settled()) return;
            clearTimeout(timer);
            room.onStateChange.remove(check);
            resolve();
          };
          const timer = setTimeout(() => {
            room.onStateChange.remove(check);
            const detail = `client ${i}: ${JSON.stringify(plainState(room.state))}\nserver:   ${JSON.stringify(server())}`;
            reject(new Error(`room state did not settle within ${timeoutMs} ms\n${detail}`));
          }, timeoutMs);
          room.onStateChange(check);
        }),
    ),
  ).then(() => undefined);
}

/**
 * Records what the schema decoder warns about (e.g. "@colyseus/schema: definition mismatch" when
 * a patch arrives corrupt) while the SDK runs in this process; `restore()` puts console back.
 */
export function captureSchemaWarnings(): { warnings: string[]; restore(): void } {
  const warnings: string[] = [];
  const { warn, error } = console;
  const record = (original: (...args: unknown[]) => void) => (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (/@colyseus\/schema|definition mismatch/i.test(text)) warnings.push(text);
    original.apply(console, args);
  };
  console.warn = record(warn);
  console.error = record(error);
  return {
    warnings,
    restore() {
      console.warn = warn;
      console.error = error;
    },
  };
}

/** Leaves every room in `rooms` (emptying the list), each given a second at most: a test's clean-up. */
export async function leaveRooms(rooms: Room[]): Promise<void> {
  const leave = (r: Room) => Promise.race([r.leave().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);
  await Promise.all(rooms.splice(0).map(leave));
}

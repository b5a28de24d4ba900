import { z } from 'zod';
import { parseId } from '../domain/ids.ts';
import { issuesToDetails } from '../util/zod.ts';

/** What a client may send on the realtime channel (and `ping` on the stream), DESIGN 2.6. */
const Id = z.union([z.string().max(64), z.number()]).optional();
const Channel = z.string().min(1).max(100);
export const ClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), channel: Channel, token: z.string().max(4096).optional(), id: Id }),
  z.object({ type: z.literal('unsubscribe'), channel: Channel, id: Id }),
  z.object({ type: z.literal('ping'), id: Id }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; details?: Record<string, string[]> };

/** A client frame: JSON text holding one of ClientMessage. */
export function parseClientMessage(data: unknown, isBinary: boolean): Parsed<ClientMessage> {
  if (isBinary) return { ok: false, message: 'Send JSON text frames' };
  let json: unknown;
  try {
    json = JSON.parse(String(data));
  } catch {
    return { ok: false, message: 'Not JSON' };
  }
  const parsed = ClientMessage.safeParse(json);
  if (!parsed.success) return { ok: false, message: 'Invalid message', details: issuesToDetails(parsed.error.issues) };
  return { ok: true, value: parsed.data };
}

/**
 * The channels of DESIGN 2.6 and 2.10: a game's events, a user's own personal events, the open
 * seeks, an arena's pairings and standings.
 */
export type ChannelName = { kind: 'game' | 'user' | 'tournament'; id: string } | { kind: 'lobby' };

/** A channel as the client named it, its id parsed (lower-cased); undefined when it is none. */
export function parseChannel(channel: string): ChannelName | undefined {
  if (channel === 'lobby') return { kind: 'lobby' };
  const m = /^(game|user|tournament):(.+)$/.exec(channel);
  const id = m && parseId(m[2]);
  if (!m || !id) return undefined;
  return { kind: m[1] as 'game' | 'user' | 'tournament', id };
}

/**
 * The channel's one name: the socket's key for it, the bus channel it listens to, and the
 * `channel` of what it sends, however the client spelled its id.
 */
export const formatChannel = (name: ChannelName): string => (name.kind === 'lobby' ? 'lobby' : `${name.kind}:${name.id}`);

import { schema, t, type SchemaType } from '@colyseus/schema';

/** An open seek as the lobby lists it: src/services/seekViews.ts's SeekView, flattened. */
export const SeekState = schema(
  {
    id: t.string(),
    userId: t.string(),
    username: t.string(),
    rating: t.int32(),
    timeControl: t.string(),
    initialTime: t.uint16(),
    increment: t.uint16(),
    rated: t.boolean(),
    /** The seeker's colour preference: white, black or random. */
    color: t.string(),
    /** ISO 8601 UTC. */
    createdAt: t.string(),
    /** Server time (Unix ms) when the seek lapses; the lobby drops it then. */
    expiresAt: t.float64(),
  },
  'SeekState',
);
export type SeekState = SchemaType<typeof SeekState>;

export const LobbyState = schema(
  {
    /** Open seeks by id. */
    seeks: t.map(SeekState),
  },
  'LobbyState',
);
export type LobbyState = SchemaType<typeof LobbyState>;

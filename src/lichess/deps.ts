import type { AppContext } from '../context.ts';
import type { Realtime } from '../realtime/index.ts';
import type { Services } from '../services/index.ts';

/** What the Lichess surface is built from (src/lichess/index.ts). */
export type LichessDeps = {
  ctx: AppContext;
  services: Services;
  /** The realtime side, which hosts the streams (made after the side app: read when a stream opens). */
  streams: () => Realtime | undefined;
};

import type { LichessDeps } from './deps.ts';
import type { LichessRoute } from './route.ts';

export function eventRoutes(_d: LichessDeps): LichessRoute[] {
  return [];
}

import type { LichessDeps } from './deps.ts';
import type { LichessRoute } from './route.ts';

export function challengeRoutes(_d: LichessDeps): LichessRoute[] {
  return [];
}

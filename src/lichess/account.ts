import type { LichessDeps } from './deps.ts';
import type { LichessRoute } from './route.ts';

export function accountRoutes(_d: LichessDeps): LichessRoute[] {
  return [];
}

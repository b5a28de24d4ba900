import type { Services } from '../../services/index.ts';
import type { Route } from '../route.ts';

/** Every API route, in one list: it mounts them and documents them (OpenAPI). */
export function buildRoutes(_services: Services): Route[] {
  return [];
}

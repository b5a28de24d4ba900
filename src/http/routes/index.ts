import type { Services } from '../../services/index.ts';
import type { Route } from '../route.ts';
import { accountRoutes } from './account.ts';
import { analysisRoutes } from './analysis.ts';
import { authRoutes } from './auth.ts';
import { chatRoutes } from './chat.ts';
import { clubRoutes } from './clubs.ts';
import { friendRoutes } from './friends.ts';
import { gameExportRoutes } from './gameExport.ts';
import { gameRoutes } from './games.ts';
import { puzzleRoutes } from './puzzles.ts';
import { tournamentRoutes } from './tournaments.ts';
import { userRoutes } from './users.ts';
import { watchingRoutes } from './watching.ts';
import { webhookRoutes } from './webhooks.ts';

/** Every API route, in one list: it mounts them and documents them (OpenAPI). */
export function buildRoutes(services: Services): Route[] {
  return [...authRoutes(services), ...userRoutes(services), ...accountRoutes(services), ...watchingRoutes(services), ...gameRoutes(services), ...gameExportRoutes(services), ...chatRoutes(services), ...analysisRoutes(services), ...webhookRoutes(services), ...friendRoutes(services), ...clubRoutes(services), ...puzzleRoutes(services), ...tournamentRoutes(services)];
}

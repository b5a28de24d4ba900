// src/domain/fastMove.ts plays moves through chess.js's private internals, checked against one
// version only. package.json pins that version, but a stale node_modules, `npm install
// chess.js@latest` or another copy resolved first can still put a different one where Node finds
// it; the fast path would then misplay moves without an error, so the service refuses to start.
import { createRequire } from 'node:module';
import { FAST_PATH_CHESS_JS } from './domain/fastMove.ts';

/** The version of the chess.js that this project's imports resolve to. */
export function installedChessJsVersion(): string {
  // chess.js 1.4.0 has no `exports` map, so its package.json can be required by name; a version
  // that hides it is a different version anyway, and the caller says so.
  const manifest = createRequire(import.meta.url)('chess.js/package.json') as { version: string };
  return manifest.version;
}

/** Throws unless the installed chess.js is the one the fast move path was checked against. */
export function assertPinnedChessJs(installed?: string, expected: string = FAST_PATH_CHESS_JS): void {
  let version = installed;
  if (version === undefined) {
    try {
      version = installedChessJsVersion();
    } catch (error) {
      version = `of unknown version (${(error as Error).message})`;
    }
  }
  if (version === expected) return;
  throw new Error(
    `chess.js ${version} is installed, but the fast move path (src/domain/fastMove.ts) uses the ` +
      `internals of chess.js ${expected} only: install chess.js ${expected} (npm ci), or check ` +
      `fastMove.ts against the new version and update FAST_PATH_CHESS_JS and package.json together`,
  );
}

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertPinnedChessJs, installedChessJsVersion } from '../src/chessVersion.ts';
import { FAST_PATH_CHESS_JS } from '../src/domain/fastMove.ts';

describe('the startup check of the installed chess.js', () => {
  it('passes when the installed version is the one the fast path was checked against', () => {
    assert.doesNotThrow(() => assertPinnedChessJs('1.4.0', '1.4.0'));
  });

  it('refuses a different version, naming both', () => {
    assert.throws(
      () => assertPinnedChessJs('1.4.1', '1.4.0'),
      (error: Error) => error.message.includes('chess.js 1.4.1 is installed') && error.message.includes('chess.js 1.4.0 only'),
    );
  });

  it('reads the version of the chess.js that is installed here', () => {
    const manifest = JSON.parse(readFileSync(new URL('../node_modules/chess.js/package.json', import.meta.url), 'utf8'));
    assert.equal(installedChessJsVersion(), manifest.version);
  });

  it('expects the version package.json pins, so a bump of one without the other fails here', () => {
    const project = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(project.dependencies['chess.js'], FAST_PATH_CHESS_JS);
  });

  it('lets this installation start', () => {
    assert.doesNotThrow(() => assertPinnedChessJs());
  });
});

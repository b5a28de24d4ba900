import assert from 'node:assert/strict';
import { GAME_COLUMN_NAMES, UNREAD_GAME_COLUMNS } from '../../src/db/games.ts';
import { testService } from '../helpers/service.ts';

describe('the columns a game read names', () => {
  it('are every column of games (a new column must be read by the detail too, or said to be unread)', async () => {
    const { service } = await testService();
    const { rows } = await service.ctx.pool.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'games'`,
    );
    assert.deepEqual(
      rows.map((r) => r.column_name as string).sort(),
      [...GAME_COLUMN_NAMES, ...UNREAD_GAME_COLUMNS].sort(),
    );
  });
});

import assert from 'node:assert/strict';
import { GAME_COLUMN_NAMES, toGameRecord, UNREAD_GAME_COLUMNS } from '../../src/db/games.ts';
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

describe('toGameRecord', () => {
  it('carries every column a read names to its camelCase field', () => {
    // Each column holds its own name: a column the record drops, or puts under another field, shows.
    const row = Object.fromEntries(GAME_COLUMN_NAMES.map((c) => [c, c]));
    const record = toGameRecord(row) as Record<string, unknown>;
    const camel = (c: string) => c.replace(/_([a-z])/g, (_, x: string) => x.toUpperCase());
    assert.deepEqual(record, Object.fromEntries(GAME_COLUMN_NAMES.map((c) => [camel(c), c])));
  });

  it('dates the last change by the later of updated_at and last_move_at (a move writes only the second)', () => {
    const updated = new Date('2026-01-01T00:00:00Z');
    const moved = new Date('2026-01-01T00:05:00Z');
    assert.equal(toGameRecord({ updated_at: updated, last_move_at: moved }).updatedAt, moved);
    assert.equal(toGameRecord({ updated_at: moved, last_move_at: updated }).updatedAt, moved);
    assert.equal(toGameRecord({ updated_at: updated, last_move_at: null }).updatedAt, updated);
  });
});

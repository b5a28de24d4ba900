import assert from 'node:assert/strict';
import { categoryOf, validateTimeControl } from '../../src/domain/timeControl.js';

describe('timeControl', () => {
  describe('categoryOf', () => {
    it('files games estimated under 3 minutes as bullet', () => {
      assert.equal(categoryOf(60, 0), 'bullet');
      assert.equal(categoryOf(120, 1), 'bullet'); // 160 s
    });

    it('files games estimated from 3 to under 8 minutes as blitz', () => {
      assert.equal(categoryOf(180, 0), 'blitz');
      assert.equal(categoryOf(300, 3), 'blitz'); // 420 s
      assert.equal(categoryOf(479, 0), 'blitz');
    });

    it('files games estimated from 8 to under 25 minutes as rapid', () => {
      assert.equal(categoryOf(480, 0), 'rapid');
      assert.equal(categoryOf(600, 5), 'rapid'); // 800 s
    });

    it('files games estimated at 25 minutes or more as classical', () => {
      assert.equal(categoryOf(1500, 0), 'classical');
      assert.equal(categoryOf(900, 15), 'classical'); // exactly 1500 s
    });

    it('counts the increment forty times', () => {
      assert.equal(categoryOf(0, 5), 'blitz'); // 200 s
    });
  });

  describe('validateTimeControl', () => {
    it('accepts a time control that matches its category', () => {
      const result = validateTimeControl({ time_control: 'blitz', initial_time: 300, increment: 2 });
      assert.deepEqual(result, { ok: true, value: { time_control: 'blitz', initial_time: 300, increment: 2, days_per_move: null } });
    });

    it('refuses a category that does not match the clock and names the expected one', () => {
      const result = validateTimeControl({ time_control: 'classical', initial_time: 60, increment: 0 });
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.deepEqual(Object.keys(result.error), ['time_control']);
      assert.match(result.error.time_control!, /bullet/);
    });

    it('refuses both initial time and increment being zero', () => {
      const result = validateTimeControl({ time_control: 'bullet', initial_time: 0, increment: 0 });
      assert.equal(result.ok, false);
      if (!result.ok) assert.ok(result.error.initial_time);
    });

    it('refuses an initial time above three hours', () => {
      const result = validateTimeControl({ time_control: 'classical', initial_time: 10_801, increment: 0 });
      assert.equal(result.ok, false);
      if (!result.ok) assert.ok(result.error.initial_time);
    });

    it('accepts the limits themselves', () => {
      assert.equal(validateTimeControl({ time_control: 'classical', initial_time: 10_800, increment: 180 }).ok, true);
      assert.equal(validateTimeControl({ time_control: 'classical', initial_time: 0, increment: 180 }).ok, true);
    });

    it('refuses an increment above 180 seconds or below zero', () => {
      for (const increment of [181, -1]) {
        const result = validateTimeControl({ time_control: 'classical', initial_time: 600, increment });
        assert.equal(result.ok, false);
        if (!result.ok) assert.ok(result.error.increment);
      }
    });

    it('refuses fractional and non-numeric times', () => {
      const result = validateTimeControl({ time_control: 'blitz', initial_time: 300.5, increment: '2' });
      assert.equal(result.ok, false);
      if (!result.ok) assert.deepEqual(Object.keys(result.error).sort(), ['increment', 'initial_time']);
    });

    it('refuses an unknown category', () => {
      const result = validateTimeControl({ time_control: 'hyperbullet', initial_time: 30, increment: 0 });
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.error.time_control!, /bullet, blitz, rapid, classical/);
    });
  });
});

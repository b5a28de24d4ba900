import assert from 'node:assert/strict';
import { resumeAfterOutage, type StoredClocks } from '../../src/domain/outage.ts';

const base: StoredClocks = {
  whiteMs: 60_000,
  blackMs: 60_000,
  sideToMove: 'white',
  turnStartedAt: 10_000,
  hostedAt: 10_000,
  firstMoveDeadline: null,
  firstMoveMs: 30_000,
};

describe('clocks across an outage', () => {
  it('charges the side to move for the hosted part of its turn, and not for the gap after it', () => {
    // Hosted until 14 s (the last lease renewal), taken over at 40 s.
    const r = resumeAfterOutage({ ...base, hostedAt: 14_000 }, 40_000);
    assert.deepEqual(r, { whiteMs: 56_000, blackMs: 60_000, firstMoveDeadline: null });
  });

  it('charges Black when Black is to move', () => {
    const r = resumeAfterOutage({ ...base, sideToMove: 'black', hostedAt: 12_500 }, 99_000);
    assert.deepEqual([r.whiteMs, r.blackMs], [60_000, 57_500]);
  });

  it('never charges more than the clock holds', () => {
    assert.equal(resumeAfterOutage({ ...base, whiteMs: 1000, hostedAt: 20_000 }, 25_000).whiteMs, 0);
  });

  it('charges nothing when the clock was not running', () => {
    const r = resumeAfterOutage({ ...base, turnStartedAt: null, hostedAt: 50_000 }, 90_000);
    assert.deepEqual([r.whiteMs, r.blackMs], [60_000, 60_000]);
  });

  it('moves the first-move deadline on by the time nobody hosted the game', () => {
    // The deadline was set at 10 s for 40 s; hosted until 25 s; taken over at 100 s: 15 s remain.
    const r = resumeAfterOutage({ ...base, turnStartedAt: null, hostedAt: 25_000, firstMoveDeadline: 40_000 }, 100_000);
    assert.equal(r.firstMoveDeadline, 115_000);
  });

  it('keeps a first-move deadline that passed while a node still hosted the game passed', () => {
    const r = resumeAfterOutage({ ...base, turnStartedAt: null, hostedAt: 45_000, firstMoveDeadline: 40_000 }, 100_000);
    assert.ok(r.firstMoveDeadline! <= 100_000, `deadline ${r.firstMoveDeadline} should not be in the future`);
  });

  it('knows the game was hosted when its deadline was set, even without a renewal since', () => {
    const r = resumeAfterOutage({ ...base, turnStartedAt: null, hostedAt: null, firstMoveDeadline: 40_000 }, 70_000);
    assert.equal(r.firstMoveDeadline, 100_000);
  });

  it('trusts no renewal stamped after the takeover (another clock running fast)', () => {
    const r = resumeAfterOutage({ ...base, hostedAt: 90_000 }, 50_000);
    assert.equal(r.whiteMs, 20_000);
  });
});

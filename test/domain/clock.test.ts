import assert from 'node:assert/strict';
import { ChessClock, lagQuotaGainMs } from '../../src/domain/clock.js';

const MINUTE = 60_000;

/** A clock whose first two (untimed) moves were played; White's turn started at `start`. */
function startedClock(initialMs = MINUTE, incrementMs = 0, start = 1_000): ChessClock {
  const clock = new ChessClock({ initialMs, incrementMs });
  clock.move(start - 500);
  clock.move(start);
  return clock;
}

describe('ChessClock', () => {
  describe('before Black has moved', () => {
    it('charges no time to either side', () => {
      const clock = new ChessClock({ initialMs: MINUTE, incrementMs: 2_000 });
      clock.move(20_000); // White thought 20 s
      assert.deepEqual(clock.times(45_000), { white: MINUTE, black: MINUTE });
    });

    it('gives no increment for the first moves', () => {
      const clock = new ChessClock({ initialMs: MINUTE, incrementMs: 2_000 });
      assert.equal(clock.move(5_000).ok && clock.times(5_000).white, MINUTE);
      clock.move(9_000);
      assert.deepEqual(clock.times(9_000), { white: MINUTE, black: MINUTE });
    });

    it('has no flag time', () => {
      const clock = new ChessClock({ initialMs: MINUTE, incrementMs: 0 });
      assert.equal(clock.flagAt(), null);
      clock.move(1_000);
      assert.equal(clock.flagAt(), null);
      assert.equal(clock.flagged(10 * MINUTE), null);
    });

    it("starts White's clock when Black makes the first move", () => {
      const clock = new ChessClock({ initialMs: MINUTE, incrementMs: 0 });
      clock.move(1_000);
      clock.move(4_000);
      assert.equal(clock.running, true);
      assert.equal(clock.turn, 'white');
      assert.equal(clock.remaining('white', 10_000), MINUTE - 6_000);
    });
  });

  describe('once running', () => {
    it('charges the side to move only', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      assert.deepEqual(clock.times(8_000), { white: MINUTE - 7_000, black: MINUTE });
    });

    it('adds the increment to the mover after each move', () => {
      const clock = startedClock(MINUTE, 2_000, 1_000);
      const result = clock.move(4_000);
      assert.deepEqual(result, { ok: true, value: { color: 'white', remainingMs: MINUTE - 3_000 + 2_000, usedMs: 3_000, compensatedMs: 0 } });
      assert.equal(clock.turn, 'black');
      assert.equal(clock.remaining('black', 5_000), MINUTE - 1_000);
    });

    it('says when the flag of the side to move falls', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      assert.equal(clock.flagAt(), 1_000 + MINUTE);
      clock.move(11_000);
      assert.equal(clock.flagAt(), 11_000 + MINUTE);
    });

    it('reports the flagged colour from the flag time on', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      assert.equal(clock.flagged(MINUTE), null);
      assert.equal(clock.flagged(1_000 + MINUTE), 'white');
    });

    it('never shows negative time', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      assert.equal(clock.remaining('white', 10 * MINUTE), 0);
    });

    it('refuses a move made after the flag fell, whatever lag the client reports', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      const result = clock.move(1_000 + MINUTE + 50, 500);
      assert.deepEqual(result, { ok: false, error: { flagged: 'white' } });
      assert.equal(clock.turn, 'white');
    });

    it('accepts a move made just before the flag', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      const result = clock.move(MINUTE + 999);
      assert.equal(result.ok, true);
      if (result.ok) assert.equal(result.value.remainingMs, 1);
    });
  });

  describe('lag compensation', () => {
    it("uses Lichess's quota gain of min(1 s, estimate × 2/5 + 15 cs)", () => {
      assert.equal(lagQuotaGainMs({ initialMs: MINUTE, incrementMs: 0 }), 390); // 60 s → 24 + 15 cs
      assert.equal(lagQuotaGainMs({ initialMs: 180_000, incrementMs: 0 }), 870); // 72 + 15 cs
      assert.equal(lagQuotaGainMs({ initialMs: 300_000, incrementMs: 3_000 }), 1_000); // capped
    });

    it('starts each quota at three gains', () => {
      const clock = new ChessClock({ initialMs: MINUTE, incrementMs: 0 });
      assert.equal(clock.quota('white'), 1_170);
      assert.equal(clock.quota('black'), 1_170);
    });

    it('compensates the reported lag while the quota lasts', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      const result = clock.move(4_000, 500);
      assert.equal(result.ok && result.value.compensatedMs, 500);
      assert.equal(clock.remaining('white', 4_000), MINUTE - 2_500);
      assert.equal(clock.quota('white'), 1_170 - 500 + 390);
    });

    it('compensates no more than the quota', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      const result = clock.move(6_000, 3_000);
      assert.equal(result.ok && result.value.compensatedMs, 1_170);
      assert.equal(clock.quota('white'), 390);
    });

    it('compensates no more than the time the move took', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      const result = clock.move(1_200, 800);
      assert.equal(result.ok && result.value.compensatedMs, 200);
      assert.equal(clock.remaining('white', 1_200), MINUTE);
    });

    it('caps the quota at seven gains', () => {
      const clock = startedClock(MINUTE, 0, 0);
      for (let ply = 1; ply <= 20; ply++) clock.move(ply * 100, 0);
      assert.equal(clock.quota('white'), 7 * 390);
      assert.equal(clock.quota('black'), 7 * 390);
    });

    it('gives REST moves, which report no lag, no compensation', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      const result = clock.move(4_000);
      assert.equal(result.ok && result.value.compensatedMs, 0);
      assert.equal(clock.remaining('white', 4_000), MINUTE - 3_000);
    });

    it('ignores a negative or nonsensical lag', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      assert.equal(clock.move(2_000, -300).ok && clock.remaining('white', 2_000), MINUTE - 1_000);
      assert.equal(clock.move(3_000, Number.NaN).ok && clock.remaining('black', 3_000), MINUTE - 1_000);
    });
  });

  describe('pausing and rehydration', () => {
    it('charges the time up to the pause and none while paused', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      clock.pause(6_000);
      assert.equal(clock.flagAt(), null);
      assert.equal(clock.remaining('white', 50_000), MINUTE - 5_000);
      clock.resume(100_000);
      assert.equal(clock.remaining('white', 101_000), MINUTE - 6_000);
    });

    it('restores a snapshot without charging the gap during which no node hosted the game', () => {
      const clock = startedClock(MINUTE, 2_000, 1_000);
      clock.move(3_000);
      const snapshot = clock.snapshot(8_000); // Black thought 5 s, then the node died
      const restored = ChessClock.restore(JSON.parse(JSON.stringify(snapshot)), 500_000);
      assert.deepEqual(restored.times(500_000), { white: MINUTE, black: MINUTE - 5_000 });
      assert.equal(restored.turn, 'black');
      assert.equal(restored.flagAt(), 500_000 + MINUTE - 5_000);
      assert.equal(restored.quota('white'), clock.quota('white'));
    });

    it('snapshots the times at the start of the turn when no time is given', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      clock.move(3_000);
      assert.deepEqual(
        { white: clock.snapshot().whiteMs, black: clock.snapshot().blackMs },
        { white: MINUTE - 2_000, black: MINUTE },
      );
    });

    it('restores a game whose clocks had not started as still untimed', () => {
      const clock = new ChessClock({ initialMs: MINUTE, incrementMs: 0 });
      clock.move(1_000);
      const restored = ChessClock.restore(clock.snapshot(), 90_000);
      assert.equal(restored.running, false);
      assert.equal(restored.turn, 'black');
      restored.move(95_000);
      assert.equal(restored.flagAt(), 95_000 + MINUTE);
    });

    it('refuses to record a move while paused', () => {
      const clock = startedClock();
      clock.pause(2_000);
      assert.throws(() => clock.move(3_000));
    });

    it('books both times at a release and counts the running turn on from it', () => {
      const clock = startedClock(MINUTE, 0, 1_000);
      assert.deepEqual(clock.bookedAt(4_000), { whiteMs: MINUTE - 3_000, blackMs: MINUTE, turnStartedAt: 4_000 });
      assert.equal(clock.moveDeadline(), null, 'the room watches a live flag');
    });

    it('resumes after an outage charging the side to move only up to the last moment a node hosted the game', () => {
      const stored = { whiteMs: MINUTE, blackMs: MINUTE, sideToMove: 'white' as const, turnStartedAt: 1_000, hostedAt: 5_000, firstMoveDeadline: null, firstMoveMs: 30_000 };
      const { clock, firstMoveDeadline } = ChessClock.resume({ initialMs: MINUTE, incrementMs: 0 }, { ...stored, plies: 2 }, 20_000);
      assert.deepEqual(clock.times(20_000), { white: MINUTE - 4_000, black: MINUTE });
      assert.equal(clock.turnStart, 20_000);
      assert.equal(clock.quota('white'), 3 * lagQuotaGainMs({ initialMs: MINUTE, incrementMs: 0 }));
      assert.equal(firstMoveDeadline, null);
    });

    it('moves a first-move deadline on by the time nobody hosted the game', () => {
      const stored = { whiteMs: MINUTE, blackMs: MINUTE, sideToMove: 'black' as const, turnStartedAt: null, hostedAt: 10_000, firstMoveDeadline: 31_000, firstMoveMs: 30_000 };
      const { clock, firstMoveDeadline } = ChessClock.resume({ initialMs: MINUTE, incrementMs: 0 }, { ...stored, plies: 1, whiteQuotaMs: 7, blackQuotaMs: 8 }, 25_000);
      assert.equal(clock.running, false);
      assert.equal(firstMoveDeadline, 46_000);
      assert.deepEqual([clock.quota('white'), clock.quota('black')], [7, 8]);
    });
  });
});

describe('ChessClock per move (correspondence)', () => {
  const DAY = 86_400_000;
  /** A correspondence clock whose first turn (White's) began at `start`, as rehydration rebuilds it. */
  const correspondenceClock = (start: number) =>
    ChessClock.restore({ initialMs: DAY, incrementMs: 0, perMove: true, whiteMs: DAY, blackMs: DAY, plies: 0, whiteQuotaMs: 0, blackQuotaMs: 0 }, start);

  it('runs from the first move: White is charged for thinking before it', () => {
    const clock = correspondenceClock(0);
    assert.equal(clock.running, true);
    assert.deepEqual(clock.times(3_600_000), { white: DAY - 3_600_000, black: DAY });
    assert.equal(clock.flagAt(), DAY);
  });

  it("gives the mover the whole period again, and starts the opponent's at the move", () => {
    const clock = correspondenceClock(0);
    const moved = clock.move(20 * 3_600_000);
    assert.ok(moved.ok);
    assert.equal(moved.value.remainingMs, DAY);
    assert.deepEqual(clock.times(21 * 3_600_000), { white: DAY, black: DAY - 3_600_000 });
    assert.equal(clock.flagAt(), 20 * 3_600_000 + DAY);
  });

  it('flags a move after the deadline, first move included', () => {
    assert.equal(correspondenceClock(0).move(DAY).ok, false);
    assert.equal(correspondenceClock(0).flagged(DAY), 'white');
  });

  it('books nothing at a release or a takeback: the running turn keeps its start, every turn has the whole period', () => {
    const clock = correspondenceClock(0);
    clock.move(5 * 3_600_000);
    assert.deepEqual(clock.bookedAt(9 * 3_600_000), { whiteMs: DAY, blackMs: DAY, turnStartedAt: 5 * 3_600_000 });
  });

  it("keeps the deadline of the opponent's period for the sweeper", () => {
    const clock = correspondenceClock(0);
    assert.equal(clock.moveDeadline(), DAY);
    clock.move(3_600_000);
    assert.equal(clock.moveDeadline(), 3_600_000 + DAY);
  });

  it('resumes on any node from the turn it stored, whenever it is taken over, with no first-move deadline', () => {
    const stored = { whiteMs: DAY, blackMs: DAY, sideToMove: 'black' as const, turnStartedAt: 7_000, hostedAt: 9_000, firstMoveDeadline: null, firstMoveMs: 30_000 };
    const { clock, firstMoveDeadline } = ChessClock.resume({ initialMs: DAY, incrementMs: 0, perMove: true }, { ...stored, plies: 1 }, 50 * 3_600_000);
    assert.equal(clock.turnStart, 7_000);
    assert.equal(clock.flagAt(), 7_000 + DAY);
    assert.equal(clock.perMove, true);
    assert.equal(firstMoveDeadline, null);
  });

  it('keeps its kind in its snapshot, so a rebuilt clock is one too', () => {
    const rebuilt = ChessClock.fromState(correspondenceClock(5).state());
    assert.equal(rebuilt.perMove, true);
    assert.equal(rebuilt.flagAt(), 5 + DAY);
  });
});

// Clocks count down here, between the server's updates, from when the server says the turn
// began. The browser's clock may differ from the server's, so server time is estimated: every
// server timestamp seen (a message's `ts`, a turn's `turnStartedAt`) happened before it arrived,
// so `timestamp − arrival` is a lower bound of the offset, and the largest one seen is the best
// (off by the one-way delay of the fastest message, milliseconds on a good link).

export class ServerTime {
  private offset: number | undefined;

  /** A server timestamp (Unix ms) that has just arrived. */
  observe(serverMs: number, arrivedAt = Date.now()): void {
    if (!(serverMs > 0)) return;
    const bound = serverMs - arrivedAt;
    if (this.offset === undefined || bound > this.offset) this.offset = bound;
  }

  now(local = Date.now()): number {
    return local + (this.offset ?? 0);
  }
}

/** Both clocks as of `since` (server ms); the side to move's runs when `running`. */
export type ClockState = { whiteMs: number; blackMs: number; running: boolean; turn: 'white' | 'black'; since: number };

export function remainingMs(c: ClockState, color: 'white' | 'black', serverNow: number): number {
  const base = color === 'white' ? c.whiteMs : c.blackMs;
  if (!c.running || c.turn !== color) return Math.max(0, base);
  return Math.max(0, base - Math.max(0, serverNow - c.since));
}

/**
 * "1:05:09", "4:59", "0:09.4": tenths under ten seconds (when they matter). Always the same
 * shape for a given range, and shown in tabular figures, so a ticking clock never moves the layout.
 */
export function formatClock(ms: number): string {
  const t = Math.max(0, ms);
  // A correspondence move's days: days and hours (the minutes do not matter yet).
  if (t >= 86_400_000) return `${Math.floor(t / 86_400_000)}d ${String(Math.floor((t % 86_400_000) / 3_600_000)).padStart(2, '0')}h`;
  if (t < 10_000) return `0:0${Math.floor(t / 1000)}.${Math.floor((t % 1000) / 100)}`;
  const total = Math.floor(t / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** The clock for a screen reader: "4 minutes 59 seconds". */
export function speakClock(ms: number): string {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  if (total >= 3600) {
    const d = Math.floor(total / 86_400);
    const hours = Math.floor((total % 86_400) / 3600);
    const m = Math.floor((total % 3600) / 60);
    const plural = (n: number, unit: string) => (n ? `${n} ${unit}${n === 1 ? '' : 's'}` : '');
    return [plural(d, 'day'), plural(hours, 'hour'), d ? '' : plural(m, 'minute')].filter(Boolean).join(' ');
  }
  const m = Math.floor(total / 60);
  const s = total % 60;
  return [m ? `${m} minute${m === 1 ? '' : 's'}` : '', `${s} second${s === 1 ? '' : 's'}`].filter(Boolean).join(' ');
}

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const SCHED_IDLE = 5;

/** A process's scheduling policy and niceness, from /proc (stat's fields 41 and 19). */
function scheduling(pid: number): { policy: number; nice: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { policy: Number(fields[38]), nice: Number(fields[16]) };
}

/** The engine runs on CPU nothing else wants: SCHED_IDLE where util-linux's chrt is, else niceness 19. */
export function assertIdlePriority(pid: number): void {
  const { policy, nice } = scheduling(pid);
  if (existsSync('/usr/bin/chrt')) assert.equal(policy, SCHED_IDLE, `engine ${pid} under SCHED_IDLE`);
  else assert.equal(nice, 19, `engine ${pid} at niceness 19`);
}

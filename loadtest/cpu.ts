import { readdirSync, readFileSync } from 'node:fs';

const CLK_TCK = 100; // Linux USER_HZ

/** The fields of /proc/<pid>/stat after the command name (field 14, utime, is index 11). */
const statFields = (stat: string) => stat.split(') ')[1].split(' ').map(Number);

/** CPU seconds (user + system) a process has used, from /proc. */
export function processCpu(pid: number): number {
  const f = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return (f[11] + f[12]) / CLK_TCK;
}

/**
 * CPU seconds of every postgres process on the machine (the database's share of the work),
 * counting those that have exited too: the postmaster's children's time (cutime + cstime) holds
 * every backend and worker it has reaped, so a connection closed or an autovacuum worker gone
 * between two readings does not take its CPU out of the difference.
 */
export function postgresCpu(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const f = statFields(stat);
      total += (f[11] + f[12] + f[13] + f[14]) / CLK_TCK;
    } catch {
      /* the process went away */
    }
  }
  return total;
}

/**
 * A thread's time on a CPU and time runnable but waiting for one (seconds, nanosecond counters
 * from /proc/<pid>/task/<tid>/schedstat; the main thread's tid is the pid). A sampling profiler
 * counts the wait too: on a shared machine it tells how far its samples overstate the CPU.
 */
export function threadSched(pid: number, tid = pid): { cpuS: number; waitS: number } {
  const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
  return { cpuS: run / 1e9, waitS: wait / 1e9 };
}

/**
 * CPU seconds of each of a process's threads, summed by thread name, the main thread as `main`
 * (Node's platform workers, which run V8's GC helpers and compiler jobs, are also called `node`;
 * libuv's pool is `libuv-worker`, the profiler's `v8:ProfEvntProc`): what of the process's CPU a
 * profile of the main thread cannot see. A thread that exited is not counted.
 */
export function threadsCpu(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      byName[name] = (byName[name] ?? 0) + threadSched(pid, Number(tid)).cpuS;
    } catch {
      /* the thread exited */
    }
  }
  return byName;
}

/**
 * CPU seconds of each live child of `ppid` whose command line matches, by pid (e.g. the engine
 * processes of the service, `stockfish`). A child that exited is not counted: its time goes to
 * the parent's cutime once reaped, which processCpu does not count either.
 */
export function childrenCpu(ppid: number, command: RegExp): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const f = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (f[1] !== ppid || !command.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
      byPid.set(Number(pid), (f[11] + f[12]) / CLK_TCK);
    } catch {
      /* the process went away */
    }
  }
  return byPid;
}

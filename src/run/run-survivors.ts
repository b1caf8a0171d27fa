/**
 * Processes a `hyprof run` started that are still running when its program has ended: a daemon the
 * program started (double fork, setsid), a background job of a script. They write their raw files
 * when they end, after the run has resolved, so the run must say so rather than lose them silently.
 *
 * Every measured process inherits HYPROF_RUN_PARENT=<pid of hyprof> (cmd-run.ts); /proc/<pid>/environ
 * holds the environment a process started with, also after forks, and is readable for one's own
 * processes. Only the environment of a process that can be the run's is read: one of this user's,
 * started no earlier than hyprof itself (/proc/<pid>/stat, readable by anyone), so that hyprof does
 * not read the environment of every other process on the machine (all of them, run as root).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';

export interface Survivor {
  pid: number;
  /** The program it runs (its argv[0]). */
  command: string;
}

/** A process's start, in clock ticks since boot (field 22 of /proc/<pid>/stat); null when unreadable. */
export function startTicks(pid: number | 'self'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // "pid (comm) state ppid ...": comm may hold spaces and ')', so fields count from the last ')'.
    const x = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(x) ? x : null;
  } catch {
    return null;
  }
}

/** Whether the process may be one of the run's: this user's, started at or after the run's parent. */
export function mayBeOfRun(pid: number, since: number | null, uid: number): boolean {
  try {
    if (statSync(`/proc/${pid}`).uid !== uid) return false;
  } catch {
    return false;
  }
  const start = startTicks(pid);
  return since === null || start === null || start >= since;
}

export function runSurvivors(runParent: number = process.pid): Survivor[] {
  const mark = `HYPROF_RUN_PARENT=${runParent}`;
  const since = startTicks(runParent);
  const uid = process.getuid?.() ?? 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: Survivor[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name) || !mayBeOfRun(Number(name), since, uid)) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'latin1').split('\0');
      if (!env.includes(mark)) continue;
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0] || '?';
      found.push({ pid: Number(name), command });
    } catch {
      /* gone meanwhile, or another user's */
    }
  }
  return found.sort((a, b) => a.pid - b.pid);
}

/**
 * The processes of the run still running after up to `graceMs`: a child that is just ending when the
 * program does is waited for, so its measurements join the profile.
 */
export async function settledSurvivors(graceMs: number, runParent: number = process.pid): Promise<Survivor[]> {
  const until = Date.now() + graceMs;
  let left = runSurvivors(runParent);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((ok) => setTimeout(ok, 50));
    left = runSurvivors(runParent);
  }
  return left;
}

/** One line naming them, and where their measurements will be. */
export function survivorsNote(survivors: Survivor[], rawDir: string, outDir: string): string {
  const n = survivors.length;
  const shown = survivors.slice(0, 5).map((s) => `pid ${s.pid}: ${s.command}`);
  if (n > 5) shown.push(`${n - 5} more`);
  return (
    `hyprof: ${n === 1 ? '1 process' : `${n} processes`} the program started ${n === 1 ? 'is' : 'are'} still running ` +
    `(${shown.join(', ')}); ${n === 1 ? 'its' : 'their'} measurements are not in this profile: they are written to ` +
    `${rawDir} when ${n === 1 ? 'it ends' : 'they end'}, then: hyprof resolve ${rawDir} -o ${outDir}`
  );
}

/** How long ranks a launcher left running have to write their measurements after SIGTERM. */
export const ABANDONED_RANK_GRACE_MS = 5000;

/**
 * Ranks still running after their launcher ended (`hyprof run -- mpirun ...` where mpirun was killed,
 * or ended on a signal without stopping them) would run on unseen and their measurements would never
 * join the profile. They are stopped as a launcher stops them: SIGTERM, on which the runtime writes the
 * raw file, then, after `graceMs`, SIGKILL for any still running. Returns the lines to say and the
 * ranks killed (their measurements are lost).
 */
export async function stopAbandonedRanks(survivors: Survivor[], launcher: string, graceMs = ABANDONED_RANK_GRACE_MS): Promise<{ notes: string[]; killed: Survivor[] }> {
  const shown = (list: Survivor[]): string => list.map((s) => `pid ${s.pid}`).join(', ');
  for (const s of survivors) signal(s.pid, 'SIGTERM');
  const notes = [
    `hyprof: ${survivors.length === 1 ? '1 process' : `${survivors.length} processes`} of the job (${shown(survivors)}) still ran after ${launcher} ended: ` +
      'stopped with SIGTERM, on which they write their measurements',
  ];
  const left = await settledSurvivors(graceMs);
  const killed = left.filter((l) => survivors.some((s) => s.pid === l.pid));
  for (const s of killed) signal(s.pid, 'SIGKILL');
  if (killed.length > 0) {
    notes.push(`hyprof: ${shown(killed)} did not end within ${graceMs / 1000} s of SIGTERM: killed; their measurements are lost`);
  }
  return { notes, killed };
}

function signal(pid: number, s: NodeJS.Signals): void {
  try {
    process.kill(pid, s);
  } catch {
    /* ended meanwhile */
  }
}

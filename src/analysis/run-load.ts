/**
 * How loaded the machine was while the program ran, from what the runtime recorded: the CPUs the
 * process could use, the threads it ran at once, how long its threads waited on a run queue (the
 * scheduler's own account, native/core/schedstat.c) and how long those CPUs idled meanwhile (a wait
 * while a CPU idles is placement, not load), or, where that is missing, what the
 * samples say (a wall-clock sample's time is the wall time since the thread's previous sample, while
 * samples arrive only as the thread runs: count × period against time is the share of time it ran).
 * Analyses that judge durations correct them by the share a thread actually ran, and the reports say
 * first when the program ran oversubscribed (docs/openmp.md, "Diagnoses under load").
 */

export interface RunLoad {
  /** CPUs the process could run on (its affinity mask); 0 when not recorded. */
  cpus: number;
  /** Threads the program ran at once (the largest OpenMP team, or the measured threads). */
  threads: number;
  /** Share (0–1) of the threads' time spent runnable but not running; null when unknown. */
  waitShare: number | null;
  /**
   * The part of waitShare beyond the idle time of the CPUs available to the process over the run
   * (the scheduler's placement, not load: a thread waits on one CPU while another idles); equal to
   * waitShare where the idle time was not recorded. Absent in older files.
   */
  loadWaitShare?: number | null;
  /** Where waitShare comes from. */
  source: 'schedstat' | 'samples' | null;
  /** More threads than CPUs, or a wait share beyond the CPUs' idle time of at least OVERSUBSCRIBED_WAIT. */
  oversubscribed: boolean;
  /** The samples were taken by the wall clock (itimer-wall, the default); absent in older files. */
  wallSampled?: boolean;
}

/** A run whose threads waited at least this share of their time to run was oversubscribed. */
export const OVERSUBSCRIBED_WAIT = 0.2;

export interface LoadInput {
  attributes: ReadonlyArray<readonly [string, string]>;
  threads: number;
  /** Samples taken (counts) and their summed time (ns), for the estimate without schedstat. */
  samples?: { count: number; ns: number };
}

const num = (attrs: LoadInput['attributes'], key: string): number | null => {
  const v = attrs.find(([k]) => k === key)?.[1];
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) ? n : null;
};

export function runLoad(input: LoadInput): RunLoad {
  const a = input.attributes;
  const cpus = num(a, 'CPUs Available') ?? num(a, 'CPU Cores') ?? 0;
  const run = num(a, 'Threads Run Time (ns)');
  const wait = num(a, 'Threads Run-Queue Wait (ns)');
  let waitShare: number | null = null;
  let loadWaitShare: number | null = null;
  let source: RunLoad['source'] = null;
  if (run !== null && wait !== null && run + wait > 0) {
    waitShare = wait / (run + wait);
    // A thread that waited while a CPU it may use idled waited for the scheduler's placement, not for
    // other work: on an idle 2-CPU machine libomp's two threads of a 0.1-second run waited 10-37 % of
    // their time, and the CPUs idled as long (bench/RESULTS.md). Only the wait beyond that idle time
    // is load. (Both are totals over the run: a program that idles in one phase and is crowded out
    // in another is judged on the balance.)
    const idle = num(a, 'CPUs Idle Time (ns)');
    loadWaitShare = idle === null ? waitShare : Math.max(0, wait - idle) / (run + wait);
    source = 'schedstat';
  } else {
    const period = num(a, 'HYPROF_PERIOD_US');
    const s = input.samples;
    if (period && s && s.count >= 20 && s.ns > 0) {
      waitShare = Math.min(1, Math.max(0, 1 - (s.count * period * 1000) / s.ns));
      loadWaitShare = waitShare;
      source = 'samples';
    }
  }
  const oversubscribed = (cpus > 0 && input.threads > cpus) || (loadWaitShare !== null && loadWaitShare >= OVERSUBSCRIBED_WAIT);
  const src = a.find(([k]) => k === 'HYPROF_SAMPLE_SOURCE')?.[1];
  const wallSampled = src === 'itimer-wall';
  return { cpus, threads: input.threads, waitShare, loadWaitShare, source, oversubscribed, wallSampled };
}

/** The share of wall time the threads ran (1 when unknown): wall durations × this ≈ their CPU part. */
export const ranShare = (l: RunLoad | undefined): number => (l?.waitShare == null ? 1 : Math.max(0.01, 1 - l.waitShare));

/** One line for the top of a report: what the load was, and what the analysis did about it. */
export function loadLine(l: RunLoad): string | null {
  if (!l.oversubscribed) return null;
  const parts: string[] = [];
  if (l.cpus > 0 && l.threads > l.cpus) parts.push(`${l.threads} threads on ${l.cpus} CPU${l.cpus === 1 ? '' : 's'} available`);
  if (l.waitShare !== null) {
    const beyond = l.loadWaitShare != null && l.waitShare - l.loadWaitShare >= 0.005 ? `, ${(100 * l.loadWaitShare).toFixed(0)}% beyond the idle time of its CPUs` : '';
    parts.push(
      `its threads waited to run ${(100 * l.waitShare).toFixed(0)}% of their time (${l.source === 'schedstat' ? 'run-queue wait, schedstat' : 'estimated from samples'}${beyond})`,
    );
  }
  // Wall-clock samples of a thread that waits to run merge into one as it resumes: on a loaded machine
  // a sampled finding may lack the samples a grade needs (fine tasks beside a CPU hog: 53-516 samples
  // of task work in six runs, and once under 20, where CPU-time samples gave 513-946: bench/RESULTS.md).
  const advice = l.wallSampled
    ? ' Samples were taken by the wall clock, so fewer where threads waited to run: HYPROF_SAMPLE_SOURCE=task-clock ' +
      'samples by CPU time, which load does not change.'
    : '';
  return (
    `The program ran oversubscribed: ${parts.join('; ')}. Durations are corrected by the share the threads ran, ` +
    'findings rest on counts of samples and events, which waiting does not stretch, and those that rest on ' +
    `timed waits at barriers are at most weak.${advice}`
  );
}

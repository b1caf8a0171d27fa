/**
 * The OMPT section (tag 9) of a raw measurement file (docs/raw-format.md): what the OpenMP tool
 * recorded besides probe statistics. The rest of the file is read (and checked) by
 * src/samples/raw-reader.ts, which skips this tag; this module finds the section in the same bytes.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../base/errors.js';
import type { Cursor } from '../samples/cursor.js';
import { findSection } from '../samples/raw-reader.js';
import { HIST_SUB } from './openmp-stats.js';

export const OMPT_SECTION_TAG = 9;

/** Construct kinds as native/ompt numbers them, with TAU's event-name prefixes. */
export const OMP_KINDS = [
  'OpenMP_Parallel_Region',
  'OpenMP_Work_Loop',
  'OpenMP_Work_Sections',
  'OpenMP_Work_Single_Executor',
  'OpenMP_Work_Single_Other',
  'OpenMP_Work_Workshare',
  'OpenMP_Work_Distribute',
  'OpenMP_Work_Taskloop',
  'OpenMP_Masked',
  'OpenMP_Sync_Region_Barrier_Implicit',
  'OpenMP_Sync_Region_Barrier_Explicit',
  'OpenMP_Sync_Region_Barrier_Implementation',
  'OpenMP_Sync_Region_Taskwait',
  'OpenMP_Sync_Region_Taskgroup',
  'OpenMP_Sync_Region_Reduction',
  'OpenMP_Task',
  'OpenMP_Mutex_Wait_Lock',
  'OpenMP_Mutex_Wait_Critical',
  'OpenMP_Mutex_Wait_Ordered',
  'OpenMP_Mutex_Wait_Nest_Lock',
  'OpenMP_Critical',
  'OpenMP_Lock_Held',
  'OpenMP_Ordered',
  'OpenMP_Nest_Lock_Held',
] as const;

export const enum OmpKind {
  PARALLEL = 0,
  LOOP = 1,
  SECTIONS = 2,
  SINGLE_EXECUTOR = 3,
  SINGLE_OTHER = 4,
  BARRIER_IMPLICIT = 9,
  BARRIER_EXPLICIT = 10,
  BARRIER_IMPLEMENTATION = 11,
  TASKWAIT = 12,
  TASK = 15,
  WAIT_CRITICAL = 17,
  CRITICAL = 20,
}

export const OMP_LEVELS = ['off', 'basic', 'full'] as const;

export interface OmpConstruct {
  event: number;
  kind: number;
  codeptr: bigint;
}

/** Sample-based metrics of one context on one thread (nanoseconds of sampled time). */
export interface OmpBlame {
  context: bigint;
  samples: number;
  work: number;
  idle: number;
  overhead: number;
  lockWait: number;
  other: number;
  /** Sum over work samples of value / threads working at the sample (equation 1 of seed 000). */
  workPerWorking: number;
  /** Lock waiting of other threads handed to this context when it released the lock. */
  lockBlame: number;
  /**
   * The same in samples. A sample's value holds the time its thread waited to run, so on a loaded
   * machine the values above grow where threads were preempted; the counts grow while they run.
   */
  counts: { work: number; overhead: number; perWorking: number; lockBlame: number };
}

export interface OmpRegionStat {
  event: number;
  count: number;
  exec: number;
  sync: number;
  imbalance: number;
  limitedParallelism: number;
  threadManagement: number;
}

export interface OmpTaskStat {
  event: number;
  created: number;
  executed: number;
  sum: number;
  max: number;
  min: number;
  /** Tasks created by its instances that ran on this thread. */
  spawned: number;
  /** Sum of squared durations, in us^2. */
  sumSq: number;
  /** Instances by duration: the non-empty buckets of a log-linear histogram (openmp-stats.ts). */
  hist: Array<[bucket: number, count: number]>;
}

export interface OmpRelease {
  codeptr: bigint;
  blame: number;
  count: number;
}

export interface OmpThread {
  /** The thread's index (THREAD section). */
  index: number;
  dispatch: number;
  dispatchCount: number;
  starvation: number;
  lost: number;
  blame: OmpBlame[];
  regions: OmpRegionStat[];
  tasks: OmpTaskStat[];
  releases: OmpRelease[];
}

export interface OmptData {
  level: (typeof OMP_LEVELS)[number];
  cores: number;
  maxTeam: number;
  runtime: string;
  unreleasedWait: number;
  waitTableFull: number;
  constructs: OmpConstruct[];
  threads: OmpThread[];
}

/** The OMPT section of a raw file's bytes, or null when the file has none (no OpenMP tool active). */
export function parseOmptSection(file: string, buf: Buffer): OmptData | null {
  const c = findSection(file, buf, OMPT_SECTION_TAG);
  return c ? parsePayload(c) : null;
}

export function readOmptSection(file: string): OmptData | null {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    throw new UserError(`${file}: cannot read the raw file: ${(e as Error).message}`);
  }
  return parseOmptSection(file, buf);
}

function parsePayload(r: Cursor): OmptData {
  const layout = r.u32('the section layout');
  if (layout !== 3) {
    r.fail(`unknown layout ${layout} (this hyprof reads layout 3; a raw file of another hyprof version: measure again)`, r.pos - 4);
  }
  const histSub = r.u32('the task histogram resolution');
  if (histSub !== HIST_SUB) r.fail(`task histograms with ${histSub} buckets per power of two (this hyprof reads ${HIST_SUB})`, r.pos - 4);
  const level = OMP_LEVELS[r.u32('the tool level')] ?? 'full';
  const cores = r.u32('the number of cores');
  const maxTeam = r.u32('the largest team');
  const runtime = r.str('the runtime name');
  const unreleasedWait = r.u64n('the unreleased lock wait');
  const waitTableFull = r.u64n('the wait-table overflow count');
  const constructs: OmpConstruct[] = [];
  for (let i = 0, n = r.count('construct count', 16); i < n; i++) {
    constructs.push({ event: r.u32('a construct event'), kind: r.u32('a construct kind'), codeptr: r.u64('a code address') });
  }
  const threads: OmpThread[] = [];
  for (let i = 0, n = r.count('thread count', 40); i < n; i++) {
    const th: OmpThread = {
      index: r.u32('a thread index'),
      dispatch: r.u64n('dispatch time'),
      dispatchCount: r.u64n('dispatch count'),
      starvation: r.u64n('starvation time'),
      lost: r.u64n('lost count'),
      blame: [],
      regions: [],
      tasks: [],
      releases: [],
    };
    for (let j = 0, m = r.count('blame count', 104); j < m; j++) {
      th.blame.push({
        context: r.u64('a blame context'),
        samples: r.u64n('samples'),
        work: r.u64n('work'),
        idle: r.u64n('idleness'),
        overhead: r.u64n('overhead'),
        lockWait: r.u64n('lock waiting'),
        other: r.u64n('other'),
        workPerWorking: r.f64('work per working thread'),
        lockBlame: r.u64n('lock blame'),
        counts: {
          work: r.u64n('work samples'),
          overhead: r.u64n('overhead samples'),
          perWorking: r.f64('work samples per working thread'),
          lockBlame: r.u64n('lock blame samples'),
        },
      });
    }
    for (let j = 0, m = r.count('region count', 52); j < m; j++) {
      th.regions.push({
        event: r.u32('a region event'),
        count: r.u64n('region count'),
        exec: r.u64n('region time'),
        sync: r.u64n('synchronization'),
        imbalance: r.u64n('imbalance'),
        limitedParallelism: r.u64n('limited parallelism'),
        threadManagement: r.u64n('thread management'),
      });
    }
    for (let j = 0, m = r.count('task construct count', 64); j < m; j++) {
      const task: OmpTaskStat = {
        event: r.u32('a task event'),
        created: r.u64n('tasks created'),
        executed: r.u64n('tasks executed'),
        sum: r.u64n('task time'),
        max: r.u64n('longest task'),
        min: r.u64n('shortest task'),
        spawned: r.u64n('tasks its instances created'),
        sumSq: r.f64('task time squares'),
        hist: [],
      };
      for (let h = 0, nb = r.count('task histogram bucket count', 12); h < nb; h++) {
        task.hist.push([r.u32('a task histogram bucket'), r.u64n('a task histogram count')]);
      }
      th.tasks.push(task);
    }
    for (let j = 0, m = r.count('release site count', 24); j < m; j++) {
      th.releases.push({ codeptr: r.u64('a release address'), blame: r.u64n('release blame'), count: r.u64n('releases') });
    }
    threads.push(th);
  }
  r.done();
  return { level, cores, maxTeam, runtime, unreleasedWait, waitTableFull, constructs, threads };
}

/**
 * The result of the OpenMP analysis of one process (openmp-analysis.ts computes it, openmp-diagnose.ts
 * adds its diagnoses, report/report-openmp.ts prints it): plain JSON-able data, times in ns. Its own
 * file so that the analysis and the diagnoses both use it without importing each other.
 */
import type { ActivityTimes } from './openmp-samples.js';
import type { RunLoad } from './run-load.js';

export interface OmpContextMetrics {
  path: string;
  /** Raw sampled time on this context (ns), summed over threads. */
  work: number;
  idle: number;
  overhead: number;
  lockWait: number;
  /** Blamed metrics (equation 1) and lock waiting blamed on this context as the releaser. */
  threadIdleness: number;
  coreIdleness: number;
  lockBlame: number;
  /** Equation 2, in percent, with thread idleness. */
  absIdleness: number;
  relIdleness: number;
  absWork: number;
  absLockBlame: number;
  relLockBlame: number;
  /** True when no parallel region encloses the context (serial code). */
  serial: boolean;
  /** Samples behind these figures (over threads), of every state. */
  samples: number;
  /**
   * Work, thread idleness and equation 2 again, counted in samples: a sample's value holds the time
   * its thread waited to run, which load puts wherever threads were preempted; a count grows only
   * while the thread runs. The serial-section finding decides on these.
   */
  sampled: { work: number; threadIdleness: number; absIdleness: number; relIdleness: number };
}

export interface OmpRegionReport {
  name: string;
  location: string;
  /** Implicit tasks over all threads. */
  count: number;
  /** Instances of the region (implicit tasks of its busiest thread). */
  instances: number;
  /** Sum over threads of the time in the region: its implicit task, and forking and joining it. */
  time: number;
  /** Sum over threads of the time in the region's implicit tasks. */
  exec: number;
  sync: number;
  imbalance: number;
  limitedParallelism: number;
  threadManagement: number;
  perThread: Array<{
    thread: number;
    exec: number;
    sync: number;
    imbalance: number;
    limitedParallelism: number;
    threadManagement: number;
    /** Samples of the program's own code in the region (not in the runtime): its work, counted. */
    sampledWork: number;
  }>;
}

export interface OmpConstructReport {
  name: string;
  kind: string;
  location: string;
  /**
   * Per thread: calls and inclusive / exclusive time (ns), summed over the construct's contexts, and
   * the samples of the program's own code in it (work-shared loops; 0 for other constructs).
   */
  perThread: Array<{ thread: number; calls: number; incl: number; excl: number; sampledWork: number }>;
}

export interface OmpTaskReport {
  name: string;
  location: string;
  region: string | null;
  created: number;
  executed: number;
  meanNs: number;
  maxNs: number;
  minNs: number;
  /** Quantiles of the durations, interpolated in the log-linear histogram (openmp-stats.ts). */
  medianNs: number;
  p90Ns: number;
  stdDevNs: number;
  /** Tasks created by its instances (a generator creates many, runs few). */
  spawned: number;
  /** Per thread: tasks created and executed. */
  creators: Array<{ thread: number; created: number; executed: number }>;
  /** Sampled time inside its instances, by activity (0 without sampling). */
  sampled: ActivityTimes;
  /** The same in samples taken. */
  sampledCounts: ActivityTimes;
}

/** A task construct seen only by sampling (level basic, or level full once its timer is throttled): named by where its code is. */
export interface OmpSampledTask {
  location: string;
  function: string;
  sampled: ActivityTimes;
  /** The same classes in samples taken (openmp-samples.ts, SampleActivity.counts). */
  counts: ActivityTimes;
}

export interface OmpDiagnosis {
  kind:
    | 'tasks-too-fine'
    | 'tasks-too-coarse'
    | 'task-creation-bottleneck'
    | 'loop-imbalance'
    | 'serial-section'
    | 'lock-contention'
    | 'region-overhead'
    | 'region-imbalance';
  /** strong: well past the documented threshold; weak: past the lower one (openmp-diagnose.ts). */
  severity: 'strong' | 'weak';
  /** The share that decided it (percent), to order findings. */
  score: number;
  location: string;
  construct: string;
  /** What the finding rests on: how many samples or events, and a 95% interval for a sampled share. */
  evidence: string;
  message: string;
}

export interface OpenmpAnalysis {
  file: string;
  /** The process's node (the MPI rank in a run of several) and host, for findings over ranks. */
  node?: number;
  host?: string;
  runtime: string;
  level: string;
  substituted: string | null;
  cores: number;
  maxThreads: number;
  totals: { work: number; idle: number; overhead: number; lockWait: number; threadIdleness: number; coreIdleness: number; lockBlame: number };
  contexts: OmpContextMetrics[];
  regions: OmpRegionReport[];
  /** The classes of all regions together; time as in OmpRegionReport. */
  programOverheads: { time: number; exec: number; sync: number; imbalance: number; limitedParallelism: number; threadManagement: number };
  constructs: OmpConstructReport[];
  tasks: OmpTaskReport[];
  /** Task constructs known from samples only (level basic; at full, tasks whose timer was throttled). */
  sampledTasks: OmpSampledTask[];
  /** Sampled time of all threads by activity, and per thread (runtime shares). */
  activity: ActivityTimes;
  activityPerThread: Array<{ thread: number; inTasks: number } & ActivityTimes>;
  /** The same in samples taken: what diagnoses decide on (load does not stretch a count). */
  activityCounts: ActivityTimes;
  activityCountsPerThread: Array<{ thread: number; inTasks: number } & ActivityTimes>;
  samples: number;
  /** The sampling period (ns): a sample stands for this much of a thread's running time; null when not sampled. */
  periodNs?: number | null;
  /** How loaded the machine was (run-load.ts). */
  load: RunLoad;
  /** Task construct lines seen in samples of the runtime's task creation, hottest first. */
  creationSites: Array<{ location: string; function: string; samples: number }>;
  taskDispatch: { perTaskNs: number; tasks: number; starvation: number };
  /** Records the tool could not keep (its per-thread tables full, constructs nested deeper than it
   * follows), over the process's threads: their time stays in the enclosing timers. */
  lost: number;
  lockReleases: Array<{ location: string; blame: number; count: number }>;
  diagnoses: OmpDiagnosis[];
}

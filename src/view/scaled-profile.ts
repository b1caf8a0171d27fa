/**
 * A profile of many threads (thousands of MPI ranks) as the viewer holds it: not the threads'
 * events, but what the views over all threads need, folded one thread file at a time when the
 * directory is opened (as report/mpi-fold.ts folds ranks): the statistics over threads (mean, min,
 * max, std of every event), the pooled user events, the MPI share, the names the page offers, and
 * the rank ranges of the main window: blocks of consecutive threads (at most RANGE_BLOCKS) with the
 * sum, min and max of every flat event's exclusive value, and its quartiles from a sketch (DDSketch:
 * within QUANTILE_ACCURACY of the exact order statistic, a few kilobytes whatever the threads). A
 * thread's own data (its tree, table, flame graph, complete stacks, metadata) is read from its files
 * when the page asks for it, and a few are kept. So the memory grows with the distinct events (times
 * the blocks), and with the threads only by their names and rank attributes (a setting with the same
 * value on every rank is one shared pair). */
import { readStacksFile, STACKS_FILE, stacksFileNames, stacksOf } from '../profile/stacks-file.js';
import { displayName, type TauEvent, type TauProfile, type TauThreadProfile, type TauUserEvent } from '../profile/tau-model.js';
import { listProfileFiles, metadataPairs, ownString, poolUserEvent, readThreadFile } from '../profile/tau-reader.js';
import { isParamEvent, kindOf, sourceOf, splitPath } from '../profile/event-tree.js';
import { MpiShareAcc, threadTally } from '../analysis/mpi-share.js';
import { isMatrixEntry } from '../report/comm-matrix.js';
import { eventChoices } from '../report/event-threads.js';
import { EventAggregator, type Stat } from './aggregate.js';
import { DDSketch } from '@datadog/sketches-js';

/** Block keys of each thread's total exclusive value of its timers, of its sampled lines (no event's name). */
export const TOTAL = { timer: '\u0000timers', sample: '\u0000samples' } as const;

/** The viewer opens a directory of more threads than this as a ScaledProfile (cmd-view.ts). */
export const RANGES_ABOVE = 512;
/** The main window's ranges: at most this many blocks of consecutive threads (as the comm matrix's 64). */
export const RANGE_BLOCKS = 64;
/**
 * The quartiles of a block are within this relative error of the exact ones (the value of rank
 * q × (n − 1), rounded down, among the block's n values): a block of 1,563 ranks (100,000 in 64)
 * keeps about 2 KB per event, not its ranks' values.
 */
export const QUANTILE_ACCURACY = 0.01;

/** Threads read whole for the page, kept for its next questions. */
const KEEP_LOADED = 8;

/** Attributes of a thread kept beside its name: what the rank summary and the thread labels read. */
const KEPT_ATTRIBUTES = new Set(['MPI Rank', 'MPI World Size', 'MPI Run Id', 'MPI Rank Source', 'Hostname', 'Thread Name',
  'HYPROF_CALLPATH', 'HYPROF_CALLPATH_DEPTH', 'HYPROF_SAMPLING', 'HYPROF_PERIOD_US', 'HYPROF_SAMPLE_SOURCE', 'HYPROF_UNWIND',
  'HYPROF_UNWIND_DEPTH', 'HYPROF_MPI', 'OpenMP Tool']);

/** Per block, per flat event: the threads that have it, the sum, min and max of its exclusive value and where, its distribution. */
export interface BlockStats {
  n: number;
  sum: number;
  min: number;
  minAt: number;
  max: number;
  maxAt: number;
  sketch: DDSketch;
}

/** The value at quantile `q` of a block (within QUANTILE_ACCURACY; never outside its min and max). */
export function blockQuantile(b: BlockStats, q: number): number {
  return Math.min(b.max, Math.max(b.min, b.sketch.getValueAtQuantile(q)));
}

/** One metric's fold over its threads. */
export interface MetricFold {
  aggregate: EventAggregator;
  /** All threads' user events pooled (report-data meanThread's). */
  users: TauUserEvent[];
  /** Per user event: threads that have it, and the spread of their means (sum, sum of squares, min, max). */
  userMeans: Map<string, { n: number; sum: number; sumsq: number; min: number; max: number }>;
  /** Flat events by name (as in the profile) → per block (RANGE_BLOCKS at most) their BlockStats. */
  blocks: Map<string, BlockStats[]>;
  /** Timers and sampled functions, for ParaProf's function window. */
  choices: { timers: string[]; functions: string[] };
}

/** No user events: one list for every thread that has none (read, never changed). */
const NO_USER_EVENTS: TauUserEvent[] = Object.freeze([]) as unknown as TauUserEvent[];

/** A thread's communication-matrix entries (matrix-api.ts reads them of every rank); most threads have none. */
function matrixEntries(users: readonly TauUserEvent[], intern: (s: string) => string): TauUserEvent[] {
  const kept = users.filter((u) => isMatrixEntry(u.name)).map((u) => ({ ...u, name: intern(u.name) }));
  return kept.length > 0 ? kept : NO_USER_EVENTS;
}

export class ScaledProfile {
  readonly profile: TauProfile;
  /** Threads per block of the ranges. */
  readonly blockSize: number;
  readonly folds: MetricFold[] = [];
  /** Files named by sampled code (the only source files the viewer may show). */
  readonly sourceFiles = new Map<string, string>();
  readonly eventNames0 = { count: 0, hasCallpaths: false, hasSamples: false };
  readonly mpiShare = new MpiShareAcc();
  private readonly files = new Map<TauThreadProfile, { file: string; node: number; context: number; thread: number }>();
  private readonly loaded = new Map<TauThreadProfile, TauThreadProfile>();
  /** Thread files read since the directory was opened (on demand, for the page). */
  reads = 0;
  /** The processes (`node.context`) with a stacks file, and its name. */
  private readonly withStacks = new Map<string, string>();

  /** Reads every thread file of `dir` once; `onFile` is told before each. */
  constructor(dir: string, onFile?: (file: string, index: number, total: number) => void) {
    const sets = listProfileFiles(dir);
    if (sets.some((s) => s.merged)) throw new Error(`${dir}: a merged file is read whole (readTauProfileDir)`);
    this.profile = { dir, metrics: [], threads: [] };
    const total = sets.reduce((n, s) => n + s.files.length, 0);
    this.blockSize = Math.max(1, Math.ceil((sets[0]?.files.length ?? 0) / RANGE_BLOCKS));
    const interned = new Map<string, string>();
    const intern = (s: string): string => {
      let v = interned.get(s);
      if (v === undefined) interned.set((v = ownString(s)), v);
      return v;
    };
    // A setting with the same value on every rank is one pair, shared (read, never changed).
    const pair = metadataPairs();
    let index = 0;
    sets.forEach((set, m) => {
      const fold: MetricFold = { aggregate: new EventAggregator(), users: [], userMeans: new Map(), blocks: new Map(), choices: { timers: [], functions: [] } };
      const users = new Map<string, TauUserEvent>();
      const timers = new Set<string>();
      const functions = new Set<string>();
      const names0 = new Set<string>();
      const threads = set.files.map((f, i) => {
        onFile?.(f.file, index++, total);
        const whole = readThreadFile(f);
        fold.aggregate.add(whole.events);
        this.foldBlock(fold, Math.floor(i / this.blockSize), i, whole.events);
        for (const u of whole.userEvents) {
          poolUserEvent(users, u);
          let s = fold.userMeans.get(u.name);
          if (!s) fold.userMeans.set(ownString(u.name), (s = { n: 0, sum: 0, sumsq: 0, min: Infinity, max: -Infinity }));
          s.n++;
          s.sum += u.mean;
          s.sumsq += u.mean * u.mean;
          s.min = Math.min(s.min, u.mean);
          s.max = Math.max(s.max, u.mean);
        }
        for (const e of whole.events) {
          if (m === 0 && !names0.has(e.name)) {
            names0.add(ownString(e.name));
            const last = splitPath(e.name).at(-1)!;
            const k = kindOf(last);
            if (k === 'sample' || k === 'unwind') {
              const src = sourceOf(last);
              if (src && !this.sourceFiles.has(src.file)) this.sourceFiles.set(ownString(src.file), ownString(src.file));
            }
          }
        }
        const choices = eventChoices([whole]);
        for (const c of choices.timers) if (!timers.has(c)) timers.add(ownString(c));
        for (const c of choices.functions) if (!functions.has(c)) functions.add(ownString(c));
        if (m === 0) {
          const tally = threadTally(whole.node);
          for (const e of whole.events) tally.event(displayName(e.name), e.group, e.calls, e.excl, e.incl);
          this.mpiShare.add(tally);
        }
        const metadata = (m === 0 && i === 0 ? whole.metadata : whole.metadata.filter(([k]) => KEPT_ATTRIBUTES.has(k))).map(([k, v]) => pair(k, v));
        const t: TauThreadProfile = {
          node: f.node,
          context: f.context,
          thread: f.thread,
          metric: intern(whole.metric),
          events: [],
          // only the communication matrix's entries (matrix-api.ts reads them of every rank)
          userEvents: matrixEntries(whole.userEvents, intern),
          metadata,
        };
        this.files.set(t, f);
        return t;
      });
      for (const u of users.values()) u.mean = u.count > 0 ? u.mean / u.count : 0;
      fold.users = [...users.values()];
      fold.choices = { timers: [...timers].sort(), functions: [...functions].sort() };
      if (m === 0) {
        this.eventNames0.count = names0.size;
        for (const n of names0) {
          if (n.includes('=>')) this.eventNames0.hasCallpaths = true;
          if (kindOf(n) === 'sample') this.eventNames0.hasSamples = true;
        }
      }
      this.folds.push(fold);
      this.profile.metrics.push(threads[0]?.metric ?? set.metric);
      this.profile.threads.push(threads);
    });
    // The complete stacks (a stacks file per process) are read for a thread when the page opens it;
    // here only the source files their frames name (the files the viewer may show).
    for (const name of stacksFileNames(dir)) {
      const f = readStacksFile(dir, name);
      for (const [, file] of f.frames) if (file && !this.sourceFiles.has(file)) this.sourceFiles.set(ownString(file), ownString(file));
      const [, node, context] = STACKS_FILE.exec(name)!;
      this.withStacks.set(`${node}.${context}`, name);
    }
  }

  /** Thread `i`'s flat events into its block's statistics. */
  private foldBlock(fold: MetricFold, block: number, i: number, events: readonly TauEvent[]): void {
    const totals = { timer: 0, sample: 0 };
    const add = (name: string, v: number): void => {
      let per = fold.blocks.get(name);
      if (!per) fold.blocks.set(ownString(name), (per = []));
      let b = per[block];
      if (!b) per[block] = b = { n: 0, sum: 0, min: Infinity, minAt: -1, max: -Infinity, maxAt: -1, sketch: new DDSketch({ relativeAccuracy: QUANTILE_ACCURACY }) };
      b.n++;
      b.sum += v;
      b.sketch.accept(v);
      if (v < b.min) [b.min, b.minAt] = [v, i];
      if (v > b.max) [b.max, b.maxAt] = [v, i];
    };
    for (const e of events) {
      if (e.name.includes('=>') || isParamEvent(e.group)) continue;
      const k = kindOf(e.name);
      if (k === 'timer' || k === 'sample') totals[k] += e.excl;
      add(e.name, e.excl);
    }
    add(TOTAL.timer, totals.timer);
    add(TOTAL.sample, totals.sample);
  }
  /** The statistic over threads as a list of events (aggregate.ts). */
  stat(metric: number, stat: Stat): TauEvent[] {
    return this.folds[metric].aggregate.result(stat);
  }

  /** A thread read whole from its file (the last few are kept). */
  load(t: TauThreadProfile): TauThreadProfile {
    let whole = this.loaded.get(t);
    if (whole) {
      this.loaded.delete(t);
      this.loaded.set(t, whole);
      return whole;
    }
    whole = readThreadFile(this.files.get(t)!);
    this.reads++;
    const stacksFile = this.withStacks.get(`${t.node}.${t.context}`);
    if (stacksFile) {
      const stacks = stacksOf(readStacksFile(this.profile.dir, stacksFile), t);
      if (stacks) whole.stacks = stacks;
    }
    this.loaded.set(t, whole);
    if (this.loaded.size > KEEP_LOADED) this.loaded.delete(this.loaded.keys().next().value!);
    return whole;
  }
}

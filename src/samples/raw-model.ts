/**
 * The raw measurement file in memory (docs/raw-format.md, version 1): what one measured process
 * recorded, before symbolization. Produced by raw-reader.ts after every check passed, so users of
 * this model may rely on its consistency (every context named exists, every event id exists).
 */

export const RAW_MAGIC = 'HYPROFRW';
export const RAW_VERSION = 1;

export const enum SectionTag {
  INFO = 1,
  EVENTS = 2,
  CONTEXTS = 3,
  THREAD = 4,
  USER_EVENTS = 5,
  SAMPLES = 6,
  MAPS = 7,
  SAMPLING = 8,
  /** Optional: what the OpenMP tool recorded (src/analysis/openmp-raw.ts reads it). */
  OMPT = 9,
  /** Optional: the MPI layer's call sites (src/analysis/mpi-raw.ts reads it). */
  MPI = 10,
  /** Optional: the code address of each compiler-instrumented function's event. */
  FUNCTIONS = 11,
  /** Optional: V8's JIT code events as the V8 part logged them (src/samples/raw-jit.ts). */
  JIT = 12,
  /** Optional: HYPROF_FOLD's instances and samples (src/samples/raw-fold.ts). */
  FOLD = 13,
  /** Optional: the CUDA layer's GPU records (src/samples/raw-cuda.ts). */
  CUDA = 14,
  END = 0xffffffff,
}

/**
 * A sampled program counter at or above this value is a placeholder (docs/raw-format.md, SAMPLES): it
 * names what the thread was doing where the frames of a runtime were cut out of the call path.
 */
export const PLACEHOLDER_PC = 0xfff0000000000000n;

/** Placeholder kinds (the low byte) and their frame names. */
export const PLACEHOLDER_NAMES: Readonly<Record<number, string>> = {
  1: '<OpenMP idle>',
  2: '<OpenMP barrier wait>',
  3: '<OpenMP taskwait>',
  4: '<OpenMP lock wait>',
  5: '<OpenMP overhead>',
  6: '<OpenMP task>',
  7: '<OpenMP task dispatch>',
  8: '<OpenMP task creation>',
};

/** The name of a placeholder program counter, or null when pc is a code address. */
export function placeholderName(pc: bigint): string | null {
  if (pc < PLACEHOLDER_PC) return null;
  return PLACEHOLDER_NAMES[Number(pc & 0xffn)] ?? '<runtime>';
}

/** INFO flags (bit numbers of docs/raw-format.md). */
export const INFO_FORKED_CHILD = 1 << 0;
export const INFO_FROM_SIGNAL = 1 << 1;
export const INFO_FROM_FLUSH = 1 << 2;
export const INFO_RUN_ROOT = 1 << 3;
export const INFO_NODE_SET = 1 << 4;
/** MPI_Init ran in the process: its node is its rank in MPI_COMM_WORLD (the MPI layer). */
export const INFO_MPI_RANK = 1 << 5;
/** The node is the rank an MPI launcher's environment gave (OMPI_COMM_WORLD_RANK, PMI_RANK, ...). */
export const INFO_RANK_FROM_ENV = 1 << 6;
/** Written just before the process replaced its program by exec (an earlier image of the process). */
export const INFO_EXEC_REPLACED = 1 << 7;

export const enum EventKind {
  REGION = 0,
  PHASE = 1,
  PARAM = 2,
  ROOT = 3,
  OPENMP = 4,
  /** A compiler-instrumented function, named `@0x<address>` until the resolver names it (FUNCTIONS). */
  FUNCTION = 5,
}

/** EVENTS flags (the byte after the kind). */
export const EVENT_THROTTLED = 1;

export interface RawInfo {
  pid: number;
  ppid: number;
  node: number;
  flags: number;
  /** CLOCK_REALTIME nanoseconds since the epoch (bigint: exceeds 2^53). */
  startNs: bigint;
  stopNs: bigint;
  /** metric[0] is always TIME (nanoseconds). */
  metrics: string[];
  attributes: Array<[string, string]>;
}

export interface RawEvent {
  id: number;
  kind: number;
  /** For a parameter specialisation, the timer it specialises; else the event itself. */
  base: number;
  name: string;
  group: string;
  /** The runtime throttled it (TAU_THROTTLE): its later calls went unmeasured. */
  throttled?: boolean;
}

export interface RawContext {
  /** Context ids are 64-bit hashes: kept as bigint. 0n never names a context. */
  context: bigint;
  parent: bigint;
  event: number;
}

/** A slot index for the 64-bit id (lo, hi) in a table of `mask + 1` slots (a power of two). */
function slotOf(lo: number, hi: number, mask: number): number {
  return (Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0) & mask;
}

/**
 * The CONTEXTS table as columns, one row per context: a process of millions of contexts holds
 * 16 bytes per context here and 4 to 8 in the index, where a Map of objects keyed by bigint took
 * about 125. The assembly works on rows (parent rows, event ids); `get`, `has`, `values` make the
 * record objects of a Map on demand for the users that look at a few contexts.
 */
export class RawContexts {
  /** The id's low and high 32 bits. */
  readonly idLo: Uint32Array;
  readonly idHi: Uint32Array;
  /** The parent's row, -1 for a context whose parent is 0 (a root). */
  readonly parentRow: Int32Array;
  readonly event: Uint32Array;
  /** Open addressing: row + 1 per slot, 0 for an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private count = 0;

  constructor(capacity: number) {
    this.idLo = new Uint32Array(capacity);
    this.idHi = new Uint32Array(capacity);
    this.parentRow = new Int32Array(capacity);
    this.event = new Uint32Array(capacity);
    let slots = 8;
    while (slots < capacity * 2) slots *= 2;
    this.slots = new Int32Array(slots);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The row of the id (lo, hi), or -1. No bigint is made: the readers' and assembly's lookup. */
  rowOfHalves(lo: number, hi: number): number {
    for (let s = slotOf(lo, hi, this.mask); ; s = (s + 1) & this.mask) {
      const r = this.slots[s] - 1;
      if (r < 0) return -1;
      if (this.idLo[r] === lo && this.idHi[r] === hi) return r;
    }
  }

  /** The row of context id `c`, or -1. */
  rowOf(c: bigint): number {
    return this.rowOfHalves(Number(c & 0xffffffffn), Number(c >> 32n));
  }

  /**
   * Add the id (lo, hi) naming `event`; returns its row. An id given twice keeps its first row and
   * takes the later event (as a Map's set would).
   */
  add(lo: number, hi: number, event: number): number {
    let s = slotOf(lo, hi, this.mask);
    for (; ; s = (s + 1) & this.mask) {
      const r = this.slots[s] - 1;
      if (r < 0) break;
      if (this.idLo[r] === lo && this.idHi[r] === hi) {
        this.event[r] = event;
        return r;
      }
    }
    const r = this.count++;
    this.slots[s] = r + 1;
    this.idLo[r] = lo;
    this.idHi[r] = hi;
    this.event[r] = event;
    this.parentRow[r] = -1;
    return r;
  }

  /** The id of a row. */
  id(row: number): bigint {
    return (BigInt(this.idHi[row]) << 32n) | BigInt(this.idLo[row]);
  }

  /** The record of a row, made now. */
  at(row: number): RawContext {
    const p = this.parentRow[row];
    return { context: this.id(row), parent: p < 0 ? 0n : this.id(p), event: this.event[row] };
  }

  has(c: bigint): boolean {
    return this.rowOf(c) >= 0;
  }

  get(c: bigint): RawContext | undefined {
    const r = this.rowOf(c);
    return r < 0 ? undefined : this.at(r);
  }

  /** A table of the given contexts (tests and tools that build a process by hand). */
  static of(list: RawContext[]): RawContexts {
    const t = new RawContexts(list.length);
    const half = (c: bigint): [number, number] => [Number(c & 0xffffffffn), Number(c >> 32n)];
    for (const c of list) t.add(...half(c.context), c.event);
    for (const c of list) t.parentRow[t.rowOf(c.context)] = c.parent === 0n ? -1 : t.rowOf(c.parent);
    return t;
  }

  /** Every context in the table's order, each record made as it is reached. */
  *values(): IterableIterator<RawContext> {
    for (let r = 0; r < this.count; r++) yield this.at(r);
  }
}

export interface RawStat {
  context: bigint;
  calls: number;
  childCalls: number;
  /** Per metric, in the metric's unit (TIME: nanoseconds). */
  incl: number[];
  excl: number[];
}

/**
 * One thread's timer statistics as columns (about 36 bytes per statistic of one metric, where an
 * object with two arrays took about 200). The assembly reads the columns; iterating gives RawStat
 * records made on demand, for the analyses and tests that look at a few.
 */
export class RawStats implements Iterable<RawStat> {
  /** The context's row in the process's RawContexts. */
  readonly row: Int32Array;
  readonly calls: Float64Array;
  readonly childCalls: Float64Array;
  /** Statistic i, metric m at i * nMetrics + m. */
  readonly incl: Float64Array;
  readonly excl: Float64Array;

  constructor(
    private readonly contexts: RawContexts,
    readonly length: number,
    readonly nMetrics: number,
  ) {
    this.row = new Int32Array(length);
    this.calls = new Float64Array(length);
    this.childCalls = new Float64Array(length);
    this.incl = new Float64Array(length * nMetrics);
    this.excl = new Float64Array(length * nMetrics);
  }

  /** Columns of the given statistics, whose contexts are all in `contexts` (tests, tools). */
  static of(contexts: RawContexts, nMetrics: number, list: RawStat[]): RawStats {
    const t = new RawStats(contexts, list.length, nMetrics);
    list.forEach((s, i) => {
      t.row[i] = contexts.rowOf(s.context);
      t.calls[i] = s.calls;
      t.childCalls[i] = s.childCalls;
      for (let m = 0; m < nMetrics; m++) {
        t.incl[i * nMetrics + m] = s.incl[m];
        t.excl[i * nMetrics + m] = s.excl[m];
      }
    });
    return t;
  }

  /** Statistic i as a record, made now. */
  at(i: number): RawStat {
    const at = i * this.nMetrics;
    return {
      context: this.contexts.id(this.row[i]),
      calls: this.calls[i],
      childCalls: this.childCalls[i],
      incl: Array.from(this.incl.subarray(at, at + this.nMetrics)),
      excl: Array.from(this.excl.subarray(at, at + this.nMetrics)),
    };
  }

  *[Symbol.iterator](): Iterator<RawStat> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  /** Every statistic as a record (for tests and small processes). */
  list(): RawStat[] {
    return [...this];
  }
}

/** No statistics (a thread read without them, or whose statistics were used and dropped). */
export function noStats(contexts: RawContexts, nMetrics: number): RawStats {
  return new RawStats(contexts, 0, nMetrics);
}

export interface RawUserStat {
  userEvent: number;
  count: number;
  min: number;
  max: number;
  sum: number;
  sumsqr: number;
}

export interface RawThread {
  index: number;
  tid: number;
  name: string;
  startNs: bigint;
  stopNs: bigint;
  flags: number;
  /** Timer statistics, as columns (RawStats). */
  stats: RawStats;
  /** Contexts of timers still running when the file was written (closed at that time). */
  open: bigint[];
  userStats: RawUserStat[];
  drops: Array<[string, number]>;
  warnings: string[];
  /** Filled from the SAMPLES section with this thread's index (empty when none). */
  samples: RawSample[];
  /** Metadata of a thread the resolve made (a GPU stream: src/resolve/assemble-gpu.ts). */
  metadata?: Array<[string, string]>;
}

export interface RawSample {
  context: bigint;
  count: number;
  /** Per metric, summed over the samples. */
  values: number[];
  state: number;
  /** pcs[0] the sampled instruction; pcs[1..] return addresses, innermost first. */
  pcs: bigint[];
}

export interface RawMapping {
  start: bigint;
  end: bigint;
  bias: bigint;
  path: string;
  buildId: string;
}

export interface RawSampling {
  enabled: boolean;
  source: string;
  periodNs: number;
  unwind: boolean;
  unwindDepth: number;
  unwinder: string;
  signal: number;
}

/** One measured process: one raw file. */
export interface RawProcess {
  /** The file it was read from (for messages). */
  file: string;
  version: number;
  info: RawInfo;
  events: RawEvent[];
  /** The CONTEXTS table, by row (RawContexts; get/has/values by context id). */
  contexts: RawContexts;
  threads: RawThread[];
  userEvents: Map<number, string>;
  maps: RawMapping[];
  sampling: RawSampling | null;
  /** Compiler-instrumented functions: event id -> the function's code address (FUNCTIONS). */
  functions?: Map<number, bigint>;
  /** V8's JIT code events of a Node process that loaded the V8 part (JIT, raw-jit.ts). */
  jit?: RawJitLog;
  /** HYPROF_FOLD's instances and samples (FOLD, raw-fold.ts). */
  fold?: RawFold;
  /** The CUDA layer's GPU records (CUDA, raw-cuda.ts). */
  cuda?: RawCuda;
}

/** One JIT code event as logged, in the order V8 sent them. */
export type RawJitRecord =
  /**
   * Code at [start, start + size): V8's name, and (pc offset, 1-based line) where the line changes;
   * or, as the V8 part writes it now, where the source position changes, with that position in
   * `positions` (one per entry).
   */
  | { type: 'code'; start: bigint; size: bigint; codeType: number; name: string; lines: Uint32Array; positions?: Uint32Array }
  | { type: 'move'; from: bigint; to: bigint; size: bigint }
  | { type: 'remove'; start: bigint; size: bigint }
  /**
   * The lines a function's bytecode spans (first and last position), named as its code is; and, as
   * the V8 part writes it now, those first and last source positions.
   */
  | { type: 'range'; first: number; last: number; name: string; firstPos?: number; lastPos?: number };

export interface RawJitLog {
  records: RawJitRecord[];
  /** Records the log had no room for. */
  dropped: number;
  /** Records still being written when the file was (type 5 PENDING): skipped whole. */
  pending: number;
}

/** The FOLD section's content (raw-fold.ts reads it; docs/raw-format.md, tag 13). */
export interface RawFoldInstance {
  event: number;
  /** Monotonic nanoseconds (hp_now_ns's scale), a bigint: the clock may exceed 2^53 ns. */
  start: bigint;
  duration: number;
  /** The extra metrics (INFO metrics 1..) over the instance. */
  deltas: number[];
}

export interface RawFoldSample {
  /** The thread index that ran the instance (this thread, or the one whose instance it fell in). */
  owner: number;
  instanceStart: bigint;
  offset: number;
  context: bigint;
  /** Extra metrics since the instance's start; null when unknown (a sample on another thread). */
  metrics: (number | null)[];
  pcs: bigint[];
}

export interface RawFoldSeries {
  lostInstances: number;
  lostSamples: number;
  instances: RawFoldInstance[];
  samples: RawFoldSample[];
}

export interface RawFold {
  patterns: string[];
  instanceCapacity: number;
  sampleCapacity: number;
  /** By thread index: one entry per pattern. */
  threads: Map<number, RawFoldSeries[]>;
}

/** The CUDA section's content (raw-cuda.ts reads it; docs/raw-format.md, tag 14). */
export const enum GpuKind {
  KERNEL = 1,
  MEMCPY = 2,
  MEMSET = 3,
  SYNC = 4,
}

/** No launching thread known (the launch was not seen, or the record has none: synchronisation). */
export const NO_THREAD = 0xffff_ffff;

export interface RawGpuRecord {
  kind: GpuKind;
  name: string;
  device: number;
  context: number;
  stream: number;
  /** The launching host thread's index, NO_THREAD when unknown. */
  thread: number;
  /** The launching host context (0n when unknown). */
  hostContext: bigint;
  count: number;
  ns: number;
  nsMin: number;
  nsMax: number;
  bytes: number;
  bytesMin: number;
  bytesMax: number;
  /** The first start and the last end on the run's clock (CLOCK_MONOTONIC ns). */
  firstStart: bigint;
  lastEnd: bigint;
  us2: number;
  bytes2: number;
  grid: [number, number, number];
  block: [number, number, number];
}

export interface RawCuda {
  records: RawGpuRecord[];
  /** Records CUPTI dropped (its buffers were not had in time). */
  droppedByCupti: number;
  /** Records whose launch was not seen (assigned to their stream only). */
  uncorrelated: number;
  /** Aggregates the layer had no room for, or skipped because they were being written. */
  droppedByHyprof: number;
  /** A traced run (HYPROF_TRACE): records handed over on a thread the runtime does not measure, so
   * not in the trace (the profile has them). */
  notTraced: number;
  /** When the GPU was busy and the host waited (absent from an older layer's section). */
  spans?: GpuSpans;
}

/** When the GPU was busy and the host waited (native/cuda/spans.c), on the run's clock (ns): what
 * the layer added up from `first` to `settled`, and the two bounded sets of disjoint, sorted
 * intervals after it. */
export interface GpuSpans {
  /** False when a dump came while the layer was changing them (a signal): not to be used. */
  whole: boolean;
  /** The earliest start (0: none). */
  first: number;
  /** The time before which everything is in `parts` (0: nothing added up). */
  settled: number;
  /** Added up: host waiting & GPU busy, waiting & idle, not waiting & busy, neither. */
  parts: [number, number, number, number];
  /** Time of records that arrived after their time was added up (counted from `settled` on): the uncertainty. */
  late: number;
  busy: Array<[number, number]>;
  wait: Array<[number, number]>;
}

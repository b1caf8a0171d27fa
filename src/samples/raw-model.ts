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

export interface RawStat {
  context: bigint;
  calls: number;
  childCalls: number;
  /** Per metric, in the metric's unit (TIME: nanoseconds). */
  incl: number[];
  excl: number[];
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
  stats: RawStat[];
  /** Contexts of timers still running when the file was written (closed at that time). */
  open: bigint[];
  userStats: RawUserStat[];
  drops: Array<[string, number]>;
  warnings: string[];
  /** Filled from the SAMPLES section with this thread's index (empty when none). */
  samples: RawSample[];
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
  /** Keyed by context id. */
  contexts: Map<bigint, RawContext>;
  threads: RawThread[];
  userEvents: Map<number, string>;
  maps: RawMapping[];
  sampling: RawSampling | null;
  /** Compiler-instrumented functions: event id -> the function's code address (FUNCTIONS). */
  functions?: Map<number, bigint>;
  /** V8's JIT code events of a Node process that loaded the V8 part (JIT, raw-jit.ts). */
  jit?: RawJitLog;
}

/** One JIT code event as logged, in the order V8 sent them. */
export type RawJitRecord =
  /** Code at [start, start + size): V8's name, and (pc offset, 1-based line) where the line changes. */
  | { type: 'code'; start: bigint; size: bigint; codeType: number; name: string; lines: Uint32Array }
  | { type: 'move'; from: bigint; to: bigint; size: bigint }
  | { type: 'remove'; start: bigint; size: bigint }
  /** The lines a function's bytecode spans (first and last position), named as its code is. */
  | { type: 'range'; first: number; last: number; name: string };

export interface RawJitLog {
  records: RawJitRecord[];
  /** Records the log had no room for. */
  dropped: number;
  /** Records still being written when the file was (type 5 PENDING): skipped whole. */
  pending: number;
}

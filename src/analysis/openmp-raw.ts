/**
 * The OMPT section (tag 9) of a raw measurement file (docs/raw-format.md): what the OpenMP tool
 * recorded besides probe statistics. The rest of the file is read (and checked) by
 * src/samples/raw-reader.ts, which skips this tag; this module finds the section in the same bytes.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../cli/errors.js';

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
  /** Instances by duration: hist[b] counts durations in [2^b, 2^(b+1)) ns. */
  hist: number[];
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

class Reader {
  pos: number;
  constructor(
    private readonly file: string,
    private readonly buf: Buffer,
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
  }
  private need(n: number, what: string): void {
    if (this.pos + n > this.end) {
      throw new UserError(`${this.file}: offset ${this.pos}: section OMPT ends before ${what}`);
    }
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u64(what: string): bigint {
    this.need(8, what);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  num(what: string): number {
    return Number(this.u64(what));
  }
  f64(what: string): number {
    this.need(8, what);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
  str(what: string): string {
    const n = this.u32(`the length of ${what}`);
    this.need(n, what);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  count(what: string, recordBytes: number): number {
    const at = this.pos;
    const n = this.u32(what);
    if (n * recordBytes > this.end - this.pos) {
      throw new UserError(`${this.file}: offset ${at}: section OMPT: ${what} ${n} does not fit in the section`);
    }
    return n;
  }
  done(): void {
    if (this.pos !== this.end) {
      throw new UserError(`${this.file}: offset ${this.pos}: section OMPT: ${this.end - this.pos} unexpected bytes at its end`);
    }
  }
}

/** The OMPT section of a raw file's bytes, or null when the file has none (no OpenMP tool active). */
export function parseOmptSection(file: string, buf: Buffer): OmptData | null {
  // Header: magic[8] version flags; sections: tag crc length payload. raw-reader.ts has checked the
  // framing and CRCs; only the bounds are checked again here.
  let pos = 16;
  while (pos + 16 <= buf.length) {
    const tag = buf.readUInt32LE(pos);
    const len = Number(buf.readBigUInt64LE(pos + 8));
    const start = pos + 16;
    if (start + len > buf.length) break;
    if (tag === OMPT_SECTION_TAG) return parsePayload(new Reader(file, buf, start, start + len));
    if (tag === 0xffffffff) break;
    pos = start + len;
  }
  return null;
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

function parsePayload(r: Reader): OmptData {
  const layout = r.u32('the section layout');
  if (layout !== 1) throw new UserError(`section OMPT: unknown layout ${layout} (this hyprof reads layout 1)`);
  const nHist = r.u32('the task histogram size');
  const level = OMP_LEVELS[r.u32('the tool level')] ?? 'full';
  const cores = r.u32('the number of cores');
  const maxTeam = r.u32('the largest team');
  const runtime = r.str('the runtime name');
  const unreleasedWait = r.num('the unreleased lock wait');
  const waitTableFull = r.num('the wait-table overflow count');
  const constructs: OmpConstruct[] = [];
  for (let i = 0, n = r.count('construct count', 16); i < n; i++) {
    constructs.push({ event: r.u32('a construct event'), kind: r.u32('a construct kind'), codeptr: r.u64('a code address') });
  }
  const threads: OmpThread[] = [];
  for (let i = 0, n = r.count('thread count', 40); i < n; i++) {
    const th: OmpThread = {
      index: r.u32('a thread index'),
      dispatch: r.num('dispatch time'),
      dispatchCount: r.num('dispatch count'),
      starvation: r.num('starvation time'),
      lost: r.num('lost count'),
      blame: [],
      regions: [],
      tasks: [],
      releases: [],
    };
    for (let j = 0, m = r.count('blame count', 72); j < m; j++) {
      th.blame.push({
        context: r.u64('a blame context'),
        samples: r.num('samples'),
        work: r.num('work'),
        idle: r.num('idleness'),
        overhead: r.num('overhead'),
        lockWait: r.num('lock waiting'),
        other: r.num('other'),
        workPerWorking: r.f64('work per working thread'),
        lockBlame: r.num('lock blame'),
      });
    }
    for (let j = 0, m = r.count('region count', 52); j < m; j++) {
      th.regions.push({
        event: r.u32('a region event'),
        count: r.num('region count'),
        exec: r.num('region time'),
        sync: r.num('synchronization'),
        imbalance: r.num('imbalance'),
        limitedParallelism: r.num('limited parallelism'),
        threadManagement: r.num('thread management'),
      });
    }
    for (let j = 0, m = r.count('task construct count', 44 + 8 * nHist); j < m; j++) {
      th.tasks.push({
        event: r.u32('a task event'),
        created: r.num('tasks created'),
        executed: r.num('tasks executed'),
        sum: r.num('task time'),
        max: r.num('longest task'),
        min: r.num('shortest task'),
        hist: Array.from({ length: nHist }, () => r.num('a task histogram bucket')),
      });
    }
    for (let j = 0, m = r.count('release site count', 24); j < m; j++) {
      th.releases.push({ codeptr: r.u64('a release address'), blame: r.num('release blame'), count: r.num('releases') });
    }
    threads.push(th);
  }
  r.done();
  return { level, cores, maxTeam, runtime, unreleasedWait, waitTableFull, constructs, threads };
}

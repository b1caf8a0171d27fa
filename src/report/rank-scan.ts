/**
 * One pass over every thread file of a profile (one metric), keeping only what the cross-rank views
 * need, so that a profile of thousands of ranks is reported in bounded memory: per flat event the
 * statistics over threads (ParaProf's mean / std. dev. views), the mean thread (pprof's mean), and
 * over ranks streaming sums: run times (mean, slowest), the MPI share (analysis/mpi-share.ts), the
 * per-rank MPI rows (rank-rows.ts: every rank of a job up to a thousand, else the largest MPI shares,
 * with quartiles), the ranks' records (profile/mpi-ranks.ts) and the MPI accounting's statistics
 * (mpi-fold.ts: per call, calling context, call site and collective). A rank's own figures and maps
 * are folded in once its threads are read and dropped, so memory grows with the distinct events and
 * MPI contexts, not with the ranks (the communication matrix, asked for, keeps its pairs). Files are
 * read one at a time, ranks in order.
 */
import { callSitesOf } from '../analysis/mpi-sites.js';
import { MpiShareAcc, threadTally } from '../analysis/mpi-share.js';
import { RANK_SETTINGS, RanksAcc } from '../profile/mpi-ranks.js';
import { RankSet } from '../profile/rank-set.js';
import { RankRows } from './rank-rows.js';
import { callpathGroup, isSampleEvent, mpiGroup, pathPartsOf, sampleCounts } from './report-data.js';
import { displayName, threadLabel } from '../profile/tau-model.js';
import type { TauUserEvent } from '../profile/tau-model.js';
import { addMatrixEntry, type MatrixRow } from './comm-matrix.js';
import { MpiFold, type OpenRank } from './mpi-fold.js';
import { forEachThreadLines, ownString, poolUserEvent, type MetricFiles, type ThreadHead, type ThreadSink } from '../profile/tau-reader.js';

/** Statistics of one value over threads. */
export interface Spread {
  /** Threads that have the event. */
  n: number;
  sum: number;
  sumsq: number;
  min: number;
  max: number;
  minAt: string;
  maxAt: string;
}

export interface EventSpread {
  name: string;
  group: string;
  calls: number;
  excl: Spread;
  incl: Spread;
}

/** The rank being read (its threads summed), until it is folded into the figures over ranks. */
interface RankAcc extends MatrixRow {
  node: number;
  threads: number;
  /** Largest inclusive value of the root timer over the rank's threads: the rank's run time. */
  total: number;
  /** Exclusive value in MPI calls, over the rank's threads. */
  mpi: number;
  mpiCalls: number;
  bytesSent: number;
  bytesReceived: number;
  bytesCollective: number;
}

/** Run times over ranks (a rank in two parts counts twice), for the slowest rank and the mean. */
export interface RankTotals {
  parts: number;
  sum: number;
  slowest?: { node: number; total: number };
  /** Ranks (parts) that made MPI calls. */
  withMpi: number;
}

export interface RankScan {
  metric: string;
  threads: number;
  events: Map<string, EventSpread>;
  /** pprof's mean thread: every value summed over threads (divided by `threads` when read). */
  meanSums: MeanSums;
  /** The ranks met (node numbers). */
  ranks: RankSet;
  totals: RankTotals;
  /** The per-rank MPI rows of --mpi, bounded. */
  rankRows: RankRows;
  /** The communication matrix's rows (TAU_COMM_MATRIX), per sending rank: only when asked (ScanNeeds.matrix). */
  matrix: Map<number, MatrixRow>;
  /** What the ranks' main threads say of the run (rank notes: lost ranks, other runs, settings). */
  records: RanksAcc;
  /** The metadata of the first file (configuration of the run, callpath depth). */
  metadataOfFirst: Array<[string, string]>;
  /** Samples taken and dropped over all threads (report-data's sampleCounts, summed). */
  samples: { taken?: number; drops: Map<string, number> };
  /** The one MPI share (analysis/mpi-share.ts): over the threads that call MPI, Init and Finalize apart. */
  mpiShare: MpiShareAcc;
  /** The MPI accounting over ranks (per call, calling context, call site, collective). */
  fold: MpiFold;
  /** Ranks whose threads were not together in the profile (a merged file out of rank order): each
   * part was folded in as a rank of its own, and the report says so. */
  split: number[];
}

const ROOT = '.TAU application';

function spread(): Spread {
  return { n: 0, sum: 0, sumsq: 0, min: Infinity, max: -Infinity, minAt: '', maxAt: '' };
}

function add(s: Spread, v: number, at: string): void {
  s.n++;
  s.sum += v;
  s.sumsq += v * v;
  if (v < s.min) [s.min, s.minAt] = [v, at];
  if (v > s.max) [s.max, s.maxAt] = [v, at];
}

function rankAcc(node: number): RankAcc {
  return {
    node,
    threads: 0,
    total: 0,
    mpi: 0,
    mpiCalls: 0,
    bytesSent: 0,
    bytesReceived: 0,
    bytesCollective: 0,
  };
}

function bump<K>(m: Map<K, number>, k: K, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

function userTotal(u: TauUserEvent): number {
  return u.mean * u.count;
}

/**
 * Sums of every entry over threads, by name, in columns (one map entry and a few numbers per
 * distinct name, however many threads): pprof's mean thread once divided.
 */
export class MeanSums {
  private readonly index = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly groups: string[] = [];
  private readonly calls: number[] = [];
  private readonly subrs: number[] = [];
  private readonly excl: number[] = [];
  private readonly incl: number[] = [];
  readonly users = new Map<string, TauUserEvent>();

  add(name: string, calls: number, subrs: number, excl: number, incl: number, group: string): void {
    const i = this.index.get(name);
    if (i === undefined) {
      const own = ownString(name);
      this.index.set(own, this.names.length);
      this.names.push(own);
      this.groups.push(group);
      this.calls.push(calls);
      this.subrs.push(subrs);
      this.excl.push(excl);
      this.incl.push(incl);
      return;
    }
    this.calls[i] += calls;
    this.subrs[i] += subrs;
    this.excl[i] += excl;
    this.incl[i] += incl;
  }

  addUser(u: TauUserEvent): void {
    poolUserEvent(this.users, u);
  }

  /** The mean over `threads` threads, handed to `sink` line by line (in the order names came). */
  feed(sink: ThreadSink, metric: string, threads: number): void {
    const n = Math.max(1, threads);
    sink.begin({ node: -1, context: -1, thread: -1, metric, metadata: [] });
    for (let i = 0; i < this.names.length; i++) {
      sink.event(this.names[i], this.calls[i] / n, this.subrs[i] / n, this.excl[i] / n, this.incl[i] / n, this.groups[i]);
    }
    for (const u of this.users.values()) sink.userEvent({ ...u, mean: u.count > 0 ? u.mean / u.count : 0 });
    sink.end();
  }
}

/** What a scan may leave out when its reader does not need it (each costs an entry per event). */
export interface ScanNeeds {
  /** pprof's mean thread (meanSums); default true. */
  mean?: boolean;
  /** The statistics of each flat event over threads (events: the cross-rank views); default true. */
  spreads?: boolean;
  /** The communication matrix's rows (RankScan.matrix); default false: an entry per rank pair. */
  matrix?: boolean;
}

/** The scan's part of reading one thread's file. */
class ThreadScan implements ThreadSink {
  private r!: RankAcc;
  private o!: OpenRank;
  private at = '';
  private tally!: ReturnType<typeof threadTally>;

  constructor(
    private readonly scan: RankScan,
    private readonly mean: MeanSums | null,
    private readonly spreads: boolean,
    private readonly matrix: boolean,
    /** Also told every line (a thread the report prints in full). */
    private readonly also: ThreadSink | undefined,
    /** The rank being read (its figures and maps, folded in when the next rank starts). */
    private readonly open: (node: number) => { o: OpenRank; r: RankAcc },
  ) {}

  begin(t: ThreadHead): void {
    const scan = this.scan;
    scan.threads++;
    this.at = threadLabel(t).replace(/^n,c,t /, '');
    const { o, r } = this.open(t.node);
    this.r = r;
    this.o = o;
    this.tally = threadTally(t.node);
    r.threads++;
    if (t.context === 0 && t.thread === 0) {
      // Only what the rank notes read; the summary keeps sets of ranks, not the attributes.
      const attributes = t.metadata.filter(([k]) => k.startsWith('MPI ') || RANK_SETTINGS.has(k));
      scan.records.add({ node: t.node, attributes, source: `profile.${t.node}.0.0` });
    }
    // Each thread's own MPI calls (any thread may call MPI at MPI_THREAD_SERIALIZED or MULTIPLE).
    this.o.sites.push(...callSitesOf(t.metadata));
    if (scan.threads === 1) scan.metadataOfFirst = t.metadata;
    const c = sampleCounts(t);
    if (c.taken !== undefined) scan.samples.taken = (scan.samples.taken ?? 0) + c.taken;
    for (const d of c.drops) bump(scan.samples.drops, d.reason, d.count);
    this.also?.begin(t);
  }

  event(name: string, calls: number, subrs: number, excl: number, incl: number, group: string): void {
    this.also?.event(name, calls, subrs, excl, incl, group);
    this.tally.event(displayName(name), group, calls, excl, incl);
    // pprof's mean: every entry summed (divided by the threads at the end).
    this.mean?.add(name, calls, subrs, excl, incl, group);
    const r = this.r;
    const shown = displayName(name);

    const parts = pathPartsOf(shown);
    if (!parts) {
      if (isSampleEvent(name, group)) return;
      if (this.spreads) {
        let s = this.scan.events.get(name);
        if (!s) {
          const own = ownString(name);
          this.scan.events.set(own, (s = { name: own, group: ownString(group), calls: 0, excl: spread(), incl: spread() }));
        }
        s.calls += calls;
        add(s.excl, excl, this.at);
        add(s.incl, incl, this.at);
      }
      if (shown === ROOT) r.total = Math.max(r.total, incl);
      if (mpiGroup(group)) {
        r.mpi += excl;
        r.mpiCalls += calls;
        const byCall = this.o.byCall;
        const c = byCall.get(shown) ?? { calls: 0, incl: 0 };
        c.calls += calls;
        c.incl += incl;
        byCall.set(shown, c);
      }
      return;
    }
    if (isSampleEvent(name, group) || !callpathGroup(group) || !mpiGroup(group)) return;
    const caller = parts.slice(0, -1).join(' => ');
    const last = parts[parts.length - 1];
    let byCall = this.o.byCaller.get(caller);
    if (!byCall) this.o.byCaller.set(caller, (byCall = new Map()));
    const c = byCall.get(last) ?? { calls: 0, incl: 0 };
    c.calls += calls;
    c.incl += incl;
    byCall.set(last, c);
  }

  userEvent(u: TauUserEvent): void {
    this.also?.userEvent(u);
    const r = this.r;
    const name = displayName(u.name);
    if (name === 'Message size sent to all nodes') r.bytesSent += userTotal(u);
    else if (name === 'Message size received from all nodes') r.bytesReceived += userTotal(u);
    else if (name.startsWith('Message size for ')) r.bytesCollective += userTotal(u);
    else if (this.matrix) addMatrixEntry(r, u);
    this.mean?.addUser(u);
  }

  end(): void {
    this.scan.mpiShare.add(this.tally);
    this.also?.end();
  }
}

/**
 * Scan every file of one metric, line by line. `onFile` is told before each file (progress);
 * `printFor` may give, per thread, a sink told its every line too (the few a report prints in full).
 */
export function scanRanks(
  set: MetricFiles,
  onFile?: (index: number, total: number) => void,
  printFor?: (t: ThreadHead) => ThreadSink | undefined,
  needs: ScanNeeds = {},
): RankScan {
  const scan: RankScan = {
    metric: set.metric,
    threads: 0,
    events: new Map(),
    meanSums: new MeanSums(),
    ranks: new RankSet(),
    totals: { parts: 0, sum: 0, withMpi: 0 },
    rankRows: new RankRows(),
    matrix: new Map(),
    records: new RanksAcc(),
    metadataOfFirst: [],
    samples: { drops: new Map() },
    mpiShare: new MpiShareAcc(),
    fold: new MpiFold(),
    split: [],
  };
  const sums = needs.mean === false ? null : scan.meanSums;
  // The rank being read: its threads come together (files sorted by rank; a merged file as written,
  // by rank), so it is folded in and dropped when another rank starts. A rank met again after that
  // is folded as a second part, and said (scan.split).
  let open: { o: OpenRank; r: RankAcc } | undefined;
  const close = () => {
    if (!open) return;
    const { o, r } = open;
    scan.fold.add(o);
    const share = scan.mpiShare.close();
    const totals = scan.totals;
    totals.parts++;
    totals.sum += r.total;
    if (!totals.slowest || r.total > totals.slowest.total) totals.slowest = { node: r.node, total: r.total };
    if (r.mpiCalls > 0) {
      totals.withMpi++;
      scan.rankRows.add({
        node: r.node,
        total: r.total,
        mpi: r.mpi,
        share: share?.share ?? 0,
        initShare: share?.initShare ?? 0,
        finalizeShare: share?.finalizeShare ?? 0,
        calls: r.mpiCalls,
        sent: r.bytesSent,
        received: r.bytesReceived,
        collective: r.bytesCollective,
      });
    }
    if (r.sentTo || r.sentBeyond) {
      // A rank in two parts: its row is one.
      const row = scan.matrix.get(r.node) ?? {};
      for (const [to, c] of r.sentTo ?? []) {
        const cell = (row.sentTo ??= new Map()).get(to) ?? { count: 0, bytes: 0 };
        row.sentTo.set(to, { count: cell.count + c.count, bytes: cell.bytes + c.bytes });
      }
      if (r.sentBeyond) row.sentBeyond = { count: (row.sentBeyond?.count ?? 0) + r.sentBeyond.count, bytes: (row.sentBeyond?.bytes ?? 0) + r.sentBeyond.bytes };
      scan.matrix.set(r.node, row);
    }
    open = undefined;
  };
  const openRank = (node: number): { o: OpenRank; r: RankAcc } => {
    if (open?.o.node === node) return open;
    close();
    if (scan.ranks.has(node) && !scan.split.includes(node)) scan.split.push(node);
    scan.ranks.add(node);
    return (open = { o: { node, byCall: new Map(), byCaller: new Map(), sites: [] }, r: rankAcc(node) });
  };
  forEachThreadLines(set, (i) => {
    onFile?.(i, set.files.length);
    // The printing sink is chosen once the thread's first lines say which thread it is.
    let inner: ThreadScan | undefined;
    return {
      begin: (t) => {
        inner = new ThreadScan(scan, sums, needs.spreads !== false, needs.matrix === true, printFor?.(t), openRank);
        inner.begin(t);
      },
      event: (name, calls, subrs, excl, incl, group) => inner!.event(name, calls, subrs, excl, incl, group),
      userEvent: (u) => inner!.userEvent(u),
      end: () => inner!.end(),
    };
  });
  close();
  return scan;
}

/** Mean and standard deviation over all `threads` (threads without the event count as 0, as ParaProf's mean). */
export function meanStd(s: Spread, threads: number): { mean: number; std: number; min: number } {
  const mean = s.sum / threads;
  const variance = Math.max(0, s.sumsq / threads - mean * mean);
  return { mean, std: Math.sqrt(variance), min: s.n < threads ? 0 : s.min };
}

/**
 * The work under the given calling contexts on the given ranks (second pass, for the imbalance
 * diagnosis: only the ranks it compares are read again): per rank, per context, its child timers
 * (inclusive), its sampled lines (value) and its own code (exclusive), summed over the rank's threads.
 */
export function workOf(set: MetricFiles, nodes: Set<number>, contexts: Set<string>): Map<number, Map<string, Map<string, number>>> {
  const out = new Map<number, Map<string, Map<string, number>>>();
  const pick = set.merged ? set : { ...set, files: set.files.filter((f) => nodes.has(f.node)) };
  forEachThreadLines(pick, () => {
    let rank: Map<string, Map<string, number>> | undefined;
    const into = (ctx: string, item: string, v: number) => {
      if (!rank || !contexts.has(ctx)) return;
      let w = rank.get(ctx);
      if (!w) rank.set(ctx, (w = new Map()));
      bump(w, ownString(item), v);
    };
    return {
      begin: (t) => {
        if (!nodes.has(t.node)) return;
        rank = out.get(t.node);
        if (!rank) out.set(t.node, (rank = new Map()));
      },
      event: (name, _calls, _subrs, excl, incl, group) => {
        if (!rank) return;
        const shown = displayName(name);
        const parts = pathPartsOf(shown);
        if (!parts) {
          if (shown === ROOT) into(ROOT, `${ROOT} (its own code)`, excl);
          return;
        }
        const last = parts[parts.length - 1];
        if (last.startsWith('[SAMPLE]')) {
          const ci = parts.findIndex((p) => p.startsWith('[CONTEXT]'));
          if (ci > 0) into(parts.slice(0, ci).join(' => '), last, excl || incl);
          return;
        }
        if (isSampleEvent(name, group) || !callpathGroup(group) || mpiGroup(group)) return;
        into(parts.slice(0, -1).join(' => '), last, incl);
        // A context's own code (its exclusive time) is work too, for programs measured without samples.
        into(parts.join(' => '), `${last} (its own code)`, excl);
      },
      userEvent: () => undefined,
      end: () => undefined,
    };
  });
  return out;
}

/**
 * One pass over every thread file of a profile (one metric), keeping only what the cross-rank views
 * need, so that a profile of thousands of ranks is reported in bounded memory: per flat event the
 * statistics over threads (ParaProf's mean / std. dev. views), the mean thread (pprof's mean), and
 * per rank the MPI accounting, the call sites and, under the contexts that call MPI, the work that
 * may differ between ranks (child timers, sampled lines). Files are read one at a time.
 */
import { callSitesOf, type MpiSiteRecord } from '../analysis/mpi-sites.js';
import { RANK_SETTINGS, type RankRecord } from './mpi-ranks.js';
import { isSampleNode, sampleCounts } from './report-data.js';
import { displayName, isCallpath, threadLabel } from './tau-model.js';
import type { TauEvent, TauThreadProfile, TauUserEvent } from './tau-model.js';
import { forEachThread, type MetricFiles } from './tau-reader.js';

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

/** What the MPI analysis keeps of one rank (its threads summed). */
export interface RankAcc {
  node: number;
  threads: number;
  /** Largest inclusive value of the root timer over the rank's threads: the rank's run time. */
  total: number;
  /** Exclusive value in MPI calls, over the rank's threads. */
  mpi: number;
  mpiCalls: number;
  /** Per MPI call: calls and inclusive value. */
  byCall: Map<string, { calls: number; incl: number }>;
  /** Per caller path (display form) and MPI call: calls and inclusive value (event paths needed). */
  byCaller: Map<string, Map<string, { calls: number; incl: number }>>;
  bytesSent: number;
  bytesReceived: number;
  bytesCollective: number;
  sites: MpiSiteRecord[];
}

export interface RankScan {
  metric: string;
  threads: number;
  events: Map<string, EventSpread>;
  /** pprof's mean thread: every value summed over threads and divided by `threads`. */
  meanSums: TauThreadProfile;
  ranks: Map<number, RankAcc>;
  records: RankRecord[];
  /** The metadata of the first file (configuration of the run, callpath depth). */
  metadataOfFirst: Array<[string, string]>;
  /** Samples taken and dropped over all threads (report-data's sampleCounts, summed). */
  samples: { taken?: number; drops: Map<string, number> };
}

const SPLIT_RE = /\s+=>\s+/;
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

function isMpi(e: TauEvent): boolean {
  return e.group.split('|').some((g) => g.trim() === 'MPI');
}

function rankAcc(node: number): RankAcc {
  return {
    node,
    threads: 0,
    total: 0,
    mpi: 0,
    mpiCalls: 0,
    byCall: new Map(),
    byCaller: new Map(),
    bytesSent: 0,
    bytesReceived: 0,
    bytesCollective: 0,
    sites: [],
  };
}

function bump<K>(m: Map<K, number>, k: K, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

function userTotal(u: TauUserEvent): number {
  return u.mean * u.count;
}

/** Sums of every entry over threads, by name: pprof's mean thread once divided. */
interface MeanSums {
  events: Map<string, TauEvent>;
  users: Map<string, TauUserEvent>;
}

/** What a scan may leave out when its reader does not need it (each costs an entry per event). */
export interface ScanNeeds {
  /** pprof's mean thread (meanSums); default true. */
  mean?: boolean;
  /** The statistics of each flat event over threads (events: the cross-rank views); default true. */
  spreads?: boolean;
}

/** Add one thread's file to the scan. */
function addThread(scan: RankScan, mean: MeanSums | null, t: TauThreadProfile, spreads: boolean): void {
  scan.threads++;
  const at = threadLabel(t).replace(/^n,c,t /, '');
  let r = scan.ranks.get(t.node);
  if (!r) scan.ranks.set(t.node, (r = rankAcc(t.node)));
  r.threads++;
  if (t.context === 0 && t.thread === 0) {
    // Only what the rank notes read: thousands of ranks' whole metadata would not be bounded.
    const attributes = t.metadata.filter(([k]) => k.startsWith('MPI ') || RANK_SETTINGS.has(k));
    scan.records.push({ node: t.node, attributes, source: `profile.${t.node}.0.0` });
  }
  // Each thread's own MPI calls (any thread may call MPI at MPI_THREAD_SERIALIZED or MULTIPLE).
  r.sites.push(...callSitesOf(t.metadata));
  if (scan.threads === 1) scan.metadataOfFirst = t.metadata;
  for (const e of t.events) {
    // pprof's mean: every entry summed (divided by the threads at the end).
    const m = mean?.events.get(e.name);
    if (m) {
      m.calls += e.calls;
      m.subrs += e.subrs;
      m.excl += e.excl;
      m.incl += e.incl;
    } else mean?.events.set(e.name, { ...e });
    // A name without a path separator is one part: no array of parts is made for it.
    const parts = e.name.includes('=>') ? displayName(e.name).split(SPLIT_RE).map((p) => p.trim()) : [displayName(e.name)];
    if (parts.length === 1 && !isSampleNode(e)) {
      if (spreads) {
        let s = scan.events.get(e.name);
        if (!s) scan.events.set(e.name, (s = { name: e.name, group: e.group, calls: 0, excl: spread(), incl: spread() }));
        s.calls += e.calls;
        add(s.excl, e.excl, at);
        add(s.incl, e.incl, at);
      }
      if (parts[0] === ROOT) r.total = Math.max(r.total, e.incl);
      if (isMpi(e)) {
        r.mpi += e.excl;
        r.mpiCalls += e.calls;
        const c = r.byCall.get(parts[0]) ?? { calls: 0, incl: 0 };
        c.calls += e.calls;
        c.incl += e.incl;
        r.byCall.set(parts[0], c);
      }
      continue;
    }
    if (parts.length === 1 || isSampleNode(e) || !isCallpath(e) || !isMpi(e)) continue;
    const caller = parts.slice(0, -1).join(' => ');
    const last = parts[parts.length - 1];
    let byCall = r.byCaller.get(caller);
    if (!byCall) r.byCaller.set(caller, (byCall = new Map()));
    const c = byCall.get(last) ?? { calls: 0, incl: 0 };
    c.calls += e.calls;
    c.incl += e.incl;
    byCall.set(last, c);
  }
  for (const u of t.userEvents) {
    const name = displayName(u.name);
    if (name === 'Message size sent to all nodes') r.bytesSent += userTotal(u);
    else if (name === 'Message size received from all nodes') r.bytesReceived += userTotal(u);
    else if (name.startsWith('Message size for ')) r.bytesCollective += userTotal(u);
    if (!mean) continue;
    const mu = mean.users.get(u.name);
    if (!mu) mean.users.set(u.name, { ...u, mean: u.mean * u.count });
    else {
      mu.count += u.count;
      mu.max = Math.max(mu.max, u.max);
      mu.min = Math.min(mu.min, u.min);
      mu.mean += u.mean * u.count;
      mu.sumsqr += u.sumsqr;
    }
  }
}

/**
 * Scan every file of one metric. `onFile` is told before each file (progress), `onThread` gets each
 * parsed thread before it is dropped (for the few a report prints in full).
 */
export function scanRanks(
  set: MetricFiles,
  onFile?: (index: number, total: number) => void,
  onThread?: (t: TauThreadProfile) => void,
  needs: ScanNeeds = {},
): RankScan {
  const scan: RankScan = {
    metric: set.metric,
    threads: 0,
    events: new Map(),
    meanSums: { node: -1, context: -1, thread: -1, metric: set.metric, events: [], userEvents: [], metadata: [] },
    ranks: new Map(),
    records: [],
    metadataOfFirst: [],
    samples: { drops: new Map() },
  };
  const sums: MeanSums | null = needs.mean === false ? null : { events: new Map(), users: new Map() };
  forEachThread(set, (t, i) => {
    onFile?.(i, set.files.length);
    onThread?.(t);
    addThread(scan, sums, t, needs.spreads !== false);
    const c = sampleCounts(t);
    if (c.taken !== undefined) scan.samples.taken = (scan.samples.taken ?? 0) + c.taken;
    for (const d of c.drops) bump(scan.samples.drops, d.reason, d.count);
  });
  if (!sums) return scan;
  const n = Math.max(1, scan.threads);
  scan.meanSums.events = [...sums.events.values()].map((e) => ({
    ...e,
    calls: e.calls / n,
    subrs: e.subrs / n,
    excl: e.excl / n,
    incl: e.incl / n,
  }));
  scan.meanSums.userEvents = [...sums.users.values()].map((u) => ({ ...u, mean: u.count > 0 ? u.mean / u.count : 0 }));
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
  forEachThread(pick, (t) => {
    if (!nodes.has(t.node)) return;
    let rank = out.get(t.node);
    if (!rank) out.set(t.node, (rank = new Map()));
    const into = (ctx: string, item: string, v: number) => {
      if (!contexts.has(ctx)) return;
      let w = rank!.get(ctx);
      if (!w) rank!.set(ctx, (w = new Map()));
      bump(w, item, v);
    };
    for (const e of t.events) {
      const parts = displayName(e.name).split(SPLIT_RE).map((p) => p.trim());
      if (parts.length === 1) {
        if (parts[0] === ROOT) into(ROOT, `${ROOT} (its own code)`, e.excl);
        continue;
      }
      const last = parts[parts.length - 1];
      if (last.startsWith('[SAMPLE]')) {
        const ci = parts.findIndex((p) => p.startsWith('[CONTEXT]'));
        if (ci > 0) into(parts.slice(0, ci).join(' => '), last, e.excl || e.incl);
        continue;
      }
      if (isSampleNode(e) || !isCallpath(e) || isMpi(e)) continue;
      into(parts.slice(0, -1).join(' => '), last, e.incl);
      // A context's own code (its exclusive time) is work too, for programs measured without samples.
      into(parts.join(' => '), `${last} (its own code)`, e.excl);
    }
  });
  return out;
}

/**
 * The cross-rank views of `hyprof report` (computed from a rank scan, rank-scan.ts):
 * - per event, mean / std. dev. / min / max over all threads of all ranks (ParaProf's mean and
 *   std. dev. views), where the maximum is, and the slowest rank;
 * - the MPI accounting of `--mpi` (seed 001, ompP): per rank the time in MPI and the bytes moved;
 *   per MPI call and per calling context the time over ranks; MPI time per OpenMP parallel region
 *   and MPI as an overhead class of the whole program; the call sites;
 * - the MPI problems of `--diagnose`: load imbalance between ranks at a collective (ranks that arrive
 *   early wait in it for the one that computes longest), with the collective's call site and the work
 *   that differs most between the waiting ranks and the late one.
 * Pure functions; report-text and --json print the same data.
 */
import { rankList, rankNotes } from '../profile/mpi-ranks.js';
import { meanStd, type RankScan } from './rank-scan.js';
import type { MpiRankRow, RankDistributions } from './rank-rows.js';
import { type OverRanks, type SiteAgg } from './mpi-fold.js';
import type { MpiShare } from '../analysis/mpi-share.js';
import { displayName } from '../profile/tau-model.js';

export interface RankStatRow {
  name: string;
  group: string;
  /** Threads that have the event. */
  threads: number;
  /** Exclusive value over all threads: mean, standard deviation, min, max and where the max is. */
  mean: number;
  std: number;
  min: number;
  max: number;
  maxAt: string;
  /** Inclusive mean over all threads. */
  inclMean: number;
  /** Calls per thread on average. */
  calls: number;
}

export interface RanksReport {
  ranks: number;
  threads: number;
  worldSize?: number;
  /** Lost ranks, files of another run, settings that differ. */
  notes: string[];
  slowest?: { node: number; total: number; meanTotal: number };
  /** The one MPI share (analysis/mpi-share.ts), the same in --mpi and the viewer. */
  mpiShare?: MpiShare;
  stats: RankStatRow[];
  /** Rows before the limit. */
  statCount: number;
}

export type { MpiRankRow } from './rank-rows.js';

export interface MpiCallRow {
  call: string;
  /** The calling context (display form) or '' for all contexts together. */
  caller: string;
  calls: number;
  /** Inclusive time over the ranks that made the call: mean, min (and which rank), max (and which). */
  mean: number;
  min: number;
  minAt: number;
  max: number;
  maxAt: number;
  ranks: number;
  /** Mean time as a share of the mean run time of a rank. */
  share: number;
}

export interface MpiRegionRow {
  /** An OpenMP parallel region, or `(outside parallel regions)`, or `whole program`. */
  region: string;
  /** Time summed over ranks and threads. */
  exec: number;
  mpi: number;
  share: number;
}

/** A call site's row: the fold's record of it (mpi-fold.ts), as the report gives it. */
export type MpiSiteRow = SiteAgg;

export interface MpiAccounting {
  /** The one MPI share, as RANKS gives it. */
  share?: MpiShare;
  /** Every rank that calls MPI, by rank; or, past rank-rows.ts's RANK_ROWS_KEPT, those with the largest MPI share, largest first. */
  ranks: MpiRankRow[];
  /** False when `ranks` holds only the ranks with the largest MPI share. */
  allRanks: boolean;
  /** The ranks that call MPI: how many, and quartiles of their MPI share, run time and MPI time. */
  overRanks?: RankDistributions;
  byCall: MpiCallRow[];
  byCaller: MpiCallRow[];
  regions: MpiRegionRow[];
  sites: MpiSiteRow[];
}

export interface MpiDiagnosis {
  kind: 'mpi-imbalance';
  call: string;
  caller: string;
  location: string;
  message: string;
  /** The work that differs most between the late rank and the earliest one, when found. */
  work?: { name: string; late: number; early: number };
}

const ROOT = '.TAU application';

/** A caller path as the call sites name it: without the root. */
function callerKey(path: string): string {
  const parts = displayName(path).split(/\s+=>\s+/);
  return (parts[0] === ROOT ? parts.slice(1) : parts).join(' => ');
}

/** The mean run time of a rank. */
const meanTotal = (scan: RankScan): number => (scan.totals.parts > 0 ? scan.totals.sum / scan.totals.parts : 0);

export function ranksReport(scan: RankScan, limit = 20): RanksReport {
  const summary = scan.records.summary();
  const stats = [...scan.events.values()]
    .map((e) => {
      const x = meanStd(e.excl, scan.threads);
      return {
        name: displayName(e.name),
        group: e.group,
        threads: e.excl.n,
        mean: x.mean,
        std: x.std,
        min: x.min,
        max: e.excl.max,
        maxAt: e.excl.maxAt,
        inclMean: e.incl.sum / scan.threads,
        calls: e.calls / scan.threads,
      };
    })
    .sort((a, b) => b.mean - a.mean || (a.name < b.name ? -1 : 1));
  const slow = scan.totals.slowest;
  const mpiShare = scan.mpiShare.result();
  return {
    ranks: scan.ranks.size,
    threads: scan.threads,
    ...(summary.worldSize !== undefined ? { worldSize: summary.worldSize } : {}),
    notes: [
      ...rankNotes(summary),
      ...(scan.split.length > 0
        ? [`the threads of rank${scan.split.length > 1 ? 's' : ''} ${rankList(scan.split)} are not together in the profile (a merged file out of rank order): the MPI statistics over ranks count each part as a rank`]
        : []),
    ],
    ...(slow && scan.ranks.size > 1 ? { slowest: { node: slow.node, total: slow.total, meanTotal: meanTotal(scan) } } : {}),
    ...(mpiShare ? { mpiShare } : {}),
    stats: stats.slice(0, limit),
    statCount: stats.length,
  };
}

function callRow(call: string, caller: string, o: OverRanks, meanTotal: number): MpiCallRow {
  const m = o.sum / o.ranks;
  return {
    call,
    caller,
    calls: o.calls,
    mean: m,
    min: o.min,
    minAt: o.minAt,
    max: o.max,
    maxAt: o.maxAt,
    ranks: o.ranks,
    share: meanTotal > 0 ? (100 * m) / meanTotal : 0,
  };
}

export function mpiAccounting(scan: RankScan): MpiAccounting {
  const perRank = scan.rankRows.result();
  const mean = meanTotal(scan);
  const fold = scan.fold;
  const byCall = [...fold.byCall].map(([call, o]) => callRow(call, '', o, mean)).sort((a, b) => b.mean - a.mean);
  const byCaller = [...fold.byCaller]
    .map(([key, o]) => {
      const [caller, call] = key.split('\u0000');
      return callRow(call, caller, o, mean);
    })
    .sort((a, b) => b.mean - a.mean);
  // ompP's overhead class MPI: MPI time inside each OpenMP parallel region, and outside them.
  const regionMpi = fold.regionMpi;
  const regions: MpiRegionRow[] = [...regionMpi]
    .map(([region, mpi]) => {
      const ev = [...scan.events.values()].find((e) => displayName(e.name) === region);
      const exec = ev ? ev.incl.sum : region === '(outside parallel regions)' ? NaN : 0;
      return { region, exec, mpi, share: exec > 0 ? (100 * mpi) / exec : NaN };
    })
    .sort((a, b) => b.mpi - a.mpi);
  // The whole program is the one MPI share (analysis/mpi-share.ts): the threads that call MPI, between
  // MPI_Init and MPI_Finalize; not divided by threads that never call MPI (runtime service threads).
  const share = scan.mpiShare.result();
  if (perRank.rows.length > 0 && share) {
    const { run: exec, mpi } = scan.mpiShare.between();
    regions.push({ region: 'whole program (threads that call MPI, MPI_Init to MPI_Finalize)', exec, mpi, share: share.mean });
  }
  const sites = [...fold.sites.values()].map((row) => ({ ...row })).sort((a, b) => b.usec - a.usec);
  return {
    ...(share ? { share } : {}),
    ranks: perRank.rows,
    allRanks: perRank.all,
    ...(perRank.over ? { overRanks: perRank.over } : {}),
    byCall,
    byCaller,
    regions,
    sites,
  };
}

/** 0: a timer or a sampled line of the program's own sources; 1: a sampled line elsewhere; 2: own code. */
function workTier(item: string): number {
  if (item.endsWith('(its own code)')) return 2;
  const m = /^\[SAMPLE\]\s+.*\[\{(.*)\}\s+\{\d+\}\]$/.exec(item.trim());
  if (!m) return item.startsWith('[') ? 1 : 0;
  return m[1].startsWith('/') && !m[1].startsWith('/usr/') ? 0 : 1;
}

/** `work [{/path/app.c} {33}]` → `work at app.c:33`; other names as they are. */
export function workName(item: string): string {
  const m = /^\[SAMPLE\]\s+(.*?)\s+\[\{(.*)\}\s+\{(\d+)\}\]$/.exec(item.trim());
  if (!m) return item;
  const file = m[2].split('/').pop();
  return `${m[1]} at ${file}:${m[3]}`;
}

function ms(usec: number): string {
  return usec >= 1e6 ? `${(usec / 1e6).toFixed(2)} s` : `${(usec / 1e3).toFixed(usec >= 1e4 ? 1 : 2)} ms`;
}

/**
 * Load imbalance between ranks at each collective call path: the ranks that reach it first wait
 * there for the last one. Named when the spread of the time in it over ranks is at least 5% of a
 * rank's mean run time and at least 1 ms.
 */
/** The work of some ranks under some contexts (rank-scan.ts workOf, bound to the profile). */
export type WorkReader = (nodes: Set<number>, contexts: Set<string>) => Map<number, Map<string, Map<string, number>>>;

export function mpiDiagnoses(scan: RankScan, readWork: WorkReader): MpiDiagnosis[] {
  if (scan.ranks.size < 2 || !/TIME/.test(scan.metric)) return [];
  const mean = meanTotal(scan);
  const out: MpiDiagnosis[] = [];
  // A collective is judged per immediate caller (mpi-fold.ts): the same call in every iteration
  // (phases, loops over contexts) adds up, as the waiting does.
  const found = [...scan.fold.collectives.values()].filter((g) => g.time.ranks >= 2 && g.time.max - g.time.min >= Math.max(1000, 0.05 * mean));
  // Only the late and the earliest rank of each imbalance are read again for their work.
  const nodes = new Set(found.flatMap((f) => [f.time.minAt, f.time.maxAt]));
  const contexts = new Set(found.flatMap((f) => [...f.paths]));
  const workByRank = found.length > 0 ? readWork(nodes, contexts) : new Map<number, Map<string, Map<string, number>>>();
  const workOn = (node: number, paths: Set<string>) => {
    const w = new Map<string, number>();
    for (const p of paths) for (const [k, v] of workByRank.get(node)?.get(p) ?? []) w.set(k, (w.get(k) ?? 0) + v);
    return w;
  };
  for (const { caller, call, paths, time, nodes: having } of found) {
    const late = { r: { node: time.minAt }, t: time.min, work: workOn(time.minAt, paths) };
    const early = { r: { node: time.maxAt }, t: time.max, work: workOn(time.maxAt, paths) };
    const spreadT = early.t - late.t;
    const m = time.sum / time.ranks;
    const site = siteOf(scan.fold.sites.values(), call, [...paths]);
    // Timers and sampled lines of the program's own sources name the work; lines in libraries
    // (the MPI library's progress thread polls in every rank) only when nothing else does, and a
    // context's own code last.
    let work: MpiDiagnosis['work'];
    for (const tier of [0, 1, 2]) {
      for (const k of new Set([...late.work.keys(), ...early.work.keys()])) {
        if (workTier(k) !== tier) continue;
        const d = (late.work.get(k) ?? 0) - (early.work.get(k) ?? 0);
        if (d > 0 && (!work || d > work.late - work.early)) work = { name: workName(k), late: late.work.get(k) ?? 0, early: early.work.get(k) ?? 0 };
      }
      if (work) break;
    }
    const example = [...paths].sort((a, b) => a.length - b.length)[0];
    const where = paths.size > 1 ? `${caller} (${paths.size} calling contexts, e.g. ${callerKey(example)})` : callerKey(example) || ROOT;
    const waiting = [...having].filter((n) => n !== late.r.node);
    const message =
      `ranks spend ${ms(late.t)} to ${ms(early.t)} in ${call} called from ${where} (mean ${ms(m)}, ` +
      `${mean > 0 ? ((100 * m) / mean).toFixed(0) : '?'}% of a rank's run time). Rank ${late.r.node} spends least: it ` +
      `arrives last, and rank${waiting.length > 1 ? 's' : ''} ${rankList(waiting)} wait for it (rank ${early.r.node} longest, ${ms(spreadT)} more). ` +
      (work
        ? `The work that differs most before the call: ${work.name}, ${ms(work.late)} on rank ${late.r.node} against ${ms(work.early)} on rank ${early.r.node}.`
        : 'No timer or sampled line under the same context explains the difference (measure with sampling, or add probes).');
    out.push({ kind: 'mpi-imbalance', call, caller: where, location: site, message, ...(work ? { work } : {}) });
  }
  return out.sort((a, b) => (b.work ? b.work.late - b.work.early : 0) - (a.work ? a.work.late - a.work.early : 0));
}

/** Where the program calls `call` from the contexts `callers`: the busiest call site over ranks. */
function siteOf(sites: Iterable<SiteAgg>, call: string, callers: string[]): string {
  const keys = new Set(callers.map(callerKey));
  const byLoc = new Map<string, number>();
  for (const s of sites) if (s.call === call && keys.has(callerKey(s.caller))) byLoc.set(s.location, (byLoc.get(s.location) ?? 0) + s.usec);
  const best = [...byLoc].sort((a, b) => b[1] - a[1])[0];
  return best ? best[0] : `${call} (call site not recorded)`;
}

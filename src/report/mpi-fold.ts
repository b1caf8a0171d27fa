/**
 * The MPI accounting's statistics over ranks, fed one finished rank at a time: rank-scan.ts folds a
 * rank in once all its threads are read and then drops the rank's own maps, so `report --mpi` and
 * `--diagnose` keep a few numbers per MPI call, calling context, call site and collective, however
 * many ranks there are (a profile of 100,000 ranks holds the same maps as one of 100). What each
 * keeps: ranks, calls, the sum over ranks, the minimum and maximum and the rank that has each
 * (ties: the lowest rank for the minimum, the highest for the maximum, as a sort by time then rank
 * gives), and for a collective the ranks that make it (a RankSet: ranges of consecutive ranks).
 */
import type { MpiSiteRecord } from '../analysis/mpi-sites.js';
import { displayName } from '../profile/tau-model.js';
import { ownString } from '../profile/tau-reader.js';
import { RankSet } from '../profile/rank-set.js';

/** One value of every rank that has it (its threads summed), reduced. */
export interface OverRanks {
  ranks: number;
  calls: number;
  sum: number;
  min: number;
  minAt: number;
  max: number;
  maxAt: number;
}

/** A rank's own MPI figures while its threads are read (dropped once folded in). */
export interface OpenRank {
  node: number;
  /** Per MPI call: calls and inclusive value. */
  byCall: Map<string, { calls: number; incl: number }>;
  /** Per caller path (display form) and MPI call: calls and inclusive value (event paths needed). */
  byCaller: Map<string, Map<string, { calls: number; incl: number }>>;
  sites: MpiSiteRecord[];
}

export interface SiteAgg {
  call: string;
  caller: string;
  location: string;
  calls: number;
  usec: number;
  ranks: number;
}

/** A collective per immediate caller (the same call in every iteration adds up, as the waiting does). */
export interface CollectiveAgg {
  caller: string;
  call: string;
  /** The full caller paths it was made from (over every rank). */
  paths: Set<string>;
  time: OverRanks;
  nodes: RankSet;
}

const COLLECTIVES = new Set(
  [
    'Barrier', 'Bcast', 'Reduce', 'Allreduce', 'Gather', 'Gatherv', 'Scatter', 'Scatterv', 'Allgather', 'Allgatherv',
    'Alltoall', 'Alltoallv', 'Reduce_scatter', 'Reduce_scatter_block', 'Scan', 'Exscan',
  ].map((c) => `MPI_${c}()`),
);

export function isCollective(call: string): boolean {
  return COLLECTIVES.has(call);
}

/** The last name of an event path. */
export function lastOf(path: string): string {
  return displayName(path).split(/\s+=>\s+/).pop() ?? path;
}

function overRanks(): OverRanks {
  return { ranks: 0, calls: 0, sum: 0, min: Infinity, minAt: -1, max: -Infinity, maxAt: -1 };
}

function addRank(o: OverRanks, node: number, calls: number, v: number): void {
  o.ranks++;
  o.calls += calls;
  o.sum += v;
  if (v < o.min || (v === o.min && node < o.minAt)) [o.min, o.minAt] = [v, node];
  if (v > o.max || (v === o.max && node > o.maxAt)) [o.max, o.maxAt] = [v, node];
}

export class MpiFold {
  readonly byCall = new Map<string, OverRanks>();
  /** Keyed `caller \0 call`. */
  readonly byCaller = new Map<string, OverRanks>();
  /** MPI time per OpenMP parallel region (or outside them), over ranks. */
  readonly regionMpi = new Map<string, number>();
  /** Keyed `call \0 caller \0 location`. */
  readonly sites = new Map<string, SiteAgg>();
  /** Keyed `last name of the caller \0 call`. */
  readonly collectives = new Map<string, CollectiveAgg>();

  add(r: OpenRank): void {
    for (const [call, c] of r.byCall) addRank(get(this.byCall, call, overRanks), r.node, c.calls, c.incl);
    const perGroup = new Map<string, { calls: number; t: number }>();
    for (const [caller, calls] of r.byCaller) {
      const parts = displayName(caller).split(/\s+=>\s+/);
      const region = [...parts].reverse().find((p) => p.startsWith('OpenMP_Parallel_Region')) ?? '(outside parallel regions)';
      for (const [call, c] of calls) {
        addRank(get(this.byCaller, `${caller}\u0000${call}`, overRanks), r.node, c.calls, c.incl);
        this.regionMpi.set(region, (this.regionMpi.get(region) ?? 0) + c.incl);
        if (!isCollective(call)) continue;
        const key = `${lastOf(caller)}\u0000${call}`;
        const g = get(this.collectives, key, () => ({ caller: ownString(lastOf(caller)), call, paths: new Set<string>(), time: overRanks(), nodes: new RankSet() }));
        if (!g.paths.has(caller)) g.paths.add(ownString(caller));
        const p = get(perGroup, key, () => ({ calls: 0, t: 0 }));
        p.calls += c.calls;
        p.t += c.incl;
      }
    }
    for (const [key, p] of perGroup) {
      const g = this.collectives.get(key)!;
      addRank(g.time, r.node, p.calls, p.t);
      g.nodes.add(r.node);
    }
    // A rank's sites come from all its threads (and a profile may list a line more than once): a row
    // counts each rank once.
    const seen = new Set<string>();
    for (const s of r.sites) {
      const key = `${s.call}\u0000${s.caller}\u0000${s.location}`;
      const row = get(this.sites, key, () => ({ call: ownString(s.call), caller: ownString(s.caller), location: ownString(s.location), calls: 0, usec: 0, ranks: 0 }));
      row.calls += s.calls;
      row.usec += s.usec;
      if (!seen.has(key)) row.ranks++;
      seen.add(key);
    }
  }
}

function get<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(typeof k === 'string' ? (ownString(k) as K) : k, (v = make()));
  return v;
}

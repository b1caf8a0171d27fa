/**
 * The one MPI share of a profile, as mpiP and TAU users read it, used by `hyprof report` (RANKS and
 * `--mpi`) and the viewer alike:
 * - over each rank's *program threads*: the threads that called MPI (the main thread, which called
 *   MPI_Init, and any other that made MPI calls). Threads that never called MPI - Open MPI's progress
 *   and service threads, which wait in poll / epoll_wait for the whole run, and OpenMP workers - are
 *   not in it: dividing by them is what made an MPI share fall with the number of idle threads;
 * - MPI_Init / MPI_Init_thread and MPI_Finalize apart: the share is the time in the other MPI calls
 *   over the run between them (as mpiP's MPI%, whose application time starts after MPI_Init and ends
 *   at MPI_Finalize), and Init and Finalize are each given as a share of the whole run.
 * Fed one thread at a time (its flat events), so a profile of many ranks keeps one record per rank.
 */

/** What one thread contributes (its flat events, exclusive times). */
export interface MpiShareThread {
  node: number;
  /** Inclusive time of the thread's root timer (.TAU application). */
  run: number;
  /** Exclusive time in MPI calls, Init and Finalize included. */
  mpi: number;
  init: number;
  finalize: number;
  mpiCalls: number;
}

export interface MpiShareRank {
  node: number;
  /** Program threads (threads that called MPI) and the other threads, not counted. */
  threads: number;
  otherThreads: number;
  run: number;
  mpi: number;
  init: number;
  finalize: number;
  /** Percent: MPI time other than Init and Finalize over the run between them; Init, Finalize of the run. */
  share: number;
  initShare: number;
  finalizeShare: number;
}

export interface MpiShare {
  /** Over all ranks (their times summed, as mpiP's aggregate MPI%), percent; the ranks with the least and the most. */
  mean: number;
  min: { node: number; share: number };
  max: { node: number; share: number };
  /** MPI_Init (and Init_thread) and MPI_Finalize over all ranks, percent of the run. */
  init: number;
  finalize: number;
  /** Threads of the ranks that never called MPI (runtime service threads, OpenMP workers): not counted. */
  otherThreads: number;
}

const ROOT = '.TAU application';
const INIT = new Set(['MPI_Init()', 'MPI_Init_thread()']);
const FINALIZE = 'MPI_Finalize()';

function isMpi(group: string): boolean {
  return group.split('|').some((g) => g.trim() === 'MPI');
}

/** A thread's tally, fed its events (flat ones count; event paths and sample nodes are skipped). */
export function threadTally(node: number): MpiShareThread & { event(name: string, group: string, calls: number, excl: number, incl: number): void } {
  const t = {
    node,
    run: 0,
    mpi: 0,
    init: 0,
    finalize: 0,
    mpiCalls: 0,
    event(name: string, group: string, calls: number, excl: number, incl: number): void {
      const n = name.trim();
      if (n.includes('=>')) return;
      if (n === ROOT) t.run = Math.max(t.run, incl);
      if (!isMpi(group)) return;
      t.mpi += excl;
      t.mpiCalls += calls;
      if (INIT.has(n)) t.init += excl;
      else if (n === FINALIZE) t.finalize += excl;
    },
  };
  return t;
}

/** Per rank, the threads summed; kept one record per rank. */
export class MpiShareAcc {
  private readonly ranks = new Map<number, Omit<MpiShareRank, 'share' | 'initShare' | 'finalizeShare'>>();

  add(t: MpiShareThread): void {
    let r = this.ranks.get(t.node);
    if (!r) this.ranks.set(t.node, (r = { node: t.node, threads: 0, otherThreads: 0, run: 0, mpi: 0, init: 0, finalize: 0 }));
    if (t.mpiCalls === 0) {
      r.otherThreads++;
      return;
    }
    r.threads++;
    r.run += t.run;
    r.mpi += t.mpi;
    r.init += t.init;
    r.finalize += t.finalize;
  }

  /** Every rank with program threads, by rank. */
  perRank(): MpiShareRank[] {
    return [...this.ranks.values()]
      .filter((r) => r.threads > 0)
      .sort((a, b) => a.node - b.node)
      .map((r) => {
        const between = r.run - r.init - r.finalize;
        const pct = (x: number, of: number) => (of > 0 ? (100 * x) / of : 0);
        return {
          ...r,
          share: pct(r.mpi - r.init - r.finalize, between),
          initShare: pct(r.init, r.run),
          finalizeShare: pct(r.finalize, r.run),
        };
      });
  }

  /** The figure over ranks; undefined when no rank called MPI. */
  result(): MpiShare | undefined {
    const rows = this.perRank();
    if (rows.length === 0) return undefined;
    const by = [...rows].sort((a, b) => a.share - b.share || a.node - b.node);
    const sum = (f: (r: MpiShareRank) => number) => rows.reduce((s, r) => s + f(r), 0);
    const run = sum((r) => r.run);
    const init = sum((r) => r.init);
    const finalize = sum((r) => r.finalize);
    const pct = (x: number, of: number) => (of > 0 ? (100 * x) / of : 0);
    return {
      mean: pct(sum((r) => r.mpi) - init - finalize, run - init - finalize),
      min: { node: by[0].node, share: by[0].share },
      max: { node: by[by.length - 1].node, share: by[by.length - 1].share },
      init: pct(init, run),
      finalize: pct(finalize, run),
      otherThreads: [...this.ranks.values()].reduce((s, r) => s + r.otherThreads, 0),
    };
  }
}

/** The one line every view prints. */
export function mpiShareLine(s: MpiShare): string {
  const pct = (x: number) => `${x.toFixed(1)}%`;
  const others = s.otherThreads > 0 ? `; ${s.otherThreads} thread${s.otherThreads === 1 ? '' : 's'} that never called MPI (runtime service threads, OpenMP workers) not counted` : '';
  return (
    `Time in MPI: ${pct(s.mean)} of the run between MPI_Init and MPI_Finalize of the threads that call MPI, over all ranks ` +
    `(least rank ${s.min.node}: ${pct(s.min.share)}, most rank ${s.max.node}: ${pct(s.max.share)}); ` +
    `apart: MPI_Init ${pct(s.init)}, MPI_Finalize ${pct(s.finalize)} of the run${others}`
  );
}

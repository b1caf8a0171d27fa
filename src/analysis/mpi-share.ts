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
 * Fed one thread at a time (its flat events), ranks together, so a profile of many ranks keeps a few sums.
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

type OpenShare = Omit<MpiShareRank, 'share' | 'initShare' | 'finalizeShare'>;

const pct = (x: number, of: number) => (of > 0 ? (100 * x) / of : 0);

/**
 * Over ranks, as streaming sums: the threads of one rank come together (a rank's files in order, a
 * merged file as written), so the rank being read is summed and closed when another rank starts, and
 * only the sums over ranks and the least and most rank are kept, whatever the number of ranks. A rank
 * whose threads come in two parts counts as two.
 */
export class MpiShareAcc {
  private open: OpenShare | undefined;
  private ranks = 0;
  private run = 0;
  private mpi = 0;
  private init = 0;
  private finalize = 0;
  private otherThreads = 0;
  private min: { node: number; share: number } | undefined;
  private max: { node: number; share: number } | undefined;

  add(t: MpiShareThread): void {
    if (this.open?.node !== t.node) this.close();
    const r = (this.open ??= { node: t.node, threads: 0, otherThreads: 0, run: 0, mpi: 0, init: 0, finalize: 0 });
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

  /** Ends the rank being read: its row when it has program threads (a rank that called MPI). */
  close(): MpiShareRank | undefined {
    const r = this.open;
    if (!r) return undefined;
    this.open = undefined;
    this.otherThreads += r.otherThreads;
    if (r.threads === 0) return undefined;
    const row = { ...r, share: pct(r.mpi - r.init - r.finalize, r.run - r.init - r.finalize), initShare: pct(r.init, r.run), finalizeShare: pct(r.finalize, r.run) };
    this.ranks++;
    this.run += r.run;
    this.mpi += r.mpi;
    this.init += r.init;
    this.finalize += r.finalize;
    // Ties: the lowest rank for the least, the highest for the most (as mpi-fold.ts).
    if (!this.min || row.share < this.min.share || (row.share === this.min.share && row.node < this.min.node)) this.min = { node: r.node, share: row.share };
    if (!this.max || row.share > this.max.share || (row.share === this.max.share && row.node > this.max.node)) this.max = { node: r.node, share: row.share };
    return row;
  }

  /** The time of the program threads summed over ranks, Init and Finalize left out: the run between them and MPI in it. */
  between(): { run: number; mpi: number } {
    this.close();
    return { run: this.run - this.init - this.finalize, mpi: this.mpi - this.init - this.finalize };
  }

  /** The figure over ranks; undefined when no rank called MPI. */
  result(): MpiShare | undefined {
    this.close();
    if (this.ranks === 0 || !this.min || !this.max) return undefined;
    const b = this.between();
    return {
      mean: pct(b.mpi, b.run),
      min: this.min,
      max: this.max,
      init: pct(this.init, this.run),
      finalize: pct(this.finalize, this.run),
      otherThreads: this.otherThreads,
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

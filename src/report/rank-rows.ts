/**
 * The per-rank rows of `hyprof report --mpi` in bounded memory: every rank's row while a job has at
 * most RANK_ROWS_KEPT ranks that call MPI, and beyond that the RANK_ROWS_KEPT with the largest MPI
 * share (the ranks a reader looks for), with the distribution of each figure over all of them
 * (analysis/quartiles.ts), so a job of 100,000 ranks keeps a thousand rows and a few sketches.
 */
import { Distribution, type Quartiles } from '../analysis/quartiles.js';

/** Rows kept: every rank of a job up to this size; the ranks with the largest MPI share beyond it. */
export const RANK_ROWS_KEPT = 1024;

export interface MpiRankRow {
  node: number;
  total: number;
  mpi: number;
  /** The rank's MPI share (analysis/mpi-share.ts): MPI other than Init / Finalize over the run between them. */
  share: number;
  /** MPI_Init and MPI_Finalize, percent of the run. */
  initShare: number;
  finalizeShare: number;
  calls: number;
  sent: number;
  received: number;
  collective: number;
}

/** Over the ranks that call MPI: how many, and the distribution of their figures. */
export interface RankDistributions {
  count: number;
  share: Quartiles;
  total: Quartiles;
  mpi: Quartiles;
}

const byShare = (a: MpiRankRow, b: MpiRankRow) => b.share - a.share || a.node - b.node;

export class RankRows {
  private rows: MpiRankRow[] = [];
  private count = 0;
  private readonly share = new Distribution();
  private readonly total = new Distribution();
  private readonly mpi = new Distribution();

  add(row: MpiRankRow): void {
    this.count++;
    this.share.add(row.share, row.node);
    this.total.add(row.total, row.node);
    this.mpi.add(row.mpi, row.node);
    this.rows.push(row);
    // Cut back to the largest shares once twice the rows are held: each row is sorted a few times at most.
    if (this.rows.length >= 2 * RANK_ROWS_KEPT) this.rows = this.rows.sort(byShare).slice(0, RANK_ROWS_KEPT);
  }

  /** Every rank by rank while all are kept; else the kept ones, largest MPI share first. */
  result(): { rows: MpiRankRow[]; all: boolean; over?: RankDistributions } {
    const all = this.count <= RANK_ROWS_KEPT;
    const rows = all ? [...this.rows].sort((a, b) => a.node - b.node) : [...this.rows].sort(byShare).slice(0, RANK_ROWS_KEPT);
    const share = this.share.quartiles();
    const total = this.total.quartiles();
    const mpi = this.mpi.quartiles();
    return { rows, all, ...(share && total && mpi ? { over: { count: this.count, share, total, mpi } } : {}) };
  }
}

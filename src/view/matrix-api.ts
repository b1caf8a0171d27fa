/**
 * The viewer's communication matrix (/api/matrix): bytes and messages per sender × receiver rank,
 * from the ranks' "Message size sent to node <N>" events (TAU_COMM_MATRIX / HYPROF_COMM_MATRIX),
 * the same matrix `hyprof report --mpi --matrix` prints (src/report/comm-matrix.ts). Up to
 * MAX_BLOCKS ranks a cell is a pair of ranks; beyond, ranks are grouped into equal blocks of
 * consecutive ranks and a cell sums a block pair, so that the answer and the page stay bounded
 * whatever the number of ranks.
 */
import type { TauProfile } from '../profile/tau-model.js';
import { addMatrixEntry, commMatrix, type MatrixRow } from '../report/comm-matrix.js';

export const MAX_BLOCKS = 64;

export interface MatrixAnswer {
  /** Why there is no matrix, and how to make one (no cells then). */
  none?: string;
  /** Ranks of the profile, and how many consecutive ranks a row / column holds. */
  ranks: number;
  block: number;
  /** A row's / column's label: `3`, or `64–127` for a block. */
  labels: string[];
  /** [sender row, receiver column, messages, bytes], only where something was sent. */
  cells: Array<[number, number, number, number]>;
  totalMessages: number;
  totalBytes: number;
  /** Per sender rank: messages beyond the layer's fixed row (counted, not placed). */
  beyond: Array<{ from: number; count: number; bytes: number }>;
}

const HOW = 'no communication matrix in this profile: the MPI layer records one when the run sets HYPROF_COMM_MATRIX=1 (or TAU_COMM_MATRIX=1)';

export function matrixAnswer(profile: TauProfile): MatrixAnswer {
  const rows = new Map<number, MatrixRow>();
  for (const t of profile.threads[0] ?? []) {
    let row = rows.get(t.node);
    if (!row) rows.set(t.node, (row = {}));
    for (const u of t.userEvents) addMatrixEntry(row, u);
  }
  const m = commMatrix(rows);
  if (!m) return { none: HOW, ranks: rows.size, block: 1, labels: [], cells: [], totalMessages: 0, totalBytes: 0, beyond: [] };
  // Rows and columns by rank number (ranks are 0..n-1 in an MPI run; a gap would only widen a block).
  const n = Math.max(...m.ranks, ...m.pairs.map((p) => p.to)) + 1;
  const block = Math.ceil(n / MAX_BLOCKS);
  const size = Math.ceil(n / block);
  const labels = Array.from({ length: size }, (_, i) => (block === 1 ? String(i) : `${i * block}–${Math.min(n, (i + 1) * block) - 1}`));
  const sums = new Map<number, [number, number, number, number]>();
  for (const p of m.pairs) {
    const r = Math.floor(p.from / block);
    const c = Math.floor(p.to / block);
    const k = r * size + c;
    const cell = sums.get(k) ?? [r, c, 0, 0];
    cell[2] += p.count;
    cell[3] += p.bytes;
    sums.set(k, cell);
  }
  return {
    ranks: n,
    block,
    labels,
    cells: [...sums.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    totalMessages: m.totalMessages,
    totalBytes: m.totalBytes,
    beyond: m.beyond.map((b) => ({ from: b.from, count: b.count, bytes: b.bytes })),
  };
}

/**
 * The communication matrix of a profile (TAU_COMM_MATRIX): bytes and messages per sender × receiver
 * rank, from each rank's "Message size sent to node <N>" events (what ParaProf's communication matrix
 * window reads), summed over the rank's threads. Built from a rank scan made with `matrix: true`.
 */
import type { MatrixCell, RankScan } from './rank-scan.js';

export interface MatrixPair extends MatrixCell {
  from: number;
  to: number;
}

export interface CommMatrix {
  /** The ranks of the profile, in order (the matrix's rows and columns). */
  ranks: number[];
  /** Every pair that exchanged something, by sender then receiver. */
  pairs: MatrixPair[];
  totalBytes: number;
  totalMessages: number;
  /** Per sender: messages to destinations beyond the layer's fixed row (counted, not placed). */
  beyond: MatrixPair[];
}

/** null when no rank recorded a matrix (the run was made without HYPROF_COMM_MATRIX / TAU_COMM_MATRIX). */
export function commMatrix(scan: RankScan): CommMatrix | null {
  const ranks = [...scan.ranks.keys()].sort((a, b) => a - b);
  const pairs: MatrixPair[] = [];
  const beyond: MatrixPair[] = [];
  let totalBytes = 0;
  let totalMessages = 0;
  for (const from of ranks) {
    const r = scan.ranks.get(from)!;
    for (const [to, c] of [...(r.sentTo ?? new Map<number, MatrixCell>())].sort((a, b) => a[0] - b[0])) {
      const cell = { from, to, count: c.count, bytes: Math.round(c.bytes) };
      pairs.push(cell);
      totalBytes += cell.bytes;
      totalMessages += cell.count;
    }
    if (r.sentBeyond) beyond.push({ from, to: -1, count: r.sentBeyond.count, bytes: Math.round(r.sentBeyond.bytes) });
  }
  if (pairs.length === 0 && beyond.length === 0) return null;
  return { ranks, pairs, totalBytes, totalMessages, beyond };
}

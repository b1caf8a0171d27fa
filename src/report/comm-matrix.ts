/**
 * The communication matrix of a profile (TAU_COMM_MATRIX): bytes and messages per sender × receiver
 * rank, from each rank's "Message size sent to node <N>" events (what ParaProf's communication matrix
 * window reads), summed over the rank's threads: from a rank scan made with `matrix: true` (report)
 * or the threads of a profile in memory (the viewer).
 */
import type { TauUserEvent } from '../profile/tau-model.js';

/** Messages and bytes of one sender → receiver pair. */
export interface MatrixCell {
  count: number;
  bytes: number;
}

/** One sender's row: per destination rank, and what went beyond the layer's fixed row. */
export interface MatrixRow {
  sentTo?: Map<number, MatrixCell>;
  /** Messages to destinations beyond the layer's fixed row ("Message size sent beyond the
   * communication matrix row"): counted, not lost. */
  sentBeyond?: MatrixCell;
}

/** TAU's name of a matrix entry: "Message size sent to node <N>" (ParaProf's communication matrix). */
const SENT_TO = /^Message size sent to node (\d+)$/;
export const SENT_BEYOND = 'Message size sent beyond the communication matrix row';

/** Adds user event `u` of a sender's thread to its row when it is a matrix entry. */
/** True for the user events a communication matrix is made of. */
export function isMatrixEntry(name: string): boolean {
  return name === SENT_BEYOND || SENT_TO.test(name);
}

export function addMatrixEntry(row: MatrixRow, u: TauUserEvent): void {
  const m = SENT_TO.exec(u.name);
  let cell: MatrixCell | undefined;
  if (m) {
    const to = Number(m[1]);
    row.sentTo ??= new Map();
    cell = row.sentTo.get(to);
    if (!cell) row.sentTo.set(to, (cell = { count: 0, bytes: 0 }));
  } else if (u.name === SENT_BEYOND) {
    cell = row.sentBeyond ??= { count: 0, bytes: 0 };
  }
  if (!cell) return;
  cell.count += u.count;
  cell.bytes += u.mean * u.count;
}

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

/** The matrix of the ranks' rows (a rank scan's, or the viewer's profile's); null when no rank
 * recorded one (the run was made without HYPROF_COMM_MATRIX / TAU_COMM_MATRIX). */
export function commMatrix(rows: Map<number, MatrixRow>): CommMatrix | null {
  const ranks = [...rows.keys()].sort((a, b) => a - b);
  const pairs: MatrixPair[] = [];
  const beyond: MatrixPair[] = [];
  let totalBytes = 0;
  let totalMessages = 0;
  for (const from of ranks) {
    const r = rows.get(from)!;
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

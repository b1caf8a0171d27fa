/**
 * Run as `node --expose-gc scan-heap.js DIR [--mpi]`: scans the profile DIR as `hyprof report
 * --mpi` does (rank-scan.ts, no mean thread) and prints, as JSON, the ranks and the heap the scan's
 * result keeps after a full collection (the memory a report holds over ranks, without the garbage
 * the collector has not reclaimed yet, which RSS would include), and the same without the per-rank
 * rows of --mpi (bounded on their own). For the scale test.
 */
import { chooseMetric, listProfileDir } from '../../src/profile/profile-dir.js';
import { scanRanks } from '../../src/report/rank-scan.js';

const gcOnce = (globalThis as { gc?: () => void }).gc;
if (!gcOnce) throw new Error('run with node --expose-gc');
// Several full collections: one leaves some of what the scan dropped (its figure varied by 100 KB).
const gc = () => {
  for (let i = 0; i < 5; i++) gcOnce();
};
const set = chooseMetric(listProfileDir(process.argv[2]));
gc();
const before = process.memoryUsage().heapUsed;
const scan = scanRanks(set, undefined, undefined, { mean: false, spreads: true });
gc();
const kept = process.memoryUsage().heapUsed - before;
// The per-rank rows of --mpi (rank-rows.ts) grow until their bound (a thousand rows) and then stay:
// what the rest keeps is given apart.
const ranks = scan.ranks.size;
const threads = scan.threads;
(scan as { rankRows: unknown }).rankRows = null;
gc();
const withoutRows = process.memoryUsage().heapUsed - before;
console.log(JSON.stringify({ ranks, threads, kept, withoutRows }));

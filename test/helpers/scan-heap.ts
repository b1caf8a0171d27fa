/**
 * Run as `node --expose-gc scan-heap.js DIR [--mpi]`: scans the profile DIR as `hyprof report
 * --mpi` does (rank-scan.ts, no mean thread) and prints, as JSON, the ranks and the heap the scan's
 * result keeps after a full collection (the memory a report holds over ranks, without the garbage
 * the collector has not reclaimed yet, which RSS would include). For the scale test.
 */
import { chooseMetric, listProfileDir } from '../../src/profile/profile-dir.js';
import { scanRanks } from '../../src/report/rank-scan.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const set = chooseMetric(listProfileDir(process.argv[2]));
gc();
const before = process.memoryUsage().heapUsed;
const scan = scanRanks(set, undefined, undefined, { mean: false, spreads: true });
gc();
const kept = process.memoryUsage().heapUsed - before;
console.log(JSON.stringify({ ranks: scan.ranks.size, threads: scan.threads, kept }));

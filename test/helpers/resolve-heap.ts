/**
 * Run as `node --expose-gc resolve-heap.js RAW_DIR OUT_DIR`: resolves the raw files of RAW_DIR into
 * OUT_DIR as `hyprof resolve` does, in the main thread (no workers), and prints, as JSON, the heap in
 * use after a full collection at the moment every file is assembled and the profile is about to be
 * committed: what the resolve keeps over the processes (against the heap before the resolve). For
 * the scale test.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveRawFiles } from '../../src/resolve/resolve.js';

const gcOnce = (globalThis as { gc?: () => void }).gc;
if (!gcOnce) throw new Error('run with node --expose-gc');
// Several full collections: one leaves some of what was dropped (the reading varied by a few hundred KB).
const gc = () => {
  for (let i = 0; i < 5; i++) gcOnce();
};
const [raw, out] = process.argv.slice(2);
const files = readdirSync(raw)
  .filter((f) => f.endsWith('.raw'))
  .map((f) => join(raw, f));
process.env.HYPROF_RESOLVE_WORKERS = '0';
gc();
const before = process.memoryUsage().heapUsed;
let kept = -1;
const r = await resolveRawFiles(files, {
  outDir: out,
  rawDirectory: true,
  onProgress: (_done, _total, what) => {
    if (!what.startsWith('writing ')) return;
    gc();
    kept = process.memoryUsage().heapUsed - before;
  },
});
console.log(JSON.stringify({ processes: r.processes, threads: r.threads, kept }));

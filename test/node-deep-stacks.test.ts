/**
 * Complete stacks of a deep-recursion JavaScript program (test/native/node_formatter.mjs: a formatter-like
 * printer of random syntax trees about 120 levels deep, through getters and methods, so that nearly
 * every sample has a stack of its own) under `hyprof run`: no sample dropped as `table_full` (the
 * sample table grows with the distinct stacks, native/sample/table.c), and the stacks file holds every
 * stack whole (no `(deeper stacks merged)` frame: its bound is sized far beyond an ordinary run,
 * src/resolve/assemble.ts). With the former bounds (16384 records, 50,000 nodes) such a run lost
 * samples and folded stacks.
 */
import test from 'ava';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { MERGED_FRAME, readStacksFiles } from '../src/profile/stacks-file.js';
import { hyprof, testNativeDir, tmpDir } from './helpers/native.js';

test('a deep-recursion program: no table_full drop, every stack whole in the stacks file', async (t) => {
  const out = join(tmpDir('node-deep'), 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, join(testNativeDir, 'node_formatter.mjs'), '5000'], {
    env: { NODE_OPTIONS: undefined, HYPROF_NODE_THREADS: undefined },
    timeoutMs: 300_000,
  });
  t.is(r.code, 0, r.stderr);
  t.notRegex(r.stderr, /merged into/);
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  const meta = new Map(main.metadata);
  t.is(meta.get('hyprof dropped table_full'), '0');
  const [stacks] = readStacksFiles(out);
  t.truthy(stacks, `no stacks file in ${out}`);
  const thread = stacks.threads.find((x) => x.thread === 0)!;
  const samples = thread.samples.reduce((a, x) => a + x, 0);
  t.true(samples > 1000, `${samples} samples`);
  t.is(thread.merged, 0);
  t.false(thread.frame.some((f) => stacks.frames[f][0] === MERGED_FRAME), 'a merged frame in the stack tree');
  // deep: some stack goes through more than 100 levels of the printer
  const depth = (i: number): number => (thread.parent[i] < 0 ? 1 : 1 + depth(thread.parent[i]));
  const printers = (i: number): number => {
    let n = 0;
    for (let at = i; at >= 0; at = thread.parent[at]) if (stacks.frames[thread.frame[at]][0] === 'print') n++;
    return n;
  };
  const deepest = thread.parent.reduce((best, _, i) => (printers(i) > printers(best) ? i : best), 0);
  t.true(printers(deepest) > 50, `deepest stack: ${depth(deepest)} frames, ${printers(deepest)} in print`);
  t.log(`${samples} samples, ${thread.parent.length} stack nodes`);
});

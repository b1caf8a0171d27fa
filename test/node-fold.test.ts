/**
 * Folding a Node async region by its instances (HYPROF_FOLD, docs/fold.md, "Reach"): a real Node
 * program (test/native/node_fold.mjs) under `hyprof run`, whose async region `request` spins in
 * parse() for its first 30 %, awaits a turn of the event loop, then spins in render() to its end.
 * Each instance is recorded whole at its settlement, and the samples of its slices (the code before
 * the await and the continuation after it) fold at their offset from the instance's start: parse()
 * leads before 25 %, render() after 35 %, and idle() (outside every region) is never folded.
 * 400 instances of 5 ms (2.2 s of CPU). As in test/fold.test.ts the spins count CPU time and the fold
 * is taken over CPU_TIME (an instance's CPU_TIME is its thread's over the instance's life, here the
 * region's own code and the event loop's turn at the await): on a loaded machine preemption would
 * move the wall-clock truth, not the fold.
 */
import test from 'ava';
import { join } from 'node:path';
import { hyprof, repoRoot, testNativeDir, tmpDir } from './helpers/native.js';
import { checkFoldTruth } from './helpers/fold-truth.js';
import type { FoldReport } from '../src/report/fold.js';

const N = 400;

test('a Node async region folds by its instances: parse() in 0-30 %, render() in 30-100 %, across the await', async (t) => {
  const dir = join(tmpDir('node-fold'), 'prof');
  const r = await hyprof(['run', '--dir', dir, '--', process.execPath, join(testNativeDir, 'node_fold.mjs'), String(N), '5', 'cpu'], {
    env: { HYPROF_MODULE: join(repoRoot, 'dist', 'src', 'index.js'), HYPROF_FOLD: 'request', HYPROF_METRICS: 'TIME:CPU_TIME' },
    timeoutMs: 240_000,
  });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, new RegExp(`^done ${N} true$`, 'm'));
  const rep = await hyprof(['report', dir, '--fold', 'request', '--time', 'CPU_TIME', '--json']);
  t.is(rep.code, 0, rep.stderr);
  const [f] = JSON.parse(rep.stdout) as FoldReport[];
  // one instance per settled region, not one per slice
  t.is(f.instances, N);
  t.is(f.events, 1);
  t.deepEqual([f.lost.instances, f.lost.samples, f.lost.unplaced], [0, 0, 0]);
  const all = f.classes.flatMap((c) => c.bins.flatMap((b) => b.functions.map((x) => x.name)));
  t.false(all.includes('idle'), 'the pause outside the region was folded in a class');
  t.is(f.axis, 'CPU_TIME');
  t.is(f.offAxis, 0, 'every sample of a slice knows its CPU time since its instance\'s start');
  const main = [...f.classes].sort((a, b) => b.instances - a.instances)[0];
  t.true(main.instances >= N * 0.9, `${main.instances} instances in the main class: ${f.classRule}`);
  t.true(main.absolute, 'CPU lengths of the instances are similar');
  t.true(main.samples >= 200, `${main.samples} samples`);
  checkFoldTruth(t, main, 'parse', 'render', 'idle');
});

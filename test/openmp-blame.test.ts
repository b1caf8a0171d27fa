/**
 * Sample-based blame (seed 000) and overhead classes (seed 001) on programs with known answers:
 * an imbalanced loop, a serial section between parallel regions, a contended critical section.
 */
import test from 'ava';
import { analysisOf, buildOmp, runOmp } from './openmp-helpers.js';

const SRC = 'omp_constructs.c';
const clangTest = test.serial;

clangTest('imbalanced loop: imbalance class, loop-imbalance diagnosis, idleness blamed on the busy thread', async (t) => {
  const a = await analysisOf(await runOmp(buildOmp('omp_constructs', SRC), ['imbalance']));
  t.is(a.maxThreads, 2);
  const region = a.regions.find((r) => /omp_constructs\.c:\d+/.test(r.location));
  t.truthy(region);
  // Thread 0 (30 ms of CPU) waits for thread 1 (270 ms) at the loop's barrier: ~240 ms of imbalance
  // on an idle machine, more or less on a loaded one.
  t.true(region!.imbalance > 10e6, `imbalance ${region!.imbalance}`);
  t.true(region!.sync < region!.imbalance);
  const diag = a.diagnoses.find((d) => d.kind === 'loop-imbalance');
  t.truthy(diag);
  t.regex(diag!.location, /omp_constructs\.c:\d+/);
  t.regex(diag!.message, /slowest thread \(1\)/);
  // Idleness is blamed on the work in the loop (thread 1 works while thread 0 idles).
  const loopCtx = a.contexts.find((c) => c.path.includes('OpenMP_Work_Loop'));
  t.truthy(loopCtx);
  t.true(loopCtx!.threadIdleness > 0, 'idleness blamed on the loop');
  // Idle samples themselves are not where blame lands: contexts that only waited carry none.
  for (const c of a.contexts) if (c.work === 0) t.is(c.threadIdleness, 0);
});

clangTest('serial section between parallel regions: relative idleness about (T-1)/T, diagnosed with its line', async (t) => {
  const a = await analysisOf(await runOmp(buildOmp('omp_constructs', SRC), ['serial']));
  const serial = a.contexts.find((c) => c.serial && c.path === '.TAU application => phase_main');
  t.truthy(serial, 'the serial code between the regions runs in phase_main');
  // T = 2: one thread works, one idles -> 50%.
  t.true(serial!.relIdleness > 40 && serial!.relIdleness < 60, `relative idleness ${serial!.relIdleness}`);
  t.true(serial!.absIdleness > 20, `absolute idleness ${serial!.absIdleness}`);
  // Counted in samples, the same (the diagnosis decides on these).
  const { relIdleness: rel, absIdleness: abs, work } = serial!.sampled;
  t.true(rel > 40 && rel < 60 && abs > 20, `in samples: relative ${rel}, absolute ${abs}`);
  t.true(work >= 50, `${work} samples of serial work`);
  const diag = a.diagnoses.find((d) => d.kind === 'serial-section');
  t.truthy(diag);
  t.regex(diag!.location, /omp_constructs\.c \(spin\)$/);
  t.regex(diag!.message, /hottest line \S*omp_constructs\.c:\d+ \(spin\)/);
  // The serial time is not charged to the regions as imbalance (libomp reports the worker's wait for
  // the next region as the end of the last one's barrier, after the region's end).
  for (const r of a.regions) t.true(r.imbalance < 0.6 * serial!.work, `${r.location} imbalance ${r.imbalance} vs serial ${serial!.work}`);
});

clangTest('contended critical section: waiting blamed on the release site, synchronization class', async (t) => {
  const a = await analysisOf(await runOmp(buildOmp('omp_constructs', SRC), ['critical'], { HYPROF_OPENMP: 'full' }));
  const crit = a.contexts.find((c) => /=> OpenMP_Critical [^=]*$/.test(c.path));
  t.truthy(crit, 'a context for the critical body');
  t.true(crit!.lockBlame > 0, 'lock waiting blamed on the critical body (where the lock is released)');
  t.true(a.totals.lockBlame > 50e6, `lock blame ${a.totals.lockBlame}`);
  const waitCtx = a.contexts.find((c) => /=> OpenMP_Mutex_Wait_Critical [^=]*$/.test(c.path));
  t.truthy(waitCtx);
  t.true(waitCtx!.lockWait > 0, 'the waiting itself is sampled in the wait context');
  t.is(waitCtx!.lockBlame, 0);
  t.true(a.lockReleases.length >= 1);
  t.regex(a.lockReleases[0].location, /omp_constructs\.c:\d+/);
  const region = a.regions[0];
  t.true(region.sync > 50e6, `synchronization ${region.sync}`);
  // Per thread enter (wait) and body times of the critical construct.
  const wait = a.constructs.find((c) => c.kind === 'OpenMP_Mutex_Wait_Critical');
  const body = a.constructs.find((c) => c.kind === 'OpenMP_Critical');
  t.is(wait!.perThread.length, 2);
  t.deepEqual(body!.perThread.map((p) => p.calls), [10, 10]);
  t.true(body!.perThread.every((p) => p.incl > 80e6));
  t.truthy(a.diagnoses.find((d) => d.kind === 'lock-contention'));
});

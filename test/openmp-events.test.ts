/**
 * OMPT events become probes: constructs named after their source line as TAU names them, worker
 * threads' events and samples under the master's phase (nested parallelism included), the tool's
 * levels, and gcc-built programs through LLVM's libomp in place of libgomp.
 */
import test from 'ava';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { planOpenmpRuntime } from '../src/analysis/openmp-runtime.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { tmpDir } from './helpers/native.js';
import { analysisOf, buildOmp, resolveOmp, runOmp } from './openmp-helpers.js';

const SRC = 'omp_constructs.c';
const clangTest = test.serial;

function names(profile: { threads: Array<Array<{ thread: number; events: Array<{ name: string; calls: number; incl: number }> }>> }, thread: number) {
  const t = profile.threads[0].find((x) => x.thread === thread);
  if (!t) throw new Error(`no thread ${thread}`);
  return t.events;
}

clangTest('constructs are named by source line; worker events and samples sit under the master phase', async (t) => {
  const exe = buildOmp('omp_constructs', SRC);
  const r = await runOmp(exe, ['imbalance']);
  const { profile } = await resolveOmp(r);
  const master = names(profile, 0);
  const worker = names(profile, 1);
  const region = master.find((e) => /^OpenMP_Parallel_Region main \[\{.*omp_constructs\.c\} \{\d+, 0\}\]$/.test(e.name));
  t.truthy(region, 'parallel region named after main and its line');
  const loop = master.find((e) => /^OpenMP_Work_Loop .* \[\{.*omp_constructs\.c\} \{\d+, 0\}\]$/.test(e.name.trimEnd()));
  t.truthy(loop, 'loop construct named');
  t.true(loop!.name.endsWith(']  '), 'work constructs keep TAU\'s two trailing spaces');
  // The worker's implicit task runs under the master's phase: same path, on thread 1.
  const workerPath = worker.find((e) => e.name === `.TAU application => phase_main => ${region!.name}`);
  t.truthy(workerPath, 'worker region under phase_main');
  t.is(workerPath!.calls, 1);
  const workerLoop = worker.find((e) => e.name.startsWith(`.TAU application => phase_main => ${region!.name} => OpenMP_Work_Loop`));
  t.truthy(workerLoop, 'worker loop under the master phase');
  // Its loop share is the bigger one (iterations cost grows with the thread number).
  t.true(workerLoop!.incl > 1.5 * master.find((e) => e.name === workerLoop!.name)!.incl, 'worker 270 ms, master 30 ms of CPU');
  // Worker samples: a [CONTEXT] node under the phase path.
  const ctx = worker.find((e) => e.name.startsWith('.TAU application => phase_main => ') && e.name.includes('=> [CONTEXT] '));
  t.truthy(ctx, 'worker samples attributed under the master phase');
});

clangTest('nested parallel regions nest as contexts on the inner team threads', async (t) => {
  const exe = buildOmp('omp_constructs', SRC);
  const r = await runOmp(exe, ['nested']);
  const { profile } = await resolveOmp(r);
  const threads = profile.threads[0];
  t.true(threads.length >= 3, 'inner teams bring threads of their own');
  const nestedRe = /^\.TAU application => phase_main => OpenMP_Parallel_Region [^=]* => OpenMP_Parallel_Region [^=]*$/;
  for (const th of threads) {
    t.truthy(th.events.find((e) => nestedRe.test(e.name)), `thread ${th.thread} runs the inner region inside the outer one`);
  }
  // Two teams of two at once: four threads in use, the baseline of thread idleness.
  t.is((await analysisOf(r)).maxThreads, 4);
});

clangTest('HYPROF_OPENMP=off records no OpenMP events; basic records regions but no mutexes', async (t) => {
  const exe = buildOmp('omp_constructs', SRC);
  const off = await runOmp(exe, ['critical'], { HYPROF_OPENMP: 'off' });
  const rawOff = readRawFile(off.raws[0]);
  t.false(rawOff.events.some((e) => e.name.startsWith('OpenMP_')));
  const { openmp } = await resolveOmp(off);
  t.is(openmp, null, 'no openmp.json without the tool');
  const basic = await runOmp(exe, ['critical'], { TAU_OMPT_SUPPORT_LEVEL: 'basic' });
  const rawBasic = readRawFile(basic.raws[0]);
  t.true(rawBasic.events.some((e) => e.name.startsWith('OpenMP_Parallel_Region')));
  t.false(rawBasic.events.some((e) => e.name.startsWith('OpenMP_Critical') || e.name.startsWith('OpenMP_Mutex')));
  // The runtime itself told not to start any tool: said at resolve time.
  const disabled = await runOmp(exe, ['critical'], { OMP_TOOL: 'disabled' });
  const dres = await resolveOmp(disabled);
  t.is(dres.openmp, null);
  t.regex(dres.stderr, /the OpenMP runtime .*libomp.* did not start the OpenMP tool \(OMP_TOOL=disabled/);
  const bad = await runOmp(exe, ['critical'], { HYPROF_OPENMP: 'sometimes' });
  t.regex(bad.stderr, /HYPROF_OPENMP=sometimes is not one of off, basic, full; using basic/);
});

const gccTest = test.serial;
gccTest('gcc-built programs: libgomp gives no events (said so); with libomp in its place they are measured', async (t) => {
  const exe = buildOmp('omp_constructs', SRC, 'gcc');
  const plain = await runOmp(exe, ['imbalance']);
  const res = await resolveOmp(plain);
  t.is(res.openmp, null);
  t.regex(res.stderr, /GNU libgomp, which has no OpenMP tools interface/);

  const work = tmpDir('omp-gomp');
  const plan = planOpenmpRuntime(exe, work);
  t.truthy(plan.env.LD_LIBRARY_PATH);
  t.true(existsSync(join(work, 'openmp-runtime', 'libgomp.so.1')));
  t.regex(plan.note ?? '', /GNU libgomp replaced by LLVM libomp/);
  const sub = await runOmp(exe, ['imbalance'], plan.env);
  const out = await resolveOmp(sub);
  t.truthy(out.openmp);
  t.regex(out.openmp!.processes[0].substituted ?? '', /replaced by LLVM libomp/);
  const worker = names(out.profile, 1);
  t.truthy(worker.find((e) => /^\.TAU application => phase_main => OpenMP_Parallel_Region .*omp_constructs\.c/.test(e.name)));
  const meta = out.profile.threads[0][0].metadata as unknown;
  t.truthy(JSON.stringify(meta).includes('OpenMP Runtime Substituted'));
  // A program without OpenMP needs nothing.
  t.deepEqual(planOpenmpRuntime('/bin/true', work).env, {});
  t.deepEqual(planOpenmpRuntime(exe, work, { ...process.env, HYPROF_OPENMP: 'off' }).env, {});
  t.regex(planOpenmpRuntime(exe, work, process.env, null).note ?? '', /no OpenMP runtime with the tools interface is active/);
});

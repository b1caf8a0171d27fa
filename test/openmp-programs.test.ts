/**
 * OpenMP programs of the kinds real codes are made of (test/native/omp_kernels.c), measured as a user
 * measures them (`hyprof run`, 2 threads), built with clang and with gcc (run on LLVM's libomp in
 * libgomp's place): recursive fib tasks with taskwait, a single-producer task loop, a generator
 * task, many short parallel regions, a team on one CPU, a program that exits before its first
 * construct. What must hold: no task or wait is charged more time than its thread ran; the runtime's
 * frames never appear unnamed in call paths; no event name carries an address; the diagnoses name
 * constructs that exist.
 */
import test from 'ava';
import { join } from 'node:path';
import { readOpenmpFile, type OpenmpFile } from '../src/analysis/openmp.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { isCallpath, type TauProfile } from '../src/profile/tau-model.js';
import { hyprof, tmpDir } from './helpers/native.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { buildOmp } from './openmp-helpers.js';

const COMPILERS = ['clang', 'gcc'] as const;
type Cc = (typeof COMPILERS)[number];

interface Measured {
  dir: string;
  stderr: string;
  profile: TauProfile;
  openmp: OpenmpFile;
}

async function measure(cc: Cc, args: string[], env: Record<string, string> = {}, runArgs: string[] = []): Promise<Measured> {
  const exe = buildOmp('omp_kernels', 'omp_kernels.c', cc);
  const dir = join(tmpDir(`omp-prog-${cc}`), 'prof');
  const r = await hyprof(['run', ...runArgs, '--dir', dir, '--', exe, ...args], {
    env: { OMP_NUM_THREADS: '2', HYPROF_PERIOD_US: '1000', ...env },
  });
  if (r.code !== 0) throw new Error(`hyprof run ${args.join(' ')} (${cc}) exited ${r.code}: ${r.stderr}`);
  return { dir, stderr: r.stderr, profile: readTauProfileDir(dir), openmp: readOpenmpFile(dir) };
}

/** Flat events of one thread (no paths, no sample nodes). */
function flat(p: TauProfile, thread: number) {
  const t = p.threads[0].find((x) => x.thread === thread);
  if (!t) throw new Error(`no thread ${thread}`);
  return t.events.filter((e) => !isCallpath(e) && !e.name.startsWith('['));
}

/** Every thread: no OpenMP event is charged more than the thread ran, tasks and waits together neither. */
function assertTaskTimeOnce(t: import('ava').ExecutionContext, p: TauProfile): void {
  for (const th of p.threads[0]) {
    const events = flat(p, th.thread);
    const root = events.find((e) => e.name === '.TAU application');
    t.truthy(root, `thread ${th.thread} has its root`);
    const limit = root!.incl * 1.001 + 1;
    for (const e of events) t.true(e.incl <= limit, `thread ${th.thread}: ${e.name} ${e.incl} us > run time ${root!.incl} us`);
    const tasksAndWaits = events
      .filter((e) => /^OpenMP_(Task|Sync_Region_Taskwait) /.test(e.name))
      .reduce((n, e) => n + e.excl, 0);
    t.true(tasksAndWaits <= limit, `thread ${th.thread}: tasks and taskwaits ${tasksAndWaits} us > ${root!.incl} us`);
  }
}

/** No event name carries an address; no runtime frame in a sample path is left unnamed. */
function assertNamed(t: import('ava').ExecutionContext, p: TauProfile): void {
  for (const th of p.threads[0]) {
    for (const e of th.events) {
      t.notRegex(e.name, /ADDR 0x|@0x|\[\{\} \{0, 0\}\]/, `thread ${th.thread}: ${e.name}`);
      t.notRegex(e.name, /UNRESOLVED [^ ]*libomp/, `thread ${th.thread}: ${e.name}`);
      // hyprof's own code is never a sample of the program (in-tool)
      t.notRegex(e.name, /\[SAMPLE\].*\/native\/(ompt|core|sample)\//, `thread ${th.thread}: ${e.name}`);
    }
  }
}

for (const cc of COMPILERS) {
  test.serial(`${cc}: recursive fib tasks at level full: task and wait time counted once, runtime frames named`, async (t) => {
    const m = await measure(cc, ['fib', '18'], { HYPROF_OPENMP: 'full' });
    assertTaskTimeOnce(t, m.profile);
    assertNamed(t, m.profile);
    const a = m.openmp.processes[0];
    t.is(a.tasks.length, 2, 'fib has two task constructs');
    t.is(a.tasks.reduce((n, k) => n + k.executed, 0), 8360, "every call of fib(18) but the first is a task");
    for (const k of a.tasks) t.regex(k.location, /omp_kernels\.c:2[4-8]$/);
    // Taskwaits are counted per instance (one per fib call with n >= 2), each once.
    const tw = a.constructs.find((c) => c.kind === 'OpenMP_Sync_Region_Taskwait');
    t.is(tw!.perThread.reduce((n, p) => n + p.calls, 0), 4180);
    // Medians come from the histogram, interpolated: not a power of two times sqrt(2).
    for (const k of a.tasks) t.true(k.medianNs > 0 && k.p90Ns >= k.medianNs);
    const names = m.profile.threads[0].flatMap((th) => th.events.map((e) => e.name));
    t.true(names.some((n) => /\[SAMPLE\] <OpenMP (taskwait|task creation|barrier wait|task dispatch)>/.test(n)), 'placeholders name the runtime');
    const tau = readWithTau(m.dir);
    t.true(tau.ok, tauReaderComplaints(tau));
  });

  test.serial(`${cc}: recursive fib tasks at the default level: samples find their tasks, TAU's reader accepts`, async (t) => {
    const m = await measure(cc, ['fib', '18']);
    t.is(m.openmp.processes[0].level, 'basic');
    assertTaskTimeOnce(t, m.profile);
    assertNamed(t, m.profile);
    const names = m.profile.threads[0].flatMap((th) => th.events.map((e) => e.name));
    t.true(names.some((n) => /\[UNWIND\] .* \[@\] <OpenMP task>/.test(n)), 'samples in tasks start at <OpenMP task>');
    const tau = readWithTau(m.dir);
    t.true(tau.ok, tauReaderComplaints(tau));
  });

  test.serial(`${cc}: a single-producer task loop is one task construct, its creator a bottleneck, not too coarse`, async (t) => {
    const m = await measure(cc, ['producer', '3000'], { HYPROF_OPENMP: 'full' });
    const a = m.openmp.processes[0];
    // One construct (no phantom task at the parallel region's line), every instance counted.
    t.is(a.tasks.length, 1, JSON.stringify(a.tasks.map((k) => k.location)));
    t.regex(a.tasks[0].location, /omp_kernels\.c:3[6-9]$/);
    t.is(a.tasks[0].created, 3000);
    t.is(a.tasks[0].executed, 3000);
    t.deepEqual(a.tasks[0].creators.filter((c) => c.created > 0).map((c) => c.created), [3000]);
    t.false(a.diagnoses.some((d) => d.kind === 'tasks-too-coarse'));
    for (const d of a.diagnoses.filter((x) => x.kind.startsWith('task'))) t.is(d.location, a.tasks[0].location);
    assertTaskTimeOnce(t, m.profile);
  });

  test.serial(`${cc}: a generator task that creates the others is not too coarse`, async (t) => {
    const m = await measure(cc, ['generator', '2000'], { HYPROF_OPENMP: 'full' });
    const a = m.openmp.processes[0];
    t.is(a.tasks.length, 2);
    const gen = a.tasks.find((k) => k.executed === 1)!;
    t.is(gen.spawned, 2000);
    t.false(a.diagnoses.some((d) => d.kind === 'tasks-too-coarse'), JSON.stringify(a.diagnoses));
  });

  test.serial(`${cc}: many short parallel regions are diagnosed with the region's line; classes within its time`, async (t) => {
    const m = await measure(cc, ['regions', '3000']);
    const a = m.openmp.processes[0];
    const r = a.regions.find((x) => /omp_kernels\.c:5\d$/.test(x.location));
    t.truthy(r, JSON.stringify(a.regions.map((x) => x.location)));
    t.is(r!.instances, 3000);
    for (const x of a.regions) {
      t.true(x.sync + x.imbalance + x.limitedParallelism + x.threadManagement <= x.time * 1.0001, `${x.location}: classes beyond its time`);
    }
    const d = a.diagnoses.find((x) => x.kind === 'region-overhead');
    t.truthy(d, JSON.stringify(a.diagnoses));
    t.is(d!.location, r!.location);
    const rep = await hyprof(['report', '--openmp', '--limit', '3', m.dir]);
    t.regex(rep.stdout, /Parallel region overhead \(many short regions\)\s+\S*omp_kernels\.c:5\d/);
    assertNamed(t, m.profile);
  });

  test.serial(`${cc}: with sampling off, parallel regions are still named by function and line`, async (t) => {
    const m = await measure(cc, ['loop', '20'], {}, ['--no-sampling']);
    const names = flat(m.profile, 0).map((e) => e.name);
    t.true(names.some((n) => /^OpenMP_Parallel_Region main \[\{.*omp_kernels\.c\} \{6\d, 0\}\]$/.test(n)), names.join('\n'));
    assertNamed(t, m.profile);
  });

  test.serial(`${cc}: two threads on one CPU: barrier waits in which the runtime yields are named as waits`, async (t) => {
    // libomp spins with sched_yield when its team outnumbers its CPUs; a sample there has the C
    // library as its only frame (a waiting thread is not unwound), and is the runtime's wait all the same.
    const m = await measure(cc, ['onecpu', '100']);
    const names = m.profile.threads[0].flatMap((th) => th.events.map((e) => e.name));
    const inBarrier = names.filter((n) => /\[CONTEXT\] OpenMP_Sync_Region_Barrier/.test(n) && n.includes('[SAMPLE] '));
    t.true(inBarrier.length > 0, 'samples in the barriers');
    for (const n of inBarrier) t.regex(n.slice(n.lastIndexOf('[SAMPLE] ')), /^\[SAMPLE\] <OpenMP (barrier wait|overhead)>$/);
    t.true(m.openmp.processes[0].activity.barrier > 0, "barrier wait in where the threads' time went");
    assertNamed(t, m.profile);
  });

  test.serial(`${cc}: a program that exits before its first construct gets no OpenMP warning`, async (t) => {
    const exe = buildOmp('omp_kernels', 'omp_kernels.c', cc);
    const dir = join(tmpDir(`omp-early-${cc}`), 'prof');
    const r = await hyprof(['run', '--dir', dir, '--', exe], { env: { OMP_NUM_THREADS: '2' } });
    t.is(r.code, 3, 'the program\'s status is kept');
    t.notRegex(r.stderr, /did not start the OpenMP tool/);
    t.regex(r.stderr, /usage: omp_kernels/);
  });
}

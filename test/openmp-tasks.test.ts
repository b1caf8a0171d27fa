/**
 * Task analysis (seed 003) and `--diagnose` on programs with known answers: fine-grained recursive
 * tasks, three big tasks on two threads, a single slow task creator, and a parent task suspended
 * while its child runs on the same thread.
 */
import test from 'ava';
import { analysisOf, buildOmp, runOmp } from './openmp-helpers.js';

const SRC = 'omp_tasks.c';
const clangTest = test.serial;

clangTest('fine-grained recursive tasks are diagnosed as too fine, with the task line', async (t) => {
  const a = await analysisOf(await runOmp(buildOmp('omp_tasks', SRC), ['fine'], { HYPROF_OPENMP: 'full' }));
  t.is(a.tasks.length, 2, 'two task constructs in fib');
  for (const k of a.tasks) {
    t.is(k.created, 10945);
    t.is(k.executed, 10945);
    t.regex(k.location, /omp_tasks\.c:\d+/);
  }
  // Graded: the runtime's share of each construct's cost decides; fib's leaves are tiny, so at least
  // one construct is found (weak or strong: its grade rests on the dispatch gap and on the few
  // creation samples a run this short gets at 500 Hz), and every finding names one of fib's two lines.
  const fine = a.diagnoses.filter((d) => d.kind === 'tasks-too-fine');
  t.true(fine.length > 0, JSON.stringify(a.diagnoses));
  t.true(fine.every((d) => a.tasks.some((k) => k.location === d.location)));
  t.false(a.diagnoses.some((d) => d.kind === 'tasks-too-coarse' || d.kind === 'task-creation-bottleneck'));
  // Recursive tasks run under the creation context of the outermost task, not one context per path.
  const taskCtx = a.contexts.filter((c) => c.path.includes('OpenMP_Task'));
  t.true(taskCtx.every((c) => (c.path.match(/OpenMP_Task/g) ?? []).length === 1), 'no task-in-task chains');
});

clangTest('three big tasks on four threads are diagnosed as too coarse', async (t) => {
  // Four threads for three tasks: one thread has no task at all, whatever the scheduling, so the
  // idleness the diagnosis needs does not depend on how a loaded machine interleaves the threads.
  const a = await analysisOf(await runOmp(buildOmp('omp_tasks', SRC), ['coarse'], { OMP_NUM_THREADS: '4', HYPROF_OPENMP: 'full' }));
  const k = a.tasks[0];
  t.is(k.executed, 3);
  t.true(k.meanNs > 100e6, `mean ${k.meanNs}`);
  const d = a.diagnoses.find((x) => x.kind === 'tasks-too-coarse');
  t.truthy(d);
  t.regex(d!.location, /omp_tasks\.c:\d+/);
  t.false(a.diagnoses.some((x) => x.kind === 'tasks-too-fine'));
});

clangTest('one slow creator with idle consumers is a task-creation bottleneck', async (t) => {
  const a = await analysisOf(await runOmp(buildOmp('omp_tasks', SRC), ['bottleneck'], { HYPROF_OPENMP: 'full' }));
  const k = a.tasks[0];
  t.is(k.created, 40);
  t.deepEqual(k.creators.filter((c) => c.created > 0).map((c) => c.created), [40]);
  const d = a.diagnoses.find((x) => x.kind === 'task-creation-bottleneck');
  t.truthy(d);
  t.regex(d!.message, /creates 100% of the 40 tasks/);
  t.false(a.diagnoses.some((x) => x.kind === 'tasks-too-fine' || x.kind === 'tasks-too-coarse'));
});

clangTest('time while a task is suspended is not charged to it', async (t) => {
  const a = await analysisOf(await runOmp(buildOmp('omp_tasks', SRC), ['suspend'], { OMP_NUM_THREADS: '1', HYPROF_OPENMP: 'full' }));
  t.is(a.tasks.length, 2);
  // The parent's construct comes first in the source; it works 30 ms of CPU, its child 80 ms.
  const line = (loc: string) => Number(/:(\d+)$/.exec(loc)?.[1] ?? NaN);
  const [parent, child] = [...a.tasks].sort((x, y) => line(x.location) - line(y.location));
  t.true(line(parent.location) < line(child.location));
  t.true(child.maxNs > 70e6, `child ${child.maxNs}`);
  t.true(parent.maxNs > 25e6, `parent ${parent.maxNs}`);
  // Charging the suspension would make the parent longer than the child it waited for.
  t.true(parent.maxNs < 0.75 * child.maxNs, `parent ${parent.maxNs} must exclude the child's ${child.maxNs}`);
});

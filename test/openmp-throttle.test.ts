/**
 * Level full's task and task-wait timers are throttled by TAU's rule (TAU_THROTTLE_NUMCALLS /
 * TAU_THROTTLE_PERCALL), as a probe's are: once a construct's timer is throttled, its instances run
 * without a timer frame, and their time goes to the frame they run in. What must hold: it is said
 * once per timer, counted and marked [THROTTLED] in the profile as TAU marks it; the task statistics
 * (instances created and executed, their durations) are as complete as without throttling; samples
 * inside an untimed task are placed under `<OpenMP task>`, and the report says why; the analysis still finds the tasks too
 * fine; TAU's strict reader accepts the profile; a traced run is never throttled.
 * Recursive fib tasks without a cut-off (test/native/omp_kernels.c, fib(22): 57,313 tasks in two
 * task constructs and one taskwait; omp_taskgroup.c: a taskgroup instead), one thread, so every
 * count is deterministic.
 */
import test from 'ava';
import { join } from 'node:path';
import { hyprof, repoRoot } from './helpers/native.js';
import { assertConformant } from './helpers/conformance.js';
import { analysisOf, buildOmp, resolveOmp, runOmp } from './openmp-helpers.js';

const KERNELS = join(repoRoot, 'test', 'native', 'omp_kernels.c');
const TASKS = 57313; /* fib(22) with a task per call: 2 * fib(23) - 1 */
const base = { OMP_NUM_THREADS: '1', HYPROF_OPENMP: 'full', HYPROF_PERIOD_US: '200' };
const throttled = { ...base, HYPROF_THROTTLE_NUMCALLS: '1000', HYPROF_THROTTLE_PERCALL: '1000000' };

const runs = (async () => {
  const exe = buildOmp('omp_kernels', KERNELS);
  const plain = await runOmp(exe, ['fib', '22'], { ...base, HYPROF_THROTTLE: '0' });
  const thr = await runOmp(exe, ['fib', '22'], throttled);
  return { exe, plain, thr };
})();

test.serial('a throttled task timer is said once, counted, and marked [THROTTLED] in the profile', async (t) => {
  const { thr } = await runs;
  const said = thr.stderr.split('\n').filter((l) => l.startsWith('hyprof: throttled '));
  t.log(said.join('\n'));
  // the two task constructs and the taskwait, each once
  t.is(said.filter((l) => l.includes("'OpenMP_Task ")).length, 2, thr.stderr);
  t.is(said.filter((l) => l.includes("'OpenMP_Sync_Region_Taskwait ")).length, 1, thr.stderr);
  t.true(said.every((l) => /^hyprof: throttled 'OpenMP_\w+ in fib' after 1001 calls .*TAU_THROTTLE_NUMCALLS=1000/.test(l)), said.join('\n'));
  const { profile, out } = await resolveOmp(thr);
  assertConformant(out);
  const main = profile.threads[0].find((x) => x.thread === 0)!;
  t.is(main.metadata.find(([k]) => k === 'hyprof Throttled Timers')?.[1], '3');
  const marked = main.events.filter((e) => e.name.startsWith('OpenMP_') && !e.name.includes(' => ') && e.name.endsWith(' [THROTTLED]'));
  t.deepEqual(marked.map((e) => e.name.split(' ')[0]).sort(), ['OpenMP_Sync_Region_Taskwait', 'OpenMP_Task', 'OpenMP_Task']);
  t.true(marked.every((e) => e.group === 'TAU_DISABLE'));
  // timers stop counting once throttled: far fewer calls than tasks
  for (const e of marked) t.true(e.calls < 5000, `${e.name}: ${e.calls} calls`);
  // the time of the untimed tasks went to the frames they ran in: the run's root still holds it all
  const root = main.events.find((e) => e.name === '.TAU application')!;
  const region = main.events.find((e) => !e.name.includes(' => ') && e.name.startsWith('OpenMP_Parallel_Region '))!;
  t.true(region.incl > 0.5 * root.incl, `region ${region.incl} of ${root.incl}`);
});

test.serial('the task statistics are as complete as without throttling', async (t) => {
  const { plain, thr } = await runs;
  const a = await analysisOf(plain);
  const b = await analysisOf(thr);
  t.is(a.tasks.length, 2);
  t.is(b.tasks.length, 2);
  const byLoc = (x: typeof a) => new Map(x.tasks.map((k) => [k.location, k]));
  const pa = byLoc(a);
  let executed = 0;
  for (const k of b.tasks) {
    const p = pa.get(k.location);
    t.truthy(p, k.location);
    t.is(k.created, p!.created, `${k.location}: created`);
    t.is(k.executed, p!.executed, `${k.location}: executed`);
    executed += k.executed;
    // durations measured for every instance: a median of a fine task, not 0 and not the run's length
    t.true(k.medianNs > 0 && k.medianNs < 100_000, `${k.location}: median ${k.medianNs} ns`);
  }
  t.is(executed, TASKS - 1); // the outermost fib call runs in the single construct, not as a task
  t.true(b.diagnoses.some((d) => d.kind === 'tasks-too-fine'), JSON.stringify(b.diagnoses.map((d) => d.kind)));
});

test.serial('samples inside untimed tasks are placed under <OpenMP task>', async (t) => {
  const { thr } = await runs;
  const { profile, out } = await resolveOmp(thr);
  const main = profile.threads[0].find((x) => x.thread === 0)!;
  // the sample's own leaf in task code, in the task's creation or waiting at its taskwait: under the
  // placeholder, which stands where the task's code starts
  const inTask = main.events.filter((e) => e.name.includes(' [@] <OpenMP task>') && / => \[SAMPLE\] [^=]*$/.test(e.name));
  const samples = inTask.reduce((n, e) => n + e.calls, 0);
  t.true(samples > 0, 'no sample under <OpenMP task>');
  // the report's table of tasks seen by sampling says why a level-full run has one
  const rep = await hyprof(['report', out, '--openmp']);
  t.is(rep.code, 0, rep.stderr);
  t.regex(rep.stdout, /Tasks seen by sampling \(level full: tasks run without a timer once their construct's timer is throttled/);
  t.notRegex(rep.stdout, /level basic: no task events/);
});

test.serial('task groups: the taskgroup timer is throttled as a taskwait is, and the task statistics stay whole', async (t) => {
  const exe = buildOmp('omp_taskgroup', join(repoRoot, 'test', 'native', 'omp_taskgroup.c'));
  const plain = await runOmp(exe, ['20'], { ...base, HYPROF_THROTTLE: '0' });
  const thr = await runOmp(exe, ['20'], throttled);
  t.regex(thr.stderr, /^hyprof: throttled 'OpenMP_Sync_Region_Taskgroup in fibgroup' after 1001 calls/m, thr.stderr);
  t.is(thr.stderr.split('\n').filter((l) => /^hyprof: throttled 'OpenMP_Task in fibgroup'/.test(l)).length, 2, thr.stderr);
  const a = await analysisOf(plain);
  const b = await analysisOf(thr);
  t.deepEqual(
    b.tasks.map((k) => [k.location, k.created, k.executed]).sort(),
    a.tasks.map((k) => [k.location, k.created, k.executed]).sort(),
  );
  t.is(b.tasks.reduce((n, k) => n + k.executed, 0), 21890); // fib(20): 2 * fib(21) - 2 tasks
  const { out } = await resolveOmp(thr);
  assertConformant(out);
});

test.serial('a traced run is never throttled: every task keeps its timer', async (t) => {
  const { exe } = await runs;
  const r = await runOmp(exe, ['fib', '22'], { ...throttled, HYPROF_TRACE: '1' });
  t.false(r.stderr.includes('hyprof: throttled '), r.stderr);
  const { profile } = await resolveOmp(r);
  const main = profile.threads[0].find((x) => x.thread === 0)!;
  const tasks = main.events.filter((e) => !e.name.includes(' => ') && e.name.startsWith('OpenMP_Task '));
  t.is(tasks.reduce((n, e) => n + e.calls, 0), TASKS - 1);
});

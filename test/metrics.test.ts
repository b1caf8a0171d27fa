/**
 * Several metrics per run (HYPROF_METRICS / TAU_METRICS): a real C program with a sleeping, a
 * spinning and a memory-touching region, measured with TIME, CPU_TIME and perf software events.
 * Each metric is a MULTI__<metric> directory that TAU's strict reader accepts (the conformance
 * helper reads each one alone too), and report, export and the viewer's API pick the metric. A
 * hardware counter requested where there is none is named with the reason and the run goes on; bad
 * names are named with the variable and its value.
 */
import test from 'ava';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, tmpDir } from './helpers/native.js';
import { conformanceProblems } from './helpers/conformance.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauProfile } from '../src/profile/tau-model.js';
import { ProfileApi } from '../src/view/api.js';

const exe = compileC('metrics_regions', ['metrics_regions.c'], { cflags: ['-O1', '-g'] });

/** Inclusive value of `name` on thread 0 for `metric` (microseconds for the _TIME metrics, else counts). */
function incl(p: TauProfile, metric: string, name: string): number {
  const m = p.metrics.indexOf(metric);
  const e = p.threads[m][0].events.find((x) => x.name.replace(/\s+/g, ' ').trim() === name);
  if (!e) throw new Error(`${name} is not in ${metric}`);
  return e.incl;
}

async function runWith(env: Record<string, string | undefined>, tag: string) {
  const dir = join(tmpDir(`metrics-${tag}`), 'profile');
  const r = await hyprof(['run', '--dir', dir, '--', exe], { env: { HYPROF_METRICS: undefined, TAU_METRICS: undefined, ...env } });
  return { dir, ...r };
}

test('TIME:CPU_TIME:page-faults:context-switches: every region measured in every metric', async (t) => {
  const { dir, code, stderr } = await runWith({ HYPROF_METRICS: 'TIME:CPU_TIME:page-faults:context-switches' }, 'four');
  t.is(code, 0, stderr);
  t.notRegex(stderr, /cannot be measured|unknown metric/);
  t.deepEqual(readdirSync(dir).filter((f) => f.startsWith('MULTI__')).sort(),
    ['MULTI__CPU_TIME', 'MULTI__TIME', 'MULTI__context-switches', 'MULTI__page-faults']);
  t.deepEqual(conformanceProblems(dir), []);
  const p = readTauProfileDir(dir);
  // Sleeping: 200 ms of wall time, almost no CPU time, a context switch per sleep.
  t.true(incl(p, 'TIME', 'sleeping') >= 200_000);
  t.true(incl(p, 'CPU_TIME', 'sleeping') < 0.25 * incl(p, 'TIME', 'sleeping'), `${incl(p, 'CPU_TIME', 'sleeping')}`);
  t.true(incl(p, 'context-switches', 'sleeping') >= 15);
  // Spinning: the program burns 100 ms of its thread's CPU time; CPU_TIME sees that (and never more
  // than the wall time), whatever else runs on the machine.
  const spinCpu = incl(p, 'CPU_TIME', 'spinning');
  t.true(spinCpu >= 100_000 && spinCpu < 130_000, `${spinCpu}`);
  t.true(spinCpu <= incl(p, 'TIME', 'spinning') + 1000);
  // Touching: 16384 fresh pages, one fault each; the other regions touch few.
  t.true(incl(p, 'page-faults', 'touching') >= 16384, `${incl(p, 'page-faults', 'touching')}`);
  t.true(incl(p, 'page-faults', 'spinning') < 1000);
  // A parameter specialisation has every metric too (20 ms of CPU time inside it).
  t.true(incl(p, 'CPU_TIME', 'param [ <n> = <3> ]') >= 20_000);
  // Exclusive values add up to the root's inclusive in every metric.
  for (const metric of p.metrics) {
    const events = p.threads[p.metrics.indexOf(metric)][0].events.filter((e) => !/=>|\[SAMPLE\]|\[CONTEXT\]|\[UNWIND\]|\[ <n>/.test(e.name));
    const excl = events.reduce((s, e) => s + e.excl, 0);
    const root = incl(p, metric, '.TAU application');
    t.true(Math.abs(excl - root) <= Math.max(2, root * 0.001), `${metric}: exclusive ${excl}, root ${root}`);
  }

  // report --metric prints the chosen metric; a metric not in the profile is named.
  for (const metric of p.metrics) {
    const r = await hyprof(['report', dir, '--metric', metric]);
    t.is(r.code, 0, r.stderr);
    t.regex(r.stdout, new RegExp(`metric ${metric} \\(of `));
    t.regex(r.stdout, /touching/);
  }
  const faults = await hyprof(['report', dir, '--metric', 'page-faults']);
  t.regex(faults.stdout, /counts/);
  const bad = await hyprof(['report', dir, '--metric', 'cycles']);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /--metric cycles: not in this profile \(it has TIME, CPU_TIME, context-switches, page-faults\)/);
  // Without --metric, TIME is shown, as TAU's tools do (not the first directory by name).
  const plain = await hyprof(['report', dir]);
  t.is(plain.code, 0, plain.stderr);
  t.regex(plain.stdout, /metric TIME \(of /);
  // export --metric: the collapsed stacks carry that metric's values.
  const ex = await hyprof(['export', dir, '--format', 'collapsed', '--metric', 'page-faults']);
  t.is(ex.code, 0, ex.stderr);
  const touching = ex.stdout.split('\n').find((l) => /;touching \d+$/.test(l) || /^touching \d+$/.test(l) || /touching \d+$/.test(l));
  t.truthy(touching, ex.stdout.slice(0, 2000));
  t.true(Number(touching!.split(' ').at(-1)) >= 16384);
  // The viewer's API: the flame graph of the page-faults metric.
  const api = new ProfileApi(p);
  const m = p.metrics.indexOf('page-faults');
  const flame = api.flame(new URLSearchParams({ thread: '0', metric: String(m), min: '0' }));
  t.true(flame.value >= 16384);
});

test('threads have their own counters, a forked child counts from the fork', async (t) => {
  const threads = compileC('metrics_threads', ['metrics_threads.c'], { cflags: ['-O1', '-g'] });
  const dir = join(tmpDir('metrics-threads'), 'profile');
  const r = await hyprof(['run', '--dir', dir, '--', threads], { env: { HYPROF_METRICS: 'TIME:CPU_TIME:context-switches' } });
  t.is(r.code, 0, r.stderr);
  t.deepEqual(conformanceProblems(dir), []);
  const p = readTauProfileDir(dir);
  const cpu = p.threads[p.metrics.indexOf('CPU_TIME')];
  const value = (th: (typeof cpu)[number], name: string) => th.events.find((e) => e.name === name)?.incl;
  const workers = cpu.filter((th) => value(th, 'work') !== undefined);
  t.is(workers.length, 2);
  for (const w of workers) {
    t.true(value(w, 'work')! >= 50_000 && value(w, 'work')! < 80_000, `${value(w, 'work')}`);
    t.true(value(w, 'nap')! < 5_000, `${value(w, 'nap')}`);
  }
  const child = cpu.find((th) => value(th, 'child') !== undefined)!;
  t.truthy(child);
  t.not(child.context, 0); // the child process's own file
  t.true(value(child, 'child')! >= 30_000 && value(child, 'child')! < 60_000, `${value(child, 'child')}`);
  // its root starts at the fork: not the parent's CPU time before it
  t.true(value(child, '.TAU application')! < value(child, 'child')! + 20_000);
});

test('a hardware counter is measured where the machine has one, else named with the reason and the run goes on', async (t) => {
  const { dir, code, stderr } = await runWith({ HYPROF_METRICS: 'TIME:PAPI_TOT_CYC:CPU_TIME' }, 'hardware');
  t.is(code, 0, stderr);
  const dirs = readdirSync(dir).filter((f) => f.startsWith('MULTI__')).sort();
  if (/cannot be measured/.test(stderr)) {
    t.regex(stderr, /^hyprof: metric PAPI_TOT_CYC cannot be measured on this machine: .+; continuing with TIME, CPU_TIME$/m);
    t.is(stderr.match(/cannot be measured/g)!.length, 1);
    t.deepEqual(dirs, ['MULTI__CPU_TIME', 'MULTI__TIME']);
  } else {
    t.log('this machine has hardware counters: PAPI_TOT_CYC was measured');
    t.deepEqual(dirs, ['MULTI__CPU_TIME', 'MULTI__PAPI_TOT_CYC', 'MULTI__TIME']);
    t.true(incl(readTauProfileDir(dir), 'PAPI_TOT_CYC', 'spinning') > 1e6);
  }
  t.deepEqual(conformanceProblems(dir), []);
});

test('bad metric names are named with the variable and its value; the valid ones are measured', async (t) => {
  const value = 'TIME:nonsense::CPU_TIME:P_VIRTUAL_TIME';
  const { dir, code, stderr } = await runWith({ TAU_METRICS: value }, 'bad');
  t.is(code, 0, stderr);
  t.regex(stderr, new RegExp(`^hyprof: TAU_METRICS=${value}: unknown metric 'nonsense' \\(known: TIME, CPU_TIME, .*\\); ignored$`, 'm'));
  t.regex(stderr, new RegExp(`^hyprof: TAU_METRICS=${value}: an empty metric name .*; ignored$`, 'm'));
  t.regex(stderr, new RegExp(`^hyprof: TAU_METRICS=${value}: metric 'P_VIRTUAL_TIME' is listed twice \\(as 'CPU_TIME'\\); measured once$`, 'm'));
  t.deepEqual(readdirSync(dir).filter((f) => f.startsWith('MULTI__')).sort(), ['MULTI__CPU_TIME', 'MULTI__TIME']);

  // only separators: one line for all the empty names, not one per name
  const colons = await runWith({ HYPROF_METRICS: ':::' }, 'colons');
  t.is(colons.code, 0, colons.stderr);
  t.deepEqual(
    // what is said of the variable (the run's other notices, such as samples that landed in
    // hyprof's code on a loaded machine, aside)
    colons.stderr.split('\n').filter((l) => l.startsWith('hyprof: HYPROF_METRICS=')),
    ["hyprof: HYPROF_METRICS=:::: 4 empty metric names (two ':' in a row, or one at an end); ignored"],
  );
  t.true(existsSync(join(colons.dir, 'profile.0.0.0')));

  const empty = await runWith({ HYPROF_METRICS: '' }, 'empty');
  t.is(empty.code, 0, empty.stderr);
  t.regex(empty.stderr, /^hyprof: HYPROF_METRICS is empty; measuring TIME only$/m);
  t.true(existsSync(join(empty.dir, 'profile.0.0.0')));

  const many = await runWith({ HYPROF_METRICS: 'TIME:CPU_TIME:page-faults:context-switches:task-clock' }, 'many');
  t.is(many.code, 0, many.stderr);
  t.regex(many.stderr, /HYPROF_METRICS=TIME:CPU_TIME:page-faults:context-switches:task-clock: at most 4 metrics are measured, TIME included; 'task-clock' ignored/);

  // hyprof's name wins over TAU's; TAU's spelling names the directory.
  const both = await runWith({ HYPROF_METRICS: 'TIME:cs', TAU_METRICS: 'TIME:CPU_TIME' }, 'both');
  t.is(both.code, 0, both.stderr);
  t.deepEqual(readdirSync(both.dir).filter((f) => f.startsWith('MULTI__')).sort(), ['MULTI__TIME', 'MULTI__cs']);
});

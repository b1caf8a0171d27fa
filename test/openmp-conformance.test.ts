/**
 * OpenMP profiles as TAU's strict reader and every other consumer read them (the conformance check
 * runs on each resolve): programs built with gcc (on LLVM's libomp in libgomp's place) and clang,
 * at the tool's basic and full levels. Worker threads carry the master's phases and regions as
 * derived entries; construct events are named by the program's code, never the runtime's
 * (`UNRESOLVED …/libomp.so.5 ADDR …`, `[{} {0, 0}]`); parallel regions by their own lines.
 */
import test from 'ava';
import { join } from 'node:path';
import { displayName, type TauThreadProfile } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { compileC, hyprof, tmpDir } from './helpers/native.js';

const regionLine = (name: string): number | null => {
  const m = /^OpenMP_Parallel_Region .* \[\{[^{}]*\} \{(\d+), 0\}\]/.exec(name);
  return m ? Number(m[1]) : null;
};

function constructNames(threads: TauThreadProfile[]): string[] {
  const names = new Set<string>();
  for (const th of threads) for (const e of th.events) if (e.group === 'TAU_OPENMP') names.add(displayName(e.name));
  return [...names];
}

function checkNames(t: import('ava').ExecutionContext, names: string[], src: string): void {
  t.true(names.length > 0);
  for (const n of names) {
    t.false(/UNRESOLVED|\[\{\}/.test(n), n);
    t.regex(n, new RegExp(`\\[\\{.*${src}\\} \\{\\d+, 0\\}\\]`), n);
  }
}

for (const cc of ['gcc', 'clang'] as const) {
  for (const level of ['basic', 'full'] as const) {
    test.serial(`${cc}, ${level}: OpenMP profiles pass TAU's strict reader; workers carry the master's phase; constructs named by the program`, async (t) => {
      const exe = compileC(`omp_constructs_conf_${cc}`, ['omp_constructs.c'], { cc, cflags: ['-O1', '-g', '-fopenmp'], ldflags: ['-fopenmp'] });
      const dir = join(tmpDir(`omp-conf-${cc}-${level}`), 'prof');
      const r = await hyprof(['run', '--dir', dir, '--', exe, 'all'], { env: { OMP_NUM_THREADS: '2', HYPROF_OPENMP: level } });
      t.is(r.code, 0, r.stderr);
      const threads = readTauProfileDir(dir).threads[0];
      t.true(threads.length >= 3, `${threads.length} threads`);
      // A worker's share of a region sits under the master's phase: its phase entries are derived.
      const worker = threads.find((th) => th.thread > 0 && th.events.some((e) => e.name.includes('=> OpenMP_Parallel_Region')))!;
      const phase = worker.events.find((e) => e.name === 'phase_main')!;
      t.truthy(phase, 'the worker has a flat entry for the master\'s phase');
      t.is(phase.calls, 0);
      t.true(phase.incl > 0);
      t.truthy(worker.events.find((e) => e.name === '.TAU application => phase_main'));
      const names = constructNames(threads);
      checkNames(t, names, 'omp_constructs\\.c');
      if (level === 'basic') t.false(names.some((n) => /Mutex|Critical/.test(n)));
      // Five regions in the source, each named by its own line (the nested one is inside the last).
      const lines = names.map(regionLine).filter((l): l is number => l !== null);
      t.is(new Set(lines).size, 6, names.filter((n) => n.startsWith('OpenMP_Parallel_Region')).join('\n'));
      for (const [pragma] of [[29], [40], [43], [50], [61], [63]]) {
        t.true(lines.some((l) => l >= pragma - 1 && l <= pragma + 2), `a region at line ${pragma}: ${lines.join(', ')}`);
      }
    });
  }

  test.serial(`${cc}: tasks, and two regions of one function (the second a tail call), named by their own lines`, async (t) => {
    const tasks = compileC(`omp_tasks_conf_${cc}`, ['omp_tasks.c'], { cc, cflags: ['-O2', '-g', '-fopenmp'], ldflags: ['-fopenmp'], link: false });
    for (const what of ['fine', 'coarse', 'bottleneck']) {
      const dir = join(tmpDir(`omp-conf-tasks-${cc}`), 'prof');
      const r = await hyprof(['run', '--dir', dir, '--', tasks, what], { env: { OMP_NUM_THREADS: '2' } });
      t.is(r.code, 0, r.stderr);
      const names = constructNames(readTauProfileDir(dir).threads[0]);
      checkNames(t, names, 'omp_tasks\\.c');
      const pragma = { fine: 43, coarse: 48, bottleneck: 55 }[what]!;
      const lines = names.map(regionLine).filter((l): l is number => l !== null);
      t.is(lines.length, 1, names.join('\n'));
      t.true(lines[0] >= pragma && lines[0] <= pragma + 2, `${what}: region at line ${lines[0]}, its directive is at ${pragma}`);
    }
    const regions = compileC(`omp_regions_${cc}`, ['omp_regions.c'], { cc, cflags: ['-O2', '-g', '-fopenmp'], ldflags: ['-fopenmp'], link: false });
    const dir = join(tmpDir(`omp-conf-regions-${cc}`), 'prof');
    const r = await hyprof(['run', '--dir', dir, '--', regions], { env: { OMP_NUM_THREADS: '2' } });
    t.is(r.code, 0, r.stderr);
    const names = constructNames(readTauProfileDir(dir).threads[0]);
    checkNames(t, names, 'omp_regions\\.c');
    const lines = names.map(regionLine).filter((l): l is number => l !== null).sort((a, b) => a - b);
    t.is(lines.length, 2, names.join('\n'));
    t.true(lines[0] >= 17 && lines[0] <= 19 && lines[1] >= 25 && lines[1] <= 27, `regions at ${lines.join(', ')}; directives at 17 and 25`);
  });
}

/**
 * bench/openmp: what the OpenMP tool costs, level by level, on three kernels (bench/openmp-kernels.c:
 * fib tasks without cutoff, an imbalanced work-shared loop, many short parallel regions), 2 threads,
 * libhyprof preloaded as `hyprof run` does, against the same binary uninstrumented on the same OpenMP
 * runtime (a gcc build runs on LLVM's libomp in libgomp's place in every configuration).
 *
 * Configurations, interleaved (round r runs each once, in an order rotated by r):
 *   uninstrumented; hyprof loaded with the tool off; level basic; level full (no sampling);
 *   the timer floor (a no-op per-thread timer at the sampling rate on every thread,
 *   bench/noop-timer.c); sampling with the tool off; basic + sampling; full + sampling.
 * Kernel wall and process CPU time are measured inside the program; min and median over the rounds.
 * The last table is issue 18's question: what sampling costs with the OpenMP events on, against what
 * it costs alone (both over their own baseline).
 *
 * Run: node dist/bench/openmp.js [rounds] [--cc clang|gcc] [--kernels tasks,loop,regions] [--tasks N] [--loop N]
 *      [--regions N] [--period us]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findLibomp } from '../src/analysis/openmp-runtime.js';
import { compileC, libPath, repoRoot } from '../test/helpers/native.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
};
const rounds = Number(argv.find((a, i) => /^\d+$/.test(a) && (i === 0 || !argv[i - 1].startsWith('--'))) ?? 5);
const cc = opt('--cc', 'clang');
const period = opt('--period', '1000');
const sizes: Record<string, string> = { tasks: opt('--tasks', '30'), loop: opt('--loop', '1000'), regions: opt('--regions', '20000') };

const work = mkdtempSync(join(tmpdir(), 'hyprof-bench-omp-'));
const exe = compileC(`openmp-kernels-${cc}`, [join(repoRoot, 'bench', 'openmp-kernels.c')], {
  cc,
  cflags: ['-O2', '-g', '-fopenmp', '-falign-functions=64', '-falign-loops=64'],
  ldflags: ['-fopenmp'],
  link: false,
  outDir: work,
});
const floorLib = compileC('noop-timer.so', [join(repoRoot, 'bench', 'noop-timer.c')], {
  cflags: ['-O2', '-shared', '-fPIC'],
  ldflags: ['-ldl'],
  link: false,
  outDir: work,
});

// The same OpenMP runtime for every configuration: a gcc build runs on libomp in libgomp's place.
const base: NodeJS.ProcessEnv = { ...process.env, OMP_NUM_THREADS: '2', OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'passive' };
if (cc === 'gcc') {
  const libomp = findLibomp();
  if (!libomp) throw new Error('a gcc build needs LLVM libomp (libomp5) to be measured against the same runtime');
  const dir = join(work, 'openmp-runtime');
  mkdirSync(dir);
  symlinkSync(libomp, join(dir, 'libgomp.so.1'));
  base.LD_LIBRARY_PATH = base.LD_LIBRARY_PATH ? `${dir}:${base.LD_LIBRARY_PATH}` : dir;
}
const raw = join(work, 'raw');
mkdirSync(raw);
const hyprofEnv = (extra: Record<string, string>) => ({ LD_PRELOAD: libPath, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw, HYPROF_PERIOD_US: period, ...extra });

const configs: Array<[string, Record<string, string>]> = [
  ['uninstrumented', {}],
  ['hyprof, tool off', hyprofEnv({ HYPROF_SAMPLING: '0', HYPROF_OPENMP: 'off' })],
  ['basic', hyprofEnv({ HYPROF_SAMPLING: '0', HYPROF_OPENMP: 'basic' })],
  ['full', hyprofEnv({ HYPROF_SAMPLING: '0', HYPROF_OPENMP: 'full' })],
  ['timer floor', { LD_PRELOAD: floorLib, HYPROF_PERIOD_US: period }],
  ['sampling, tool off', hyprofEnv({ HYPROF_SAMPLING: '1', HYPROF_OPENMP: 'off' })],
  ['basic + sampling', hyprofEnv({ HYPROF_SAMPLING: '1', HYPROF_OPENMP: 'basic' })],
  ['full + sampling', hyprofEnv({ HYPROF_SAMPLING: '1', HYPROF_OPENMP: 'full' })],
];
const kernels = opt('--kernels', 'tasks,loop,regions').split(',').filter((k) => k in sizes);

const series = new Map<string, number[]>();
const add = (k: string, v: number) => series.set(k, [...(series.get(k) ?? []), v]);
const load0 = loadavg()[0];
for (let r = 0; r < rounds; r++) {
  for (const kernel of kernels) {
    for (let i = 0; i < configs.length; i++) {
      const [name, env] = configs[(i + r) % configs.length];
      const out = spawnSync(exe, [kernel, sizes[kernel]], { encoding: 'utf8', env: { ...base, ...env } });
      if (out.status !== 0) throw new Error(`${kernel} / ${name}: exit ${out.status}: ${out.stderr}`);
      const [, wall, cpu] = out.stdout.trim().split(' ');
      add(`${kernel}|${name}|wall`, Number(wall));
      add(`${kernel}|${name}|cpu`, Number(cpu));
    }
  }
  rmSync(raw, { recursive: true, force: true });
  mkdirSync(raw);
}
rmSync(work, { recursive: true, force: true });

const stat = (k: string) => {
  const xs = [...(series.get(k) ?? [])].sort((a, b) => a - b);
  return { min: xs[0], median: xs.length % 2 ? xs[(xs.length - 1) / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2 };
};
const pct = (x: number, b: number) => `${x >= b ? '+' : ''}${((100 * (x - b)) / b).toFixed(1)}%`;

console.log(
  `machine: ${cpus().length} x ${cpus()[0]?.model}; load average ${load0.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after; ` +
    `${cc} -O2, LLVM libomp, OMP_NUM_THREADS=2, OMP_WAIT_POLICY=${base.OMP_WAIT_POLICY}, sampling every ${period} us; ` +
    `${rounds} rounds; kernel seconds measured inside the program (min / median), change against uninstrumented`,
);
console.log(`kernels: tasks = fib(${sizes.tasks}) with a task per call, loop = ${sizes.loop} imbalanced loops, regions = ${sizes.regions} short regions\n`);
console.log(`| kernel | time | ${configs.map(([n]) => n).join(' | ')} |`);
console.log(`|---|---|${configs.map(() => '---').join('|')}|`);
for (const kernel of kernels) {
  for (const what of ['cpu', 'wall']) {
    const b = stat(`${kernel}|uninstrumented|${what}`);
    const cells = configs.map(([n]) => {
      const s = stat(`${kernel}|${n}|${what}`);
      return n === 'uninstrumented' ? `${s.min.toFixed(3)} / ${s.median.toFixed(3)} s` : `${pct(s.min, b.min)} / ${pct(s.median, b.median)}`;
    });
    console.log(`| ${kernel} | ${what} | ${cells.join(' | ')} |`);
  }
}

// Issue 18: sampling with the OpenMP events on costs what sampling costs alone, not more.
console.log('\nSampling cost with and without the OpenMP events (CPU, min over rounds):');
console.log('| kernel | timer floor | sampling, tool off | sampling over basic | sampling over full |');
console.log('|---|---|---|---|---|');
for (const kernel of kernels) {
  const c = (n: string) => stat(`${kernel}|${n}|cpu`).min;
  const u = c('uninstrumented');
  console.log(
    `| ${kernel} | ${pct(c('timer floor'), u)} | ${pct(c('sampling, tool off'), c('hyprof, tool off'))} | ` +
      `${pct(c('basic + sampling'), c('basic'))} | ${pct(c('full + sampling'), c('full'))} |`,
  );
}

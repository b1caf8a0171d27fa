/**
 * bench/openmp: the OpenMP tool's cost on four kernels (imbalanced loop, near-empty regions, tasks,
 * locks; clang, 2 threads), the program unmodified and the runtime preloaded as `hyprof run` does. Columns:
 * uninstrumented; sampling alone at 200 Hz per thread with the tool off (the sampling floor);
 * tool level basic + 200 Hz; level full + 200 Hz. Kernel wall and CPU time are measured inside the
 * program (OMP_WAIT_POLICY=passive, so CPU time is work done, robust on a loaded machine); the median
 * of `rounds` runs is kept. Run: node dist/bench/openmp.js [rounds]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileC, libPath, repoRoot } from '../test/helpers/native.js';

const rounds = Number(process.argv[2] ?? 5);
const exe = compileC('openmp-kernels', [join(repoRoot, 'bench', 'openmp-kernels.c')], {
  cc: 'clang',
  cflags: ['-O2', '-g', '-fopenmp'],
  ldflags: ['-fopenmp'],
  link: false,
});

const configs: Array<[string, Record<string, string>]> = [
  ['uninstrumented', {}],
  ['sampling 200 Hz, tool off', { LD_PRELOAD: libPath, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '5000', HYPROF_OPENMP: 'off' }],
  ['basic + 200 Hz', { LD_PRELOAD: libPath, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '5000', HYPROF_OPENMP: 'basic' }],
  ['full + 200 Hz', { LD_PRELOAD: libPath, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '5000', HYPROF_OPENMP: 'full' }],
];

const times = new Map<string, number[]>();
const raw = mkdtempSync(join(tmpdir(), 'hyprof-bench-omp-'));
for (let r = 0; r < rounds; r++) {
  for (const [name, env] of configs) {
    const out = spawnSync(exe, ['all'], {
      encoding: 'utf8',
      env: { ...process.env, OMP_NUM_THREADS: '2', OMP_WAIT_POLICY: 'passive', HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw, ...env },
    });
    if (out.status !== 0) throw new Error(`${name}: ${out.stderr}`);
    for (const line of out.stdout.trim().split('\n')) {
      const [kernel, wall, cpu] = line.split(' ');
      for (const [what, v] of [['wall', wall], ['cpu', cpu]]) {
        const key = `${kernel}\u0000${name}\u0000${what}`;
        times.set(key, [...(times.get(key) ?? []), Number(v)]);
      }
    }
  }
}
rmSync(raw, { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `machine: ${cpus().length} x ${cpus()[0]?.model}; load average ${loadavg()[0].toFixed(1)}; OMP_NUM_THREADS=2, ` +
    `OMP_WAIT_POLICY=passive; median of ${rounds} rounds (kernel seconds, overhead vs uninstrumented)`,
);
console.log(`| kernel | time | ${configs.map(([n]) => n).join(' | ')} |`);
console.log(`|---|---|${configs.map(() => '---').join('|')}|`);
for (const kernel of ['loop', 'regions', 'tasks', 'locks']) {
  for (const what of ['cpu', 'wall']) {
    const base = median(times.get(`${kernel}\u0000uninstrumented\u0000${what}`)!);
    const cells = configs.map(([n]) => {
      const m = median(times.get(`${kernel}\u0000${n}\u0000${what}`)!);
      return n === 'uninstrumented' ? `${m.toFixed(3)} s` : `${m.toFixed(3)} s (${(((m - base) / base) * 100).toFixed(1)}%)`;
    });
    console.log(`| ${kernel} | ${what} | ${cells.join(' | ')} |`);
  }
}
// Absolute cost per event, from CPU time (robust to the load of a shared machine).
const cpu = (k: string, c: string) => median(times.get(`${k}\u0000${c}\u0000cpu`)!);
const perRegion = (cpu('regions', 'basic + 200 Hz') - cpu('regions', 'sampling 200 Hz, tool off')) / 20000;
const perTask = (cpu('tasks', 'full + 200 Hz') - cpu('tasks', 'basic + 200 Hz')) / 100000;
console.log(`\ntool level basic: ${(perRegion * 1e6).toFixed(2)} us of CPU per parallel region of 2 threads (about 10 events);`);
console.log(`level full over basic: ${(perTask * 1e6).toFixed(2)} us of CPU per task (create + 2 schedule events)`);

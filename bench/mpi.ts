/**
 * bench/mpi: what the MPI layer costs per MPI call, small messages, 2 ranks (one per core): a
 * ping-pong (MPI_Send + MPI_Recv, 8 bytes, two calls per iteration on each rank) and MPI_Allreduce
 * of one double, each run
 *   plain        the program alone
 *   runtime      the runtime preloaded, MPI layer off (HYPROF_MPI=0), no sampling: its floor
 *   mpi          the runtime and the MPI layer, no sampling: every MPI call a timer + bytes + call site
 *   mpi+sampling the same with 1 kHz sampling, as `hyprof run` measures
 *   mpi+matrix   the layer with the communication matrix (HYPROF_COMM_MATRIX=1), no sampling
 *   mpi+trace    the layer with a trace recorded (HYPROF_TRACE=1: each call's enter and leave, and its
 *                message or collective records), no sampling
 * interleaved, `rounds` times (min and median kept), in wall time and rank 0's CPU time; the clock
 * floor (two CLOCK_MONOTONIC reads, one timer's worth) from the same runs. Then the instructions the
 * layer adds per call, from valgrind --tool=callgrind (deterministic on a loaded machine).
 * Run: node dist/bench/mpi.js [iterations] [rounds]
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { libDir, repoRoot, tmpDir } from '../test/helpers/native.js';

const iterations = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);
const dir = tmpDir('bench-mpi');
const exe = join(dir, 'mpi-cost');
const cc = spawnSync('mpicc', ['-O2', '-g', join(repoRoot, 'bench', 'mpi-cost.c'), '-o', exe], { encoding: 'utf8' });
if (cc.status !== 0) throw new Error(`mpicc failed: ${cc.stderr}`);
const preload = `${join(libDir, 'libhyprof.so')}:${join(libDir, 'libhyprof_mpi.so')}`;
const configs: Record<string, Record<string, string>> = {
  plain: {},
  runtime: { LD_PRELOAD: preload, HYPROF_MPI: '0', HYPROF_SAMPLING: '0' },
  mpi: { LD_PRELOAD: preload, HYPROF_SAMPLING: '0' },
  'mpi+matrix': { LD_PRELOAD: preload, HYPROF_SAMPLING: '0', HYPROF_COMM_MATRIX: '1' },
  'mpi+trace': { LD_PRELOAD: preload, HYPROF_SAMPLING: '0', HYPROF_TRACE: '1' },
  'mpi+sampling': { LD_PRELOAD: preload, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000' },
};
const mpirun = ['--oversubscribe', '--allow-run-as-root', '--mca', 'btl', 'self,vader', '-np', '2'];

function runOnce(mode: string, env: Record<string, string>, wrap: string[] = []): string {
  return runOnceN(mode, env, iterations, wrap);
}

function runOnceN(mode: string, env: Record<string, string>, n: number, wrap: string[] = []): string {
  const raw = tmpDir('bench-mpi-raw');
  const exports = Object.keys(env).flatMap((k) => ['-x', k]);
  const r = spawnSync('mpirun', [...mpirun, ...exports, '-x', 'HYPROF_RESOLVE', '-x', 'HYPROF_RAW_DIR', ...wrap, exe, mode, String(n)], {
    encoding: 'utf8',
    env: { ...process.env, ...env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw },
  });
  if (r.status !== 0) throw new Error(`${mode} failed: ${r.stderr}`);
  return r.stdout;
}

const seen = new Map<string, number[]>();
const add = (k: string, v: number) => seen.set(k, [...(seen.get(k) ?? []), v]);
for (let round = 0; round < rounds; round++) {
  for (const mode of ['pingpong', 'allreduce']) {
    for (const [name, env] of Object.entries(configs)) {
      for (const line of runOnce(mode, env).trim().split('\n')) {
        const [what, a, b] = line.split(' ');
        if (what === 'clock_floor') add('clock_floor', Number(a));
        else {
          add(`${mode}:${name}:wall`, Number(a));
          add(`${mode}:${name}:cpu`, Number(b));
        }
      }
    }
  }
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const min = (k: string) => sorted(seen.get(k)!)[0];
const med = (k: string) => sorted(seen.get(k)!)[Math.floor(seen.get(k)!.length / 2)];
// MPI calls per iteration on rank 0: ping-pong makes two (Send, Recv), allreduce one.
const callsPer: Record<string, number> = { pingpong: 2, allreduce: 1 };
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; 2 ranks, ${iterations} iterations, ${rounds} rounds interleaved`);
console.log(`clock floor (2 reads): min ${min('clock_floor').toFixed(1)} ns, median ${med('clock_floor').toFixed(1)} ns`);
console.log('| loop | time | plain ns/iter | runtime | mpi | mpi+sampling | mpi+matrix | mpi − plain per MPI call (min / median) | matrix − mpi per MPI call |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const mode of ['pingpong', 'allreduce']) {
  for (const clock of ['wall', 'cpu']) {
    const k = (c: string) => `${mode}:${c}:${clock}`;
    const cell = (c: string) => `${min(k(c)).toFixed(0)} / ${med(k(c)).toFixed(0)}`;
    const per = (f: (x: string) => number, a = 'mpi', b = 'plain') => ((f(k(a)) - f(k(b))) / callsPer[mode]).toFixed(0);
    console.log(
      `| ${mode} | ${clock === 'cpu' ? 'CPU' : 'wall'} | ${cell('plain')} | ${cell('runtime')} | ${cell('mpi')} | ${cell('mpi+sampling')} | ${cell('mpi+matrix')} | ` +
        `${per(min)} / ${per(med)} ns | ${per(min, 'mpi+matrix', 'mpi')} / ${per(med, 'mpi+matrix', 'mpi')} ns |`,
    );
  }
}

// Instructions the layer adds per MPI call, from callgrind on both ranks with the layer on: the
// wrapper's inclusive count minus the MPI library's own (PMPI_*) below it, per call. Busy-polling
// inside the MPI library makes whole-program counts useless under valgrind; this difference is not.
const cgCalls = (mode: string, config = 'mpi'): Array<{ call: string; calls: number; wrapper: number; library: number }> => {
  const out = tmpDir('bench-mpi-cg');
  const save = process.argv[2];
  runOnceN(mode, configs[config], 20_000, ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}/cg.%p`]);
  void save;
  const rows = new Map<string, { call: string; calls: number; wrapper: number; library: number }>();
  for (const f of readdirSync(out).filter((x) => x.startsWith('cg.'))) {
    const text = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', join(out, f)], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
    for (const call of ['MPI_Send', 'MPI_Recv', 'MPI_Allreduce']) {
      const num = (re: RegExp) => Number((re.exec(text)?.[1] ?? '0').replace(/,/g, ''));
      const wrapper = num(new RegExp(`^\\s*([\\d,]+) .*wrappers\\.c:${call} \\[`, 'm'));
      const library = num(new RegExp(`^\\s*([\\d,]+) .*:P${call} \\[`, 'm'));
      const calls = num(new RegExp(`^\\s*[\\d,]+ .*=> .*wrappers\\.c:${call} \\(([\\d,]+)x\\)`, 'gm'));
      if (!wrapper) continue;
      const r = rows.get(call) ?? { call, calls: 0, wrapper: 0, library: 0 };
      r.wrapper += wrapper;
      r.library += library;
      // every call site's count (warm-up and loop)
      for (const m of text.matchAll(new RegExp(`=> .*wrappers\\.c:${call} \\(([\\d,]+)x\\)`, 'g'))) r.calls += Number(m[1].replace(/,/g, ''));
      void calls;
      rows.set(call, r);
    }
  }
  return [...rows.values()];
};
console.log('');
console.log('| loop | call | calls (both ranks) | instructions in the MPI library per call | added by the layer per call | with the matrix (HYPROF_COMM_MATRIX=1) | with the trace (HYPROF_TRACE=1) |');
console.log('|---|---|---|---|---|---|---|');
const added = (m: { wrapper: number; library: number; calls: number } | undefined): string => (m ? ((m.wrapper - m.library) / m.calls).toFixed(0) : '-');
for (const mode of ['pingpong', 'allreduce']) {
  const matrix = new Map(cgCalls(mode, 'mpi+matrix').map((r) => [r.call, r]));
  const traced = new Map(cgCalls(mode, 'mpi+trace').map((r) => [r.call, r]));
  for (const r of cgCalls(mode)) {
    console.log(`| ${mode} | ${r.call}() | ${r.calls} | ${(r.library / r.calls).toFixed(0)} | ${added(r)} | ${added(matrix.get(r.call))} | ${added(traced.get(r.call))} |`);
  }
}

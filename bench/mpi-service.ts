/**
 * bench/mpi-service: what sampling costs a whole MPI job in CPU time, and what sampling the MPI
 * library's service threads by their CPU time instead of the wall clock saves (docs/sampling.md,
 * "Runtime service threads"). bench/mpi-compute.c (2 ranks, computing with an Allreduce per step)
 * runs under mpirun in each configuration
 *   plain         the program alone
 *   layer         the runtime and the MPI layer preloaded, no sampling: the floor of the PMPI layer
 *   wall-all      1 kHz sampling, service threads by the wall clock (HYPROF_SERVICE_THREADS=wall:
 *                 how every thread was sampled before)
 *   default       1 kHz sampling, service threads by their CPU time (the default)
 *   cpu-all       1 kHz sampling of every thread by its CPU time (HYPROF_SAMPLE_SOURCE=itimer-cpu):
 *                 the bare timer floor of sampling what computes
 * interleaved, `rounds` times; per configuration the whole job's CPU time (user + system of mpirun
 * and every rank, from the shell's `times`) and wall time, min and median, and CPU against plain.
 * Run: node dist/bench/mpi-service.js [steps] [rounds]
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { libDir, repoRoot, tmpDir } from '../test/helpers/native.js';

const steps = Number(process.argv[2] ?? 40);
const rounds = Number(process.argv[3] ?? 5);
const dir = tmpDir('bench-mpi-service');
const exe = join(dir, 'mpi-compute');
const cc = spawnSync('mpicc', ['-O2', '-g', join(repoRoot, 'bench', 'mpi-compute.c'), '-o', exe], { encoding: 'utf8' });
if (cc.status !== 0) throw new Error(`mpicc failed: ${cc.stderr}`);
const preload = `${join(libDir, 'libhyprof.so')}:${join(libDir, 'libhyprof_mpi.so')}`;
const sampled = { LD_PRELOAD: preload, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000' };
const configs: Record<string, Record<string, string>> = {
  plain: {},
  layer: { LD_PRELOAD: preload, HYPROF_SAMPLING: '0' },
  'wall-all': { ...sampled, HYPROF_SERVICE_THREADS: 'wall' },
  default: sampled,
  'cpu-all': { ...sampled, HYPROF_SAMPLE_SOURCE: 'itimer-cpu' },
};
const mpirun = ['--oversubscribe', '--allow-run-as-root', '--mca', 'btl', 'self,vader', '-np', '2'];

/** One job: [CPU s of the whole job, wall s]. */
function job(env: Record<string, string>): [number, number] {
  const raw = tmpDir('bench-mpi-service-raw');
  const all = { ...env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw };
  const exports = Object.keys(all).flatMap((k) => ['-x', k]);
  const cmd = ['mpirun', ...mpirun, ...exports, exe, String(steps), '20'].map((a) => `'${a}'`).join(' ');
  const t0 = process.hrtime.bigint();
  // `times` prints the shell's own times, then its children's: mpirun and, through it, every rank
  const r = spawnSync('bash', ['-c', `${cmd} >/dev/null || exit 1; times`], { encoding: 'utf8', env: { ...process.env, ...all } });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`mpirun failed: ${r.stderr}`);
  const children = r.stdout.trim().split('\n').at(-1)!;
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return [secs[0]! + secs[1]!, wall];
}

const seen = new Map<string, number[]>();
const add = (k: string, v: number) => seen.set(k, [...(seen.get(k) ?? []), v]);
const load = loadavg()[0]!;
for (let round = 0; round < rounds; round++) {
  for (const [name, env] of Object.entries(configs)) {
    const [cpu, wall] = job(env);
    add(`${name}:cpu`, cpu);
    add(`${name}:wall`, wall);
  }
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const min = (k: string) => sorted(seen.get(k)!)[0]!;
const med = (k: string) => sorted(seen.get(k)!)[Math.floor(seen.get(k)!.length / 2)]!;
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; load ${load.toFixed(1)}; 2 ranks, ${steps} steps, ${rounds} rounds interleaved`);
console.log('| configuration | job CPU s (min / median) | × plain CPU (min / median) | wall s (min / median) |');
console.log('|---|---|---|---|');
for (const name of Object.keys(configs)) {
  const f = (x: number) => x.toFixed(2);
  console.log(`| ${name} | ${f(min(`${name}:cpu`))} / ${f(med(`${name}:cpu`))} | ${f(min(`${name}:cpu`) / min('plain:cpu'))} / ${f(med(`${name}:cpu`) / med('plain:cpu'))} | ${f(min(`${name}:wall`))} / ${f(med(`${name}:wall`))} |`);
}

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
 *   cpu-all       1 kHz sampling of every thread by its CPU time (HYPROF_SAMPLE_SOURCE=itimer-cpu)
 *   floor         the layer, and in each rank a 1 kHz wall-clock timer with a handler that does
 *                 nothing on its main thread alone (bench/noop-timer.c, NOOP_TIMER_THREADS=main): the
 *                 bare timer floor of sampling the thread that computes, above the runtime + PMPI
 *                 layer (issue: the default's cost should be at most this)
 * interleaved (each round starting at the next configuration), `rounds` times; per configuration the
 * whole job's CPU time (user + system of mpirun and every rank, from the shell's `times`) and wall
 * time, min and median, and CPU against plain; and, from the raw files of the sampled runs, the
 * sampling signals the service threads took against the main threads' (the cost's cause, which the
 * machine's load does not blur: a loaded machine makes the ranks' spin-waits in MPI, and so the job's
 * CPU time, vary from run to run).
 * Run: node dist/bench/mpi-service.js [steps] [rounds]; or, on a program not written here, the HPC
 * Challenge suite (Debian's `hpcc`: HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT and b_eff on 2
 * ranks, 1 × 2 grid): node dist/bench/mpi-service.js N rounds hpcc (N: HPL's problem size).
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRawFile } from '../src/samples/raw-reader.js';
import { libDir, repoRoot, tmpDir } from '../test/helpers/native.js';

const steps = Number(process.argv[2] ?? 8);
const rounds = Number(process.argv[3] ?? 5);
const program = process.argv[4];
if (program !== undefined && program !== 'hpcc') {
  console.error(`mpi-service: '${program}' is no program this benchmark runs: leave it out (bench/mpi-compute.c) or give hpcc`);
  process.exit(2);
}
const hpcc = program === 'hpcc';
const dir = tmpDir('bench-mpi-service');
let command: string[];
if (hpcc) {
  // hpcc reads hpccinf.txt in its directory: Debian's example with a 1 × 2 grid and HPL's N = steps.
  const example = '/usr/share/doc/hpcc/examples/_hpccinf.txt';
  if (!existsSync('/usr/bin/hpcc') || !existsSync(example)) {
    console.error(`mpi-service: hpcc is not installed (/usr/bin/hpcc, ${example}): Debian's package hpcc, which scripts/install-deps.sh installs`);
    process.exit(2);
  }
  const lines = readFileSync(example, 'utf8').split('\n');
  lines[5] = `${steps}         Ns`;
  lines[10] = '1            Ps';
  lines[11] = '2            Qs';
  writeFileSync(join(dir, 'hpccinf.txt'), lines.join('\n'));
  command = ['/usr/bin/hpcc'];
} else {
  const exe = join(dir, 'mpi-compute');
  const cc = spawnSync('mpicc', ['-O2', '-g', join(repoRoot, 'bench', 'mpi-compute.c'), '-o', exe], { encoding: 'utf8' });
  if (cc.status !== 0) throw new Error(`mpicc failed: ${cc.stderr}`);
  command = [exe, String(steps), '100'];
}
const preload = `${join(libDir, 'libhyprof.so')}:${join(libDir, 'libhyprof_mpi.so')}`;
const noop = join(dir, 'noop-timer.so');
const noopCc = spawnSync('gcc', ['-O2', '-shared', '-fPIC', join(repoRoot, 'bench', 'noop-timer.c'), '-o', noop, '-lrt', '-ldl'], { encoding: 'utf8' });
if (noopCc.status !== 0) throw new Error(`noop-timer: ${noopCc.stderr}`);
const sampled = { LD_PRELOAD: preload, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000' };
const configs: Record<string, Record<string, string>> = {
  plain: {},
  layer: { LD_PRELOAD: preload, HYPROF_SAMPLING: '0' },
  'wall-all': { ...sampled, HYPROF_SERVICE_THREADS: 'wall' },
  default: sampled,
  'cpu-all': { ...sampled, HYPROF_SAMPLE_SOURCE: 'itimer-cpu' },
  // the ranks' preload (mpirun itself gets the layer's, as in every other configuration)
  floor: { LD_PRELOAD: preload, HYPROF_SAMPLING: '0', HYPROF_PERIOD_US: '1000', NOOP_TIMER_THREADS: 'main', RANK_LD_PRELOAD: `${preload}:${noop}` },
};
const mpirun = ['--oversubscribe', '--allow-run-as-root', '--mca', 'btl', 'self,vader', '-np', '2'];

const seen = new Map<string, number[]>();
const add = (k: string, v: number) => seen.set(k, [...(seen.get(k) ?? []), v]);

/** Sampling signals taken in one job's raw files: [on the main threads, on the service threads]. */
function signals(raw: string): [number, number] {
  let main = 0;
  let service = 0;
  for (const f of readdirSync(raw).filter((x) => x.endsWith('.raw'))) {
    const p = readRawFile(join(raw, f));
    const attr = (k: string) => p.info.attributes.find(([key]) => key === k)?.[1];
    const svc = new Set([...(attr('hyprof service threads') ?? '').matchAll(/thread (\d+) /g)].map((m) => Number(m[1])));
    for (const th of p.threads) {
      const taken = Number(attr(`TAU_EBS_SAMPLES_TAKEN_${th.index}`) ?? 0);
      if (svc.has(th.index)) service += taken;
      else if (th.index === 0) main += taken;
    }
  }
  return [main, service];
}

/** One job: [CPU s of the whole job, wall s]. */
function job(name: string, env: Record<string, string>): [number, number] {
  const raw = tmpDir('bench-mpi-service-raw');
  const { RANK_LD_PRELOAD: rankPreload, ...rest } = env;
  const all = { ...rest, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw };
  const exports = Object.keys(all).flatMap((k) => ['-x', k === 'LD_PRELOAD' && rankPreload ? `LD_PRELOAD=${rankPreload}` : k]);
  const cmd = ['mpirun', ...mpirun, ...exports, ...command].map((a) => `'${a}'`).join(' ');
  const t0 = process.hrtime.bigint();
  // `times` prints the shell's own times, then its children's: mpirun and, through it, every rank
  const r = spawnSync('bash', ['-c', `${cmd} >/dev/null || exit 1; times`], { encoding: 'utf8', cwd: dir, env: { ...process.env, ...all } });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`mpirun failed: ${r.stderr}`);
  const children = r.stdout.trim().split('\n').at(-1)!;
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (env.HYPROF_SAMPLING === '1') {
    const [main, service] = signals(raw);
    add(`${name}:main`, main);
    add(`${name}:service`, service);
  }
  return [secs[0]! + secs[1]!, wall];
}

const load = loadavg()[0]!;
const names = Object.keys(configs);
for (let round = 0; round < rounds; round++) {
  // each round starts at another configuration, so none always follows the same neighbour
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round) % names.length]!;
    const env = configs[name]!;
    const [cpu, wall] = job(name, env);
    add(`${name}:cpu`, cpu);
    add(`${name}:wall`, wall);
  }
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const min = (k: string) => sorted(seen.get(k)!)[0]!;
const med = (k: string) => sorted(seen.get(k)!)[Math.floor(seen.get(k)!.length / 2)]!;
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; load ${load.toFixed(1)}; 2 ranks, ${hpcc ? `hpcc, HPL N=${steps}` : `${steps} steps`}, ${rounds} rounds interleaved`);
console.log('| configuration | job CPU s (min / median) | × plain CPU (min / median) | wall s (min / median) | signals on main threads / service threads (median) |');
console.log('|---|---|---|---|---|');
for (const name of Object.keys(configs)) {
  const f = (x: number) => x.toFixed(2);
  const sig = seen.has(`${name}:main`) ? `${med(`${name}:main`)} / ${med(`${name}:service`)}` : '-';
  console.log(`| ${name} | ${f(min(`${name}:cpu`))} / ${f(med(`${name}:cpu`))} | ${f(min(`${name}:cpu`) / min('plain:cpu'))} / ${f(med(`${name}:cpu`) / med('plain:cpu'))} | ${f(min(`${name}:wall`))} / ${f(med(`${name}:wall`))} | ${sig} |`);
}

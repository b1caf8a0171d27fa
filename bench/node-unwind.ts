/**
 * bench/node-unwind: what unwinding a Node stack costs per sample, for two revisions of the runtime
 * (A = a git revision, default main; B = the working tree), on a JavaScript stack of 50 and of 150
 * frames (bench/node-deep.mjs; node adds about 40 native frames under them).
 *
 * Each revision's runtime is built with -DHYPROF_BENCH_HANDLER (the handler timed from entry to exit
 * on every signal) and preloaded into node as `hyprof run` does (LD_PRELOAD, the JIT-event and
 * thread preloads, --interpreted-frames-native-stack), with bench/node-handler-times.c, which writes
 * the handler's signal count, median, 90th percentile and mean at exit. Measured:
 *  - per depth, interleaved rounds: plain node, `node --cpu-prof` at the same 1 ms interval, A and B
 *    sampling at 1 kHz: process CPU time (user + system, wait4) and wall time, min and median; the
 *    handler's median, p90 and mean per signal (median over the rounds);
 *  - system calls per sample: `strace -f -c` over the run with sampling (10 ms period, so that
 *    strace's own cost does not flood the run with signals) minus the same run with sampling off,
 *    divided by the signals the handler took; mincore, write and read (libunwind's address checks)
 *    shown apart.
 * Run: node dist/bench/node-unwind.js [rev] [rounds] [iterations]   (default main, 3, 200000000)
 */
import { execSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, tmpDir } from '../test/helpers/native.js';
import { Samples, conditions, fmt, interleave, measureCommand, pct } from './lib.js';

const rev = process.argv[2] ?? 'main';
const rounds = Number(process.argv[3] ?? 3);
const iterations = process.argv[4] ?? '200000000';
if (!(rounds > 0) || !(Number(iterations) > 0)) {
  console.error('usage: node dist/bench/node-unwind.js [rev] [rounds > 0] [iterations > 0]');
  process.exit(2);
}
const dir = tmpDir('bench-node-unwind');
const script = join(repoRoot, 'bench', 'node-deep.mjs');
const depths = [50, 150];

/** The timed runtime of one revision's native/ tree, as compare-builds.sh builds it. */
function buildRuntime(name: string, fill: string): string {
  const d = join(dir, name);
  execSync(`mkdir -p ${d} && ${fill}`, { cwd: repoRoot, stdio: 'inherit' });
  const srcs = execSync(
    `find ${d}/native -name '*.c' -not -path '*/addon/*' -not -path '*/mpi/*' -not -path '*/cuda/*' -not -path '*/otf2/*' | sort`,
    { encoding: 'utf8' },
  )
    .trim()
    .split('\n');
  const lib = join(d, 'libhyprof.so');
  const r = spawnSync(
    'gcc',
    ['-std=gnu11', '-O2', '-g', '-fPIC', '-shared', '-fvisibility=hidden', '-DHYPROF_BENCH_HANDLER', `-I${d}/native/include`,
      `-I${d}/native`, ...srcs, '-o', lib, '-Wl,-soname,libhyprof.so', '-Wl,-z,nodelete',
      '-lunwind', '-lunwind-x86_64', '-ldl', '-lpthread', '-lrt'],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`building ${name} failed:\n${r.stderr}`);
  return lib;
}

const libA = buildRuntime('A', `git archive ${rev} native | tar -x -C ${join(dir, 'A')}`);
const libB = buildRuntime('B', `cp -r native ${join(dir, 'B')}/`);
const shim = join(dir, 'times.so');
execSync(`gcc -O2 -fPIC -shared ${join(repoRoot, 'bench', 'node-handler-times.c')} -o ${shim} -ldl`);

const preloads = ['thread-preload.cjs', 'v8-jit-preload.cjs']
  .map((f) => `--require ${join(repoRoot, 'dist', 'src', 'events', f)}`)
  .join(' ');
const timesOut = join(dir, 'times.txt');
function hyprofEnv(lib: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LD_PRELOAD: `${lib}:${shim}`,
    NODE_OPTIONS: `${preloads} --interpreted-frames-native-stack`,
    HYPROF_SAMPLING: '1',
    HYPROF_PERIOD_US: '1000',
    HYPROF_RESOLVE: '0',
    HYPROF_RAW_DIR: dir,
    HYPROF_DIR: dir,
    HYPROF_BENCH_TIMES_OUT: timesOut,
    ...extra,
  };
}
const readTimes = () => readFileSync(timesOut, 'utf8').trim().split(' ').map(Number) as [number, number, number, number];

interface Config {
  name: string;
  depth: number;
  args: string[];
  env: NodeJS.ProcessEnv;
  timed: boolean;
}
const configs: Config[] = depths.flatMap((depth) => [
  { name: 'plain node', depth, args: [script, String(depth), iterations], env: process.env, timed: false },
  {
    name: 'node --cpu-prof (1 ms)',
    depth,
    args: ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', dir, script, String(depth), iterations],
    env: process.env,
    timed: false,
  },
  { name: `A (${rev}), 1 kHz`, depth, args: [script, String(depth), iterations], env: hyprofEnv(libA), timed: true },
  { name: 'B (working tree), 1 kHz', depth, args: [script, String(depth), iterations], env: hyprofEnv(libB), timed: true },
]);

const before = conditions();
const samples = new Samples();
interleave(configs, rounds, (c) => {
  rmSync(timesOut, { force: true });
  const cost = measureCommand(process.execPath, c.args, c.env, `${c.name}, depth ${c.depth}`);
  const key = `${c.depth}|${c.name}`;
  samples.add(`${key}|cpu`, cost.cpu);
  samples.add(`${key}|wall`, cost.wall);
  if (c.timed) {
    const [signals, median, p90, mean] = readTimes();
    samples.add(`${key}|signals`, signals);
    samples.add(`${key}|mean`, mean);
    samples.add(`${key}|median`, median);
    samples.add(`${key}|p90`, p90);
  }
});

/** System calls of one run under strace -f -c: the total and the named ones. */
function straceCalls(lib: string, depth: number, sampling: string): Map<string, number> {
  const out = join(dir, 'strace.txt');
  rmSync(timesOut, { force: true });
  const r = spawnSync('strace', ['-f', '-c', '-o', out, process.execPath, script, String(depth), String(Number(iterations) / 4)], {
    env: hyprofEnv(lib, { HYPROF_SAMPLING: sampling, HYPROF_PERIOD_US: '10000' }),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`strace run failed: ${r.stderr}`);
  const calls = new Map<string, number>();
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    // "% time  seconds  usecs/call  calls  [errors]  syscall"
    if (f.length >= 5 && /^\d/.test(f[0]) && /^\d+$/.test(f[3])) calls.set(f[f.length - 1], Number(f[3]));
  }
  return calls;
}
const strace = new Map<string, string>();
for (const [name, lib] of [[`A (${rev})`, libA], ['B (working tree)', libB]] as const) {
  for (const depth of depths) {
    const off = straceCalls(lib, depth, '0');
    const on = straceCalls(lib, depth, '1');
    const signals = readTimes()[0];
    const per = (k: string) => fmt(((on.get(k) ?? 0) - (off.get(k) ?? 0)) / signals, 1);
    strace.set(`${name}|${depth}`, `${signals} | ${per('total')} | ${per('mincore')} | ${per('write')} | ${per('read')}`);
  }
}
rmSync(dir, { recursive: true, force: true });

console.log(`machine: ${before}`);
console.log(`after: ${conditions()}`);
console.log(`node ${process.version}; bench/node-deep.mjs, ${iterations} iterations at the bottom of the stack; ${rounds} rounds interleaved`);
console.log('| JS frames | configuration | CPU min s | CPU median s | vs plain (min) | wall median s | signals | handler median µs | handler p90 µs | handler mean µs |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const c of configs) {
  const key = `${c.depth}|${c.name}`;
  const cpu = samples.get(`${key}|cpu`);
  const plain = samples.get(`${c.depth}|plain node|cpu`);
  const t = (k: string) => (c.timed ? fmt(samples.get(`${key}|${k}`).median / 1000, 2) : '–');
  console.log(
    `| ${c.depth} | ${c.name} | ${fmt(cpu.min, 3)} | ${fmt(cpu.median, 3)} | ${pct(cpu.min, plain.min)} | ` +
      `${fmt(samples.get(`${key}|wall`).median, 3)} | ${c.timed ? Math.round(samples.get(`${key}|signals`).median) : '–'} | ${t('median')} | ${t('p90')} | ${t('mean')} |`,
  );
}
console.log('\nSystem calls per sample (strace -f -c, sampling on minus sampling off, per signal; 10 ms period):');
console.log('| runtime | JS frames | signals | all calls | mincore | write | read |');
console.log('|---|---|---|---|---|---|---|');
for (const [k, v] of strace) {
  const [name, depth] = k.split('|');
  console.log(`| ${name} | ${depth} | ${v} |`);
}

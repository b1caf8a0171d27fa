/**
 * bench/trace: what recording a trace (HYPROF_TRACE=1, docs/trace.md) costs, in four parts:
 *  1. a probe pair by handle traced against the same pair untraced, next to the empty loop and the
 *     clock floors (two rdtsc, two clock_gettime), interleaved round by round (bench/trace-cost.c):
 *     CPU and wall ns per pair, min and median; and callgrind's instructions per pair, traced and
 *     untraced (the difference of two runs of N and 2N pairs, so start-up and exit cancel out);
 *  2. bytes per event on disk: the trace file the runtime writes, and the OTF2 archive the resolve
 *     writes from it;
 *  3. 10^6 phases traced: peak resident memory (GNU time) against the same program untraced;
 *  4. fib without cut-off (bench/openmp-kernels.c tasks, HYPROF_OPENMP=full: an event per task),
 *     traced against untraced and against the OpenMP tool off, interleaved.
 * Run: node dist/bench/trace.js [pairs] [rounds] [phases] [fib]   (default 1,000,000 7 1,000,000 24)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findLibomp } from '../src/analysis/openmp-runtime.js';
import { compileC, cliPath, libPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { Samples, alignFlags, conditions, fmt, interleave, measureCommand } from './lib.js';

const pairs = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 7);
const phases = Number(process.argv[4] ?? 1_000_000);
const fibN = Number(process.argv[5] ?? 24);
const work = tmpDir('bench-trace');
const exe = compileC('trace-cost', [join(repoRoot, 'bench', 'trace-cost.c')], { cflags: ['-O2', '-g', ...alignFlags], outDir: work });
const raw = join(work, 'raw');
const base = { ...process.env, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', HYPROF_THROTTLE: '0', HYPROF_RAW_DIR: raw };
const clean = () => rmSync(raw, { recursive: true, force: true });
const before = conditions();

// ---- 1. the pair ----
const modes = [
  { name: 'untraced', env: {} },
  { name: 'traced', env: { HYPROF_TRACE: '1' } },
];
const samples = new Samples();
interleave(modes, rounds, (mode, round) => {
  clean();
  const { stdout } = measureCommand(exe, ['pairs', String(pairs), String(round)], { ...base, ...mode.env }, `trace-cost (${mode.name})`);
  for (const line of stdout.trim().split('\n')) {
    const [name, cpu, wall] = line.split(' ');
    samples.add(`${mode.name}|${name}|cpu`, Number(cpu));
    samples.add(`${mode.name}|${name}|wall`, Number(wall));
  }
});
clean();

function callgrindIr(env: NodeJS.ProcessEnv, n: number): number {
  const out = join(work, 'callgrind.out');
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, exe, 'handle', String(n)], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind failed: ${r.stderr}`);
  const m = /Collected : (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`no instruction count from callgrind: ${r.stderr}`);
  clean();
  return Number(m[1]);
}
const cgPairs = 200_000;
const perPair = (env: NodeJS.ProcessEnv) => (callgrindIr(env, 2 * cgPairs) - callgrindIr(env, cgPairs)) / cgPairs;
const irUntraced = perPair(base);
const irTraced = perPair({ ...base, HYPROF_TRACE: '1' });

// ---- 2. bytes per event ----
clean();
const sizePairs = 200_000;
measureCommand(exe, ['handle', String(sizePairs)], { ...base, HYPROF_TRACE: '1' }, 'trace-cost handle (traced)');
const traceFile = readdirSync(raw).find((f) => f.endsWith('.trace'))!;
const traceBytes = statSync(join(raw, traceFile)).size;
const events = 2 * sizePairs + 2; // each pair's enter and leave, the root's enter; its leave is the dump's
const out = join(work, 'prof');
const res = spawnSync(process.execPath, [cliPath, 'resolve', raw, '-o', out], { encoding: 'utf8' });
if (res.status !== 0) throw new Error(`resolve failed: ${res.stderr}`);
const du = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + du(join(p, f)), 0) : statSync(p).size);
const otf2Bytes = du(join(out, 'traces')) + du(join(out, 'traces.def')) + du(join(out, 'traces.otf2'));
const otf2Events = Number(/OTF2, \d+ locations?, (\d+) events/.exec(res.stderr)?.[1] ?? NaN);
clean();

// ---- 3. 10^6 phases: peak memory ----
const mem = new Samples();
interleave(modes, 3, (mode) => {
  clean();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %e %U %S', exe, 'phases', String(phases)], { env: { ...base, ...mode.env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`phases failed: ${r.stderr}`);
  const [rss, wall, user, sys] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  mem.add(`${mode.name}|rss`, rss);
  mem.add(`${mode.name}|wall`, wall);
  mem.add(`${mode.name}|cpu`, user + sys);
  const tf = readdirSync(raw).find((f) => f.endsWith('.trace'));
  if (tf) mem.add(`${mode.name}|file`, statSync(join(raw, tf)).size);
});
clean();

// ---- 4. fib without cut-off ----
const omp = compileC('openmp-kernels', [join(repoRoot, 'bench', 'openmp-kernels.c')], {
  cc: 'clang',
  cflags: ['-O2', '-g', '-fopenmp', ...alignFlags],
  ldflags: ['-fopenmp'],
  link: false,
  outDir: work,
});
const ompEnv: NodeJS.ProcessEnv = { ...base, OMP_NUM_THREADS: '2', OMP_WAIT_POLICY: 'passive' };
if (!findLibomp()) throw new Error('LLVM libomp is needed for the OpenMP part');
const fibModes: Array<[string, Record<string, string>]> = [
  ['uninstrumented', {}],
  ['hyprof, tool off', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'off' }],
  ['full, untraced', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'full' }],
  ['full, traced', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'full', HYPROF_TRACE: '1' }],
];
const fib = new Samples();
let fibTrace = 0;
interleave(fibModes, Math.max(3, Math.min(rounds, 5)), ([name, env]) => {
  clean();
  mkdirSync(raw, { recursive: true });
  const r = spawnSync(omp, ['tasks', String(fibN)], { env: { ...ompEnv, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fib (${name}) failed: ${r.stderr}`);
  const [, wall, cpu] = r.stdout.trim().split(' ');
  fib.add(`${name}|wall`, Number(wall));
  fib.add(`${name}|cpu`, Number(cpu));
  const tf = readdirSync(raw).find((f) => f.endsWith('.trace'));
  if (tf) fibTrace = statSync(join(raw, tf)).size;
});
clean();

// ---- the tables ----
console.log(`machine: ${before}`);
console.log(`after: ${conditions()}\n`);
console.log(`1. A probe pair by handle, ${pairs} pairs per case, ${rounds} rounds interleaved; ns per pair (CPU: the thread's own):\n`);
console.log('| loop | CPU min | CPU median | wall min | wall median |');
console.log('|---|---|---|---|---|');
const row = (label: string, key: string) => {
  const c = samples.get(`${key}|cpu`);
  const w = samples.get(`${key}|wall`);
  console.log(`| ${label} | ${fmt(c.min)} | ${fmt(c.median)} | ${fmt(w.min)} | ${fmt(w.median)} |`);
};
row('empty loop', 'untraced|empty_loop');
row('two rdtsc: floor', 'untraced|rdtsc_x2');
row('two clock_gettime: floor', 'untraced|clock_gettime_x2');
row('pair, untraced', 'untraced|by_handle');
row('pair, traced (HYPROF_TRACE=1)', 'traced|by_handle');
const e = samples.get('untraced|empty_loop|cpu').min;
const u = samples.get('untraced|by_handle|cpu').min - e;
const t = samples.get('traced|by_handle|cpu').min - samples.get('traced|empty_loop|cpu').min;
console.log(`\npair less the empty loop (CPU min): untraced ${fmt(u)} ns, traced ${fmt(t)} ns: ${fmt(t / u)}x`);
console.log(`callgrind, instructions per pair: untraced ${fmt(irUntraced)}, traced ${fmt(irTraced)}: ${fmt(irTraced / irUntraced)}x\n`);
console.log(`2. Bytes per event (${sizePairs} pairs, ${events} events):\n`);
console.log('| form | bytes | bytes per event |');
console.log('|---|---|---|');
console.log(`| trace file (runtime) | ${traceBytes} | ${fmt(traceBytes / events)} |`);
console.log(`| OTF2 archive (traces.otf2 + .def + traces/) | ${otf2Bytes} | ${fmt(otf2Bytes / otf2Events)} (${otf2Events} events) |\n`);
console.log(`3. ${phases} phases, each with a timer inside (3 rounds, GNU time):\n`);
console.log('| run | peak RSS min (KiB) | median | wall min (s) | CPU min (s) | trace file (bytes) |');
console.log('|---|---|---|---|---|---|');
for (const m of ['untraced', 'traced']) {
  const f = mem.has(`${m}|file`) ? String(mem.get(`${m}|file`).min) : '–';
  console.log(`| ${m} | ${mem.get(`${m}|rss`).min} | ${mem.get(`${m}|rss`).median} | ${fmt(mem.get(`${m}|wall`).min)} | ${fmt(mem.get(`${m}|cpu`).min)} | ${f} |`);
}
console.log(`\n4. fib(${fibN}) with a task per call, no cut-off, clang + LLVM libomp, 2 threads (seconds around the kernel):\n`);
console.log('| run | CPU min | CPU median | wall min | wall median |');
console.log('|---|---|---|---|---|');
for (const [name] of fibModes) {
  const c = fib.get(`${name}|cpu`);
  const w = fib.get(`${name}|wall`);
  console.log(`| ${name} | ${fmt(c.min)} | ${fmt(c.median)} | ${fmt(w.min)} | ${fmt(w.median)} |`);
}
console.log(`\ntrace file of the traced fib run: ${fibTrace} bytes`);
rmSync(work, { recursive: true, force: true });

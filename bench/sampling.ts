/**
 * bench/sampling: the sampling handler's own time per signal, and what a signal costs the process,
 * against the same workload alone and with a no-op handler on the same per-thread timer at the same
 * rate (the floor of any timer sampler), every configuration interleaved round by round.
 *
 * bench/sampling-handler.c runs a floating-point loop 30 calls below the frame in which its timer
 * started (one thread), with the runtime compiled in with -DHYPROF_BENCH_HANDLER, which times the
 * handler from entry to exit on every signal. Depth 0 ("auto") unwinds to the timer's frame: the full
 * stack, 31 frames. Everything is built with frame pointers so that the frame-pointer rows walk real
 * chains. Per configuration: process CPU time and wall time over the workload (min and median over
 * the rounds), signals taken, the handler's median and 90th percentile (median over the rounds).
 * The traced rows (HYPROF_TRACE=1) add each sample's record to the thread's trace buffer (8 frames at
 * most, core/trace.c): their difference to the row above is what tracing adds to a sample.
 * Run: node dist/bench/sampling.js [iterations] [period_us] [rounds]   (default 150,000,000, 1000, 5)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, repoRoot, runtimeSources, tmpDir } from '../test/helpers/native.js';
import { Samples, conditions, fmt, interleave } from './lib.js';

const iters = process.argv[2] ?? '150000000';
const period = process.argv[3] ?? '1000';
const rounds = Number(process.argv[4] ?? 5);
if (!(Number(iters) > 0) || !(Number(period) > 0) || !(rounds > 0)) {
  console.error('usage: node dist/bench/sampling.js [iterations > 0] [period_us > 0] [rounds > 0]');
  process.exit(2);
}
const dir = tmpDir('bench-sampling');
const native = join(repoRoot, 'native');
const sources = runtimeSources();
const papi = existsSync('/usr/include/papi.h');
const exe = compileC('sampling-handler', [...sources, join(repoRoot, 'bench', 'sampling-handler.c')], {
  link: false,
  outDir: dir,
  cflags: ['-std=gnu11', '-O2', '-g', '-fno-omit-frame-pointer', '-DHYPROF_BENCH_HANDLER', `-I${native}`, ...(papi ? ['-DHYPROF_HAVE_PAPI=1'] : [])],
  ldflags: ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt', ...(papi ? ['-lpapi'] : [])],
});

interface Config {
  name: string;
  mode: 'base' | 'noop' | 'hyprof';
  env: Record<string, string>;
}
const configs: Config[] = [
  { name: 'workload alone', mode: 'base', env: { HYPROF_SAMPLING: '0' } },
  { name: 'no-op timer handler: the floor', mode: 'noop', env: { HYPROF_SAMPLING: '0' } },
  { name: 'libunwind, depth 10', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '10' } },
  { name: 'libunwind, depth 10, traced (HYPROF_TRACE=1: each sample in the trace)', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '10', HYPROF_TRACE: '1' } },
  { name: 'libunwind, to the timer frame (31 frames)', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '0' } },
  { name: 'libunwind, to the timer frame, traced', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '0', HYPROF_TRACE: '1' } },
  { name: 'no unwinding (PC only)', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND: '0' } },
  { name: 'frame pointers, depth 10', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWINDER: 'fp', HYPROF_UNWIND_DEPTH: '10' } },
  { name: 'frame pointers, to the timer frame', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWINDER: 'fp', HYPROF_UNWIND_DEPTH: '0' } },
];

const before = conditions();
const samples = new Samples();
interleave(configs, rounds, (c) => {
  const r = spawnSync(exe, [c.mode, iters, period], {
    encoding: 'utf8',
    env: { ...process.env, HYPROF_DIR: dir, HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_THROTTLE: '0', HYPROF_PERIOD_US: period, ...c.env },
  });
  if (r.status !== 0) throw new Error(`${c.name} failed: ${r.stderr}`);
  const [, cpu, wall, signals, median, p90] = r.stdout.trim().split(' ');
  samples.add(`${c.name}|cpu`, Number(cpu));
  samples.add(`${c.name}|wall`, Number(wall));
  samples.add(`${c.name}|signals`, Number(signals));
  samples.add(`${c.name}|median`, Number(median));
  samples.add(`${c.name}|p90`, Number(p90));
});
rmSync(dir, { recursive: true, force: true });

console.log(`machine: ${before}`);
console.log(`after: ${conditions()}`);
console.log(
  `workload: ${iters} iterations 30 calls below the timer's frame; period ${period} us; ${rounds} rounds interleaved. ` +
    'CPU / wall = seconds of the process over the workload; handler = its own time per signal, µs; ' +
    'per signal = (CPU min - workload alone CPU min) / signals.',
);
console.log('| configuration | CPU min | CPU median | wall min | wall median | signals | handler median | handler p90 | per signal (CPU) |');
console.log('|---|---|---|---|---|---|---|---|---|');
const baseCpu = samples.get('workload alone|cpu').min;
for (const c of configs) {
  const cpu = samples.get(`${c.name}|cpu`);
  const wall = samples.get(`${c.name}|wall`);
  const signals = samples.get(`${c.name}|signals`).median;
  const handler = c.mode === 'hyprof';
  const us = (ns: number) => fmt(ns / 1000, 2);
  const perSignal = c.mode === 'base' || !signals ? '–' : `${fmt(((cpu.min - baseCpu) * 1e6) / signals, 1)} µs`;
  console.log(
    `| ${c.name} | ${fmt(cpu.min, 3)} | ${fmt(cpu.median, 3)} | ${fmt(wall.min, 3)} | ${fmt(wall.median, 3)} | ${Math.round(signals)} | ` +
      `${handler ? us(samples.get(`${c.name}|median`).median) : '–'} | ${handler ? us(samples.get(`${c.name}|p90`).median) : '–'} | ${perSignal} |`,
  );
}

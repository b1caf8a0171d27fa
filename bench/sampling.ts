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
 * Run: node dist/bench/sampling.js [iterations] [period_us] [rounds]   (default 150,000,000, 1000, 5)
 */
import { rmSync } from 'node:fs';
import { tmpDir } from '../test/helpers/native.js';
import { buildHandlerBench, printHandlerTable, runHandlerRounds, type HandlerConfig } from './handler-rounds.js';
import { conditions } from './lib.js';

const iters = process.argv[2] ?? '150000000';
const period = process.argv[3] ?? '1000';
const rounds = Number(process.argv[4] ?? 5);
if (!(Number(iters) > 0) || !(Number(period) > 0) || !(rounds > 0)) {
  console.error('usage: node dist/bench/sampling.js [iterations > 0] [period_us > 0] [rounds > 0]');
  process.exit(2);
}
const dir = tmpDir('bench-sampling');
const exe = buildHandlerBench(dir);

const configs: HandlerConfig[] = [
  { name: 'workload alone', mode: 'base', env: { HYPROF_SAMPLING: '0' } },
  { name: 'no-op timer handler: the floor', mode: 'noop', env: { HYPROF_SAMPLING: '0' } },
  { name: 'libunwind, depth 10', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '10' } },
  { name: 'libunwind, to the timer frame (31 frames)', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '0' } },
  { name: 'no unwinding (PC only)', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWIND: '0' } },
  { name: 'frame pointers, depth 10', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWINDER: 'fp', HYPROF_UNWIND_DEPTH: '10' } },
  { name: 'frame pointers, to the timer frame', mode: 'hyprof', env: { HYPROF_SAMPLING: '1', HYPROF_UNWINDER: 'fp', HYPROF_UNWIND_DEPTH: '0' } },
];

const before = conditions();
const samples = runHandlerRounds(exe, configs, rounds, [iters, period], {
  HYPROF_DIR: dir, HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_THROTTLE: '0', HYPROF_PERIOD_US: period,
});
rmSync(dir, { recursive: true, force: true });

console.log(`machine: ${before}`);
console.log(`after: ${conditions()}`);
console.log(
  `workload: ${iters} iterations 30 calls below the timer's frame; period ${period} us; ${rounds} rounds interleaved. ` +
    'CPU / wall = seconds of the process over the workload; handler = its own time per signal, µs; ' +
    'per signal = (CPU min - workload alone CPU min) / signals.',
);
printHandlerTable(configs, samples);

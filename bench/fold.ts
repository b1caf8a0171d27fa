/**
 * bench/fold: what folding (HYPROF_FOLD, docs/fold.md) adds to plain sampling, every configuration
 * interleaved round by round, and in instructions (callgrind), which the machine's load does not blur.
 *
 * 1. The sampling handler's own time per signal and the process's CPU and wall time, on
 *    bench/sampling-handler.c (a loop 30 calls below the timer "bench", the runtime compiled in with
 *    -DHYPROF_BENCH_HANDLER): the workload alone; sampling at depth 10; the same with "bench" folded
 *    (every sample is also a folded sample); with folding configured for another timer only.
 * 2. Instructions per sample of the handler (hp_sample_take, inclusive) and of the fold's part
 *    (hp_fold_sample), sampling alone and folding, under callgrind.
 * 3. Instructions per probe pair of a timer, folded or not, and with folding off (bench/fold-probe.c):
 *    (Ir(N2) - Ir(N1)) / (N2 - N1).
 * Run: node dist/bench/fold.js [iterations] [rounds]   (default 100,000,000 and 5; needs valgrind for 2 and 3)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, haveTool, repoRoot, tmpDir } from '../test/helpers/native.js';
import { buildHandlerBench, printHandlerTable, runHandlerRounds, type HandlerConfig } from './handler-rounds.js';
import { callgrindInclusive, conditions, fmt } from './lib.js';

const iters = process.argv[2] ?? '100000000';
const rounds = Number(process.argv[3] ?? 5);
if (!(Number(iters) > 0) || !(rounds > 0)) {
  console.error('usage: node dist/bench/fold.js [iterations > 0] [rounds > 0]');
  process.exit(2);
}
const period = '1000';
const dir = tmpDir('bench-fold');
const exe = buildHandlerBench(dir);

const sampling = { HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '10' };
const configs: HandlerConfig[] = [
  { name: 'workload alone', mode: 'base', env: { HYPROF_SAMPLING: '0' } },
  { name: 'sampling, depth 10', mode: 'hyprof', env: sampling },
  { name: 'sampling + folding the timer around the work', mode: 'hyprof', env: { ...sampling, HYPROF_FOLD: 'bench' } },
  { name: 'sampling + folding configured for another timer', mode: 'hyprof', env: { ...sampling, HYPROF_FOLD: 'other' } },
];
const baseEnv = { HYPROF_DIR: dir, HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_THROTTLE: '0', HYPROF_PERIOD_US: period };

const before = conditions();
const samples = runHandlerRounds(exe, configs, rounds, [iters, period], baseEnv);

console.log(`machine: ${before}`);
console.log(`after: ${conditions()}`);
console.log(
  `workload: ${iters} iterations 30 calls below the timer "bench"; period ${period} us; ${rounds} rounds interleaved. ` +
    'CPU / wall = seconds of the process over the workload; handler = its own time per signal, µs; ' +
    'per signal = (CPU min - workload alone CPU min) / signals.',
);
printHandlerTable(configs, samples);

if (!haveTool('valgrind')) {
  console.log('\n(valgrind is not installed: no instruction counts)');
} else {
  const raw = join(dir, 'raw');
  mkdirSync(raw);
  const cg = (cmd: string, args: string[], env: NodeJS.ProcessEnv, out: string): number => {
    const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, cmd, ...args], {
      encoding: 'utf8',
      env: { ...process.env, HYPROF_RESOLVE: '0', HYPROF_DIR: raw, HYPROF_RAW_DIR: raw, HYPROF_THROTTLE: '0', ...env },
    });
    if (r.status !== 0) throw new Error(`valgrind ${cmd}: ${r.stderr.slice(-500)}`);
    return Number(/Collected : (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  };
  console.log('\nInstructions per sample (callgrind, 20,000,000 iterations of the workload, 1 kHz wall timer):');
  console.log('| configuration | samples | hp_sample_take per sample | hp_fold_sample per sample |');
  console.log('|---|---|---|---|');
  for (const c of configs.slice(1)) {
    const out = join(dir, 'cg.handler');
    cg(exe, ['hyprof', '20000000', period], { ...baseEnv, ...c.env }, out);
    const take = callgrindInclusive(out, 'hp_sample_take');
    const fold = callgrindInclusive(out, 'hp_fold_sample');
    const per = (x: { ir: number }) => (take.calls ? fmt(x.ir / take.calls, 0) : '–');
    console.log(`| ${c.name} | ${take.calls} | ${per(take)} | ${fold.calls ? per(fold) : '–'} |`);
  }
  const probe = compileC('fold-probe', [join(repoRoot, 'bench', 'fold-probe.c')], { outDir: dir, cflags: ['-O2', '-g'] });
  console.log('\nInstructions per probe pair (callgrind, (Ir(300,000) - Ir(100,000)) / 200,000):');
  console.log('| configuration | instructions per pair |');
  console.log('|---|---|');
  const probeConfigs: Array<[string, Record<string, string>]> = [
    ['folding off', {}],
    ['folding on, timer not folded', { HYPROF_FOLD: 'other' }],
    ['the timer folded', { HYPROF_FOLD: 'iteration' }],
  ];
  for (const [name, env] of probeConfigs) {
    const out = join(dir, 'cg.probe');
    const e = { HYPROF_SAMPLING: '0', ...env };
    const d = (cg(probe, ['300000'], e, out) - cg(probe, ['100000'], e, out)) / 200000;
    console.log(`| ${name} | ${fmt(d, 1)} |`);
  }
}
rmSync(dir, { recursive: true, force: true });

/**
 * bench/matmult: the cost of measuring a whole program, examples/matmult.c (single-threaded, scaled
 * to about 10 s), every configuration interleaved round by round, CPU time (user + system of the
 * process) and wall time, min and median.
 *
 * Two binaries, both built with 64-byte function and loop alignment so that where a loop happens to
 * sit cannot pass for the cost of the probes (unaligned, the inner loop of one build crossed a cache
 * line and "probes only" looked 11% slower):
 *   plain   — the source with -DHYPROF_NO_PROBES (no probe calls, no library);
 *   probed  — the source with its probes, linked with the runtime.
 * Each configuration is compared with the baseline of its own binary: plain with plain
 * uninstrumented, probed with the probed binary under an inert runtime (HYPROF_DISABLE=1: the same
 * code, the same calls, which return at once). The floor of any timer sampler is in the same run: the
 * same per-thread timer at the same rate with a handler that does nothing (bench/noop-timer.c).
 * Sampling at HYPROF_PERIOD_US (default 1000 µs), wall clock, libunwind.
 * Run: node dist/bench/matmult.js [scale] [rounds]   (default scale 7 = 35 iterations, 5 rounds)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { compileC, haveTool, libPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { Samples, alignFlags, conditions, fmt, interleave, measureCommand, pct } from './lib.js';

const scale = process.argv[2] ?? '7';
const rounds = Number(process.argv[3] ?? 5);
if (!(Number(scale) > 0) || !(rounds > 0)) {
  console.error('usage: node dist/bench/matmult.js [scale > 0] [rounds > 0]');
  process.exit(2);
}
const dir = tmpDir('bench-matmult');
const src = join(repoRoot, 'examples', 'matmult.c');
const cflags = ['-O2', '-g', ...alignFlags];
const plain = compileC('matmult-plain', [src], { link: false, cflags: [...cflags, '-DHYPROF_NO_PROBES'], outDir: dir });
const probed = compileC('matmult-probed', [src], { cflags, outDir: dir });
const noop = join(dir, 'noop-timer.so');
const cc = spawnSync('gcc', ['-O2', '-shared', '-fPIC', join(repoRoot, 'bench', 'noop-timer.c'), '-o', noop, '-lrt', '-ldl']);
if (cc.status !== 0) throw new Error(`noop-timer: ${cc.stderr}`);

const base = { ...process.env, MATMULT_SCALE: scale, HYPROF_RAW_DIR: dir, HYPROF_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_THROTTLE: '0' };
interface Config {
  name: string;
  baseline: string;
  cmd: string[];
  env: NodeJS.ProcessEnv;
}
const PLAIN = 'plain, uninstrumented';
const INERT = 'probed binary, runtime inert (HYPROF_DISABLE=1)';
const configs: Config[] = [
  { name: PLAIN, baseline: PLAIN, cmd: [plain], env: base },
  { name: 'plain + timer signal alone (no-op handler): the floor', baseline: PLAIN, cmd: [plain], env: { ...base, LD_PRELOAD: noop } },
  { name: 'plain + sampling (runtime preloaded, depth 10)', baseline: PLAIN, cmd: [plain], env: { ...base, LD_PRELOAD: libPath, HYPROF_SAMPLING: '1' } },
  { name: INERT, baseline: PLAIN, cmd: [probed], env: { ...base, HYPROF_DISABLE: '1' } },
  { name: 'probes only', baseline: INERT, cmd: [probed], env: { ...base, HYPROF_SAMPLING: '0' } },
  { name: 'hybrid: probes + sampling (depth 10)', baseline: INERT, cmd: [probed], env: { ...base, HYPROF_SAMPLING: '1' } },
  { name: 'hybrid, unwinding to the timer frame (depth 0)', baseline: INERT, cmd: [probed], env: { ...base, HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '0' } },
];
if (haveTool('perf')) {
  const perfArgs = ['record', '-q', '-F', '1000', '-g', '-o', join(dir, 'perf.data'), plain];
  if (spawnSync('perf', ['record', '-q', '-o', join(dir, 'probe.data'), 'true']).status === 0) {
    configs.push({ name: '`perf record -F 1000 -g` (plain)', baseline: PLAIN, cmd: ['perf', ...perfArgs], env: base });
  } else {
    console.log('(perf is installed but cannot record here: its row is left out)');
  }
}

const before = conditions();
const samples = new Samples();
interleave(configs, rounds, (c) => {
  const cost = measureCommand(c.cmd[0], c.cmd.slice(1), c.env, c.name);
  samples.add(`${c.name}|cpu`, cost.cpu);
  samples.add(`${c.name}|wall`, cost.wall);
});

console.log(`machine: ${before}`);
console.log(`after: ${conditions()}`);
console.log(
  `MATMULT_SCALE=${scale} (${5 * Number(scale)} iterations), ${rounds} rounds interleaved; seconds. ` +
    'CPU = user + system of the process; each overhead is against the baseline of its own binary, from the minima.',
);
console.log('| configuration | CPU min | CPU median | wall min | wall median | baseline | CPU overhead | wall overhead |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of configs) {
  const cpu = samples.get(`${c.name}|cpu`);
  const wall = samples.get(`${c.name}|wall`);
  const self = c.baseline === c.name;
  const bcpu = samples.get(`${c.baseline}|cpu`).min;
  const bwall = samples.get(`${c.baseline}|wall`).min;
  console.log(
    `| ${c.name} | ${fmt(cpu.min, 3)} | ${fmt(cpu.median, 3)} | ${fmt(wall.min, 3)} | ${fmt(wall.median, 3)} | ` +
      `${self ? '–' : c.baseline === PLAIN ? 'plain' : 'inert'} | ${self ? '–' : pct(cpu.min, bcpu)} | ${self ? '–' : pct(wall.min, bwall)} |`,
  );
}

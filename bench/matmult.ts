/**
 * bench/matmult: the cost of measuring examples/matmult.c (scaled to about 10 s), every
 * configuration in the same run, rounds rotated so drift hits all alike:
 *   uninstrumented (-DHYPROF_NO_PROBES) · probes only · sampling only (uninstrumented binary,
 *   runtime preloaded) · hybrid (probes + sampling) · `perf record -F 1000 -g` on the uninstrumented
 *   binary · the bare timer signal (a no-op handler on the same per-thread timer: the floor).
 * Sampling at HYPROF_PERIOD_US (default 1000 µs). Prints a markdown table for bench/RESULTS.md.
 * Run: node dist/bench/matmult.js [scale] [rounds]
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { compileC, haveTool, libPath, repoRoot, tmpDir } from '../test/helpers/native.js';

const scale = process.argv[2] ?? '7';
const rounds = Number(process.argv[3] ?? 3);
const dir = tmpDir('bench-matmult');
const src = join(repoRoot, 'examples', 'matmult.c');
const plain = compileC('matmult-plain', [src], { link: false, cflags: ['-O2', '-g', '-DHYPROF_NO_PROBES'], outDir: dir });
const probed = compileC('matmult-probed', [src], { cflags: ['-O2', '-g'], outDir: dir });
const noop = join(dir, 'noop-timer.so');
const cc = spawnSync('gcc', ['-O2', '-shared', '-fPIC', join(repoRoot, 'bench', 'noop-timer.c'), '-o', noop, '-lrt', '-ldl']);
if (cc.status !== 0) throw new Error(`noop-timer: ${cc.stderr}`);

const base = { ...process.env, MATMULT_SCALE: scale, HYPROF_RAW_DIR: dir, HYPROF_DIR: dir, HYPROF_RESOLVE: '0' };
interface Config {
  name: string;
  cmd: string[];
  env: NodeJS.ProcessEnv;
}
const configs: Config[] = [
  { name: 'uninstrumented', cmd: [plain], env: base },
  { name: 'timer signal alone (no-op handler)', cmd: [plain], env: { ...base, LD_PRELOAD: noop } },
  { name: 'probes only', cmd: [probed], env: { ...base, HYPROF_SAMPLING: '0' } },
  { name: 'sampling only (preloaded, unwind depth 10)', cmd: [plain], env: { ...base, LD_PRELOAD: libPath, HYPROF_SAMPLING: '1' } },
  { name: 'hybrid: probes + sampling (depth 10)', cmd: [probed], env: { ...base, HYPROF_SAMPLING: '1' } },
  { name: 'hybrid, unwind depth 0 (to the timer frame)', cmd: [probed], env: { ...base, HYPROF_SAMPLING: '1', HYPROF_UNWIND_DEPTH: '0' } },
];
if (haveTool('perf')) {
  configs.push({ name: 'perf record -F 1000 -g', cmd: ['perf', 'record', '-q', '-F', '1000', '-g', '-o', join(dir, 'perf.data'), plain], env: base });
}

/** Wall seconds of one run, start to exit (the program is single-threaded and CPU-bound). */
function once(c: Config): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(c.cmd[0], c.cmd.slice(1), { env: c.env, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${c.name} failed: ${r.stderr}`);
  return wall;
}

const walls = new Map<string, number[]>(configs.map((c) => [c.name, []]));
for (let r = 0; r < rounds; r++) {
  const order = configs.map((_, i) => configs[(i + r) % configs.length]);
  for (const c of order) walls.get(c.name)!.push(once(c));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const u = median(walls.get('uninstrumented')!);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; MATMULT_SCALE=${scale} (${5 * Number(scale)} iterations), median of ${rounds} rounds, wall time`);
console.log('| configuration | wall time | vs uninstrumented |');
console.log('|---|---|---|');
for (const c of configs) {
  const m = median(walls.get(c.name)!);
  console.log(`| ${c.name} | ${m.toFixed(2)} s | ${(((m - u) / u) * 100).toFixed(1)}% |`);
}

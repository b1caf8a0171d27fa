/**
 * bench/cpu-sampling-load: how exactly each CPU-time sampling source measures work on an idle and
 * on a loaded machine. test/native/compare_work.c does 0.25 s of CPU work in `scaled_work` in each of
 * its three iterations (probe-timed); `hyprof run` samples it with `itimer-cpu` (a POSIX timer on the
 * thread's CPU clock, checked by the kernel at its ticks), perf's `task-clock` and `cpu-clock`, and
 * `itimer-wall` for reference, idle and beside a CPU hog (one busy process per CPU and two more),
 * interleaved. Per source and condition: the samples in `scaled_work`'s own code per iteration (ms;
 * 250 is exact), min / median / max over every iteration of every round, and the probe timer's wall
 * time per iteration (how much the hog stretched it).
 * Run: node dist/bench/cpu-sampling-load.js [rounds]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { compareIterations } from '../test/helpers/compare-runs.js';
import { cliPath, compileC, cpuHog, tmpDir } from '../test/helpers/native.js';
import { conditions, fmt, interleave, summary } from './lib.js';

const rounds = Number(process.argv[2] ?? 3);
const exe = compileC('compare_work', ['compare_work.c'], { cflags: ['-O1', '-g', '-D_GNU_SOURCE'] });
const dir = tmpDir('cpu-sampling-load');
const sources = ['itimer-cpu', 'task-clock', 'cpu-clock', 'itimer-wall'];
const sampled = new Map<string, number[]>();
const wall = new Map<string, number[]>();

/** Per iteration of the main thread (test/helpers/compare-runs.ts). */
function iterations(profDir: string): Array<{ sampled: number; wall: number }> {
  const r = spawnSync(process.execPath, [cliPath, 'export', '--format', 'collapsed', '--thread', '0,0,0', profDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hyprof export failed: ${r.stderr}`);
  return [...compareIterations(r.stdout).values()];
}

console.log(`before: ${conditions()}`);
const configs = sources.flatMap((s) => [`${s} idle`, `${s} beside the hog`]);
interleave(configs, rounds, (config, round) => {
  const source = config.split(' ')[0];
  const out = join(dir, `${config.replace(/\W+/g, '-')}-${round}`);
  const hogs = config.endsWith('hog') ? cpuHog(2) : [];
  let r;
  try {
    r = spawnSync(process.execPath, [cliPath, 'run', '--dir', out, '--', exe, '1'], {
      env: { ...process.env, HYPROF_SAMPLE_SOURCE: source },
      encoding: 'utf8',
    });
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
  }
  if (r.status !== 0) throw new Error(`${config}: hyprof run failed: ${r.stderr}`);
  if (/cannot be opened/.test(r.stderr)) throw new Error(`${config}: ${r.stderr.trim()}`);
  for (const it of iterations(out)) {
    (sampled.get(config) ?? sampled.set(config, []).get(config)!).push(it.sampled);
    (wall.get(config) ?? wall.set(config, []).get(config)!).push(it.wall);
  }
});
console.log(`after: ${conditions()}`);
console.log(`${rounds} rounds, interleaved; 3 iterations of 250 ms of CPU work each\n`);
console.log('| source | condition | sampled per iteration, ms: min / median / max | wall per iteration, median ms |');
console.log('|---|---|---|---|');
for (const c of configs) {
  const s = sampled.get(c)!;
  const x = summary(s);
  const [source, ...rest] = c.split(' ');
  console.log(`| ${source} | ${rest.join(' ')} | ${fmt(x.min, 1)} / ${fmt(x.median, 1)} / ${fmt(Math.max(...s), 1)} | ${fmt(summary(wall.get(c)!).median, 0)} |`);
}

/**
 * bench/node-sampling: sampling overhead at 1 kHz on a CPU-bound script (bench/node-cpu-work.mjs),
 * next to `node --cpu-prof` (V8's sampler at the same 1 ms interval), all in one run; the time of
 * the work itself (measured in the script, so process start and writing the profile are excluded):
 * wall time and the process's CPU time over it, median of `rounds`, the order of the configurations
 * rotated every round (the machines are shared virtual machines: neighbours' load moves wall time).
 * Run: node dist/bench/node-sampling.js [rounds]
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot, tmpDir } from '../test/helpers/native.js';

const rounds = Number(process.argv[2] ?? 5);
const script = join(repoRoot, 'bench', 'node-cpu-work.mjs');
const index = join(repoRoot, 'dist', 'src', 'index.js');
const dir = tmpDir('node-sampling');
const base = { ...process.env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: dir, HYPROF_DIR: dir };

const configs: Array<[string, string[], Record<string, string>]> = [
  ['plain node', [script], {}],
  ['hyprof addon, probes only (sampling off)', [script, index], { HYPROF_SAMPLING: '0' }],
  ['hyprof addon, 1 kHz wall, unwinding (complete stacks, the default)', [script, index], { HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000' }],
  ['hyprof addon, 1 kHz wall, unwinding to depth 10', [script, index], { HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000', HYPROF_UNWIND_DEPTH: '10' }],
  ['hyprof addon, 1 kHz wall, no unwinding', [script, index], { HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000', HYPROF_UNWIND: '0' }],
  ['plain node with the perf map flags hyprof run adds', ['--perf-basic-prof', '--interpreted-frames-native-stack', script], {}],
  ['node --cpu-prof (1 ms interval)', ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', dir, script], {}],
  ['hyprof run -- node (preloaded, 1 kHz)', [cliPath, 'run', '--dir', join(dir, 'run'), '--', process.execPath, script, index], {}],
];

const times = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  const order = [...configs.slice(r % configs.length), ...configs.slice(0, r % configs.length)];
  for (const [name, args, env] of order) {
    let out = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...base, ...env } });
    // A rebuild (node-gyp rebuild empties build/) by someone else on the same checkout: wait, retry.
    for (let i = 0; i < 20 && out.status !== 0 && /No native build was found/.test(out.stderr); i++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 15_000);
      out = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...base, ...env } });
    }
    if (out.status !== 0) throw new Error(`${name} failed: ${out.stderr}`);
    const line = out.stdout.split('\n').find((l) => /^\d+(\.\d+)?\t/.test(l));
    if (!line) throw new Error(`${name}: no timing in output:\n${out.stdout}`);
    const [wall, cpuMs] = line.split('\t').map(Number);
    times.set(name, [...(times.get(name) ?? []), wall]);
    cpu.set(name, [...(cpu.get(name) ?? []), cpuMs]);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const plain = median(times.get('plain node')!);
const plainCpu = median(cpu.get('plain node')!);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; node ${process.version}; median of ${rounds} rounds`);
console.log('| configuration | work wall time | vs plain | process CPU time | vs plain |');
console.log('|---|---|---|---|---|');
for (const [name, xs] of times) {
  const m = median(xs);
  const c = median(cpu.get(name)!);
  const pct = (v: number, b: number) => `${v >= b ? '+' : ''}${(((v - b) / b) * 100).toFixed(1)}%`;
  console.log(`| ${name} | ${m.toFixed(0)} ms | ${pct(m, plain)} | ${c.toFixed(0)} ms | ${pct(c, plainCpu)} |`);
}

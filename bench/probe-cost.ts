/**
 * bench/probe-cost: nanoseconds per start/stop pair next to the uninstrumented loop and the clock
 * floor (two reads of CLOCK_MONOTONIC), all from the same run of bench/probe-cost.c, repeated
 * `rounds` times (median kept), in wall time and in the loop threads' own CPU time.
 * Run: node dist/bench/probe-cost.js [pairs] [rounds]
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { compileC, repoRoot } from '../test/helpers/native.js';

const pairs = Number(process.argv[2] ?? 10_000_000);
const rounds = Number(process.argv[3] ?? 5);
const exe = compileC('probe-cost', [join(repoRoot, 'bench', 'probe-cost.c')], { cflags: ['-O2', '-g'] });

const samples = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  const out = spawnSync(exe, [String(pairs)], { encoding: 'utf8', env: { ...process.env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: '/tmp' } });
  if (out.status !== 0) throw new Error(`probe-cost failed: ${out.stderr}`);
  for (const line of out.stdout.trim().split('\n')) {
    const [name, wall, cpu] = line.split(' ');
    for (const [key, ns] of [[`${name}:wall`, wall], [`${name}:cpu`, cpu]] as const)
      samples.set(key, [...(samples.get(key) ?? []), Number(ns)]);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = new Map([...samples].map(([k, v]) => [k, median(v)]));
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; ${pairs} pairs, median of ${rounds} rounds`);
console.log('| threads | time | uninstrumented | clock floor (2 reads) | by handle | by name | handle / floor | name / floor |');
console.log('|---|---|---|---|---|---|---|---|');
for (const t of [1, 2]) {
  for (const clock of ['wall', 'cpu']) {
    const get = (name: string) => m.get(`${name}_${t}t:${clock}`)!;
    const [u, f, h, n] = [get('uninstrumented'), get('clock_floor'), get('by_handle'), get('by_name')];
    console.log(`| ${t} | ${clock === 'cpu' ? 'CPU' : 'wall'} | ${u.toFixed(1)} ns | ${f.toFixed(1)} ns | ${h.toFixed(1)} ns | ${n.toFixed(1)} ns | ${(h / f).toFixed(2)} | ${(n / f).toFixed(2)} |`);
  }
}

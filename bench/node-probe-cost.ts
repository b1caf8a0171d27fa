/**
 * bench/node-probe-cost: nanoseconds per probe pair from JavaScript (start + stop around a call),
 * next to performance.mark/measure and the plain loop, from the same process (bench/node-probe-loop.mjs),
 * median of `rounds` processes. Target (issue 5): region pair <= 150 ns.
 * Run: node dist/bench/node-probe-cost.js [pairs] [rounds]
 */
import { spawnSync } from 'node:child_process';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/helpers/native.js';

const pairs = Number(process.argv[2] ?? 2_000_000);
const rounds = Number(process.argv[3] ?? 5);
const index = join(repoRoot, 'dist', 'src', 'index.js');

const samples = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  const once = () =>
    spawnSync(process.execPath, [join(repoRoot, 'bench', 'node-probe-loop.mjs'), index, String(pairs)], {
      encoding: 'utf8',
      env: { ...process.env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: tmpdir(), HYPROF_SAMPLING: '0' },
    });
  let out = once();
  // A rebuild (node-gyp rebuild empties build/) by someone else on the same checkout: wait, retry.
  for (let i = 0; i < 20 && out.status !== 0 && /No native build was found/.test(out.stderr); i++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 15_000);
    out = once();
  }
  if (out.status !== 0) throw new Error(`node-probe-loop failed: ${out.stderr}`);
  for (const line of out.stdout.trim().split('\n')) {
    const [name, ns] = line.split('\t');
    if (ns) samples.set(name, [...(samples.get(name) ?? []), Number(ns)]);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const empty = median(samples.get('empty loop (calls fn)')!);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; node ${process.version}; ${pairs} pairs, median of ${rounds} processes`);
console.log('| way | ns per pair (loop included) | minus the empty loop |');
console.log('|---|---|---|');
for (const [name, xs] of samples) {
  const m = median(xs);
  console.log(`| ${name} | ${m.toFixed(1)} | ${(m - empty).toFixed(1)} |`);
}

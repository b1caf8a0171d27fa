/**
 * bench/exec-cost: what the write before an exec costs (native/core/exec.c), against the same
 * program on an inert runtime (HYPROF_DISABLE=1: the same interposed calls, which return at once),
 * interleaved, CPU time of the whole process tree (wait4) beside wall time, min and median:
 *  - a loop of failed execs (a path that does not exist): each one writes the raw file of a small
 *    profile (20 timers) and fails: the cost per exec of the write alone;
 *  - a chain of images (the program exec's itself N times): per image, start-up included.
 * Probes only (HYPROF_SAMPLING=0) and with sampling (1 ms); raw files go to a temporary directory.
 * Run: node dist/bench/exec-cost.js [failed execs] [images] [rounds]
 */
import { rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, repoRoot, tmpDir } from '../test/helpers/native.js';
import { alignFlags, conditions, fmt, interleave, measureCommand, Samples } from './lib.js';

const failures = Number(process.argv[2] ?? 2000);
const images = Number(process.argv[3] ?? 200);
const rounds = Number(process.argv[4] ?? 7);
const dir = tmpDir('bench-exec');
const exe = compileC('exec-cost', [join(repoRoot, 'bench', 'exec-cost.c')], { cflags: ['-O2', '-g', ...alignFlags], outDir: dir });
const raw = join(dir, 'raw');

interface Config {
  name: string;
  env: Record<string, string>;
}
const configs: Config[] = [
  { name: 'inert runtime (HYPROF_DISABLE=1)', env: { HYPROF_DISABLE: '1' } },
  { name: 'probes', env: { HYPROF_SAMPLING: '0' } },
  { name: 'probes + sampling (1 ms)', env: { HYPROF_SAMPLING: '1' } },
];
const modes = [
  { mode: 'fail', n: failures, per: 'failed exec' },
  { mode: 'chain', n: images, per: 'image' },
];

const cpu = new Samples();
const wall = new Samples();
const before = conditions();
interleave(configs, rounds, (c) => {
  for (const m of modes) {
    rmSync(raw, { recursive: true, force: true });
    mkdirSync(raw);
    const env = { ...process.env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw, ...c.env };
    const r = measureCommand(exe, [m.mode, String(m.n)], env, `${c.name} ${m.mode}`);
    cpu.add(`${c.name}|${m.mode}`, r.cpu);
    wall.add(`${c.name}|${m.mode}`, r.wall);
  }
});
rmSync(dir, { recursive: true, force: true });
console.log(`${failures} failed execs, a chain of ${images} images, ${rounds} rounds interleaved; before: ${before}; after: ${conditions()}`);
for (const m of modes) {
  console.log('');
  console.log(`| configuration | µs per ${m.per}, CPU min | CPU median | wall min | wall median | added over inert, CPU median |`);
  console.log('|---|---|---|---|---|---|');
  const us = (s: number) => (s * 1e6) / m.n;
  const floor = us(cpu.get(`${configs[0].name}|${m.mode}`).median);
  for (const c of configs) {
    const k = `${c.name}|${m.mode}`;
    const cm = us(cpu.get(k).median);
    console.log(
      `| ${c.name} | ${fmt(us(cpu.get(k).min), 1)} | ${fmt(cm, 1)} | ${fmt(us(wall.get(k).min), 1)} | ${fmt(us(wall.get(k).median), 1)} | ${c === configs[0] ? '–' : fmt(cm - floor, 1)} |`,
    );
  }
}

/**
 * What hyprof's compiler wrapper adds to one compiler call, as `make` calls it once per file: `gcc -c`
 * of a small C file on its own, through bin/hyprof-cc (a shell script) and through `hyprof cc` (the
 * Node CLI, as `npx hyprof cc` runs it, without npx's own start-up), interleaved, wall and CPU
 * seconds (the process and its children), min and median. The added cost is the wrapper's figure
 * minus gcc's; the instrumentation flags make gcc itself do a little more, which is in both
 * wrappers' figures alike.
 *
 *   node dist/bench/cc-wrapper.js [rounds]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { conditions, fmt, interleave, measureCommand, Samples } from './lib.js';

const rounds = Number(process.argv[2] ?? 15);
const dir = tmpDir('bench-cc');
const src = join(dir, 'unit.c');
writeFileSync(src, 'static int sq(int x) { return x * x; }\nint unit(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }\n');
const obj = join(dir, 'unit.o');
const env = { ...process.env, CC: 'gcc' };

const configs: Array<{ name: string; cmd: string; args: string[] }> = [
  { name: 'gcc -c', cmd: 'gcc', args: ['-O2', '-c', src, '-o', obj] },
  { name: 'bin/hyprof-cc -c', cmd: join(repoRoot, 'bin', 'hyprof-cc'), args: ['-O2', '-c', src, '-o', obj] },
  { name: 'hyprof cc -c (node)', cmd: process.execPath, args: [cliPath, 'cc', '-O2', '-c', src, '-o', obj] },
];
const s = new Samples();
for (const c of configs) measureCommand(c.cmd, c.args, env, c.name); // warm the file cache
interleave(configs, rounds, (c) => {
  const cost = measureCommand(c.cmd, c.args, env, c.name);
  s.add(`${c.name} wall`, cost.wall);
  s.add(`${c.name} cpu`, cost.cpu);
});

console.log(`# compiler wrapper cost, ${rounds} rounds interleaved; ${conditions()}`);
console.log('| command | wall s min / median | CPU s min / median | added CPU s (median, over gcc) |');
console.log('|---|---|---|---|');
const base = s.get('gcc -c cpu').median;
for (const c of configs) {
  const w = s.get(`${c.name} wall`);
  const u = s.get(`${c.name} cpu`);
  console.log(`| ${c.name} | ${fmt(w.min, 3)} / ${fmt(w.median, 3)} | ${fmt(u.min, 3)} / ${fmt(u.median, 3)} | ${fmt(u.median - base, 3)} |`);
}

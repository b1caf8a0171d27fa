/**
 * bench/node-vs-cpuprof: hyprof on a real Node program against `node --cpu-prof` on the same
 * workload (by default the TypeScript compiler checking this repository, `tsc -p . --noEmit`).
 *
 * Configurations, interleaved (bench/lib.ts), each a whole process measured with wait4's rusage:
 *   - plain node;
 *   - node --cpu-prof (V8's sampler, 1 ms interval);
 *   - node with the hyprof runtime preloaded as `hyprof run` starts it (1 kHz), writing a raw file,
 *     JavaScript code named from V8's JIT code events (the V8 part); then `hyprof resolve` of that
 *     raw file, timed on its own;
 *   - the same with HYPROF_V8_JIT=0: V8's perf map instead of the code event handler (the
 *     difference between the two is the handler's cost against the perf map's).
 * From the last round of each profiler, the main thread's top-20 functions by self time:
 *   - cpuprofile: samples per node, keyed `function file-basename` ("(garbage collector)" etc. as V8
 *     names them);
 *   - hyprof: [SAMPLE] leaves of thread 0 (exclusive time), keyed the same way; hyprof's V8 groups
 *     ("(garbage collector)" ...) are used as they are;
 * and the Spearman rank correlation over the union of the two top-20 lists (a function missing from
 * one list takes the rank after its last), the unresolved share of the main thread's samples, the
 * output sizes, the number of threads in the profile.
 * Run: node dist/bench/node-vs-cpuprof.js [rounds] [-- node-args...]
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { childEnv } from '../src/cli/cmd-run.js';
import { requireRuntime } from '../src/cli/package-root.js';
import { removePerfMaps } from '../src/cli/run-perf-maps.js';
import { readTauProfileDir } from '../src/output/tau-reader.js';
import { cliPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { conditions, fmt, interleave, measureCommand, pct, Samples } from './lib.js';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const rounds = Number(argv[0] && argv[0] !== '--' ? argv[0] : 3);
const nodeArgs = dash >= 0 ? argv.slice(dash + 1) : [join(repoRoot, 'node_modules', 'typescript', 'lib', 'tsc.js'), '-p', repoRoot, '--noEmit'];
const dir = tmpDir('node-vs-cpuprof');
const node = process.execPath;

type Config = 'plain node' | 'node --cpu-prof' | 'hyprof (preloaded)' | 'hyprof, perf map';
const configs: Config[] = ['plain node', 'node --cpu-prof', 'hyprof (preloaded)', 'hyprof, perf map'];
const wall = new Samples();
const cpu = new Samples();
let cpuprofFile = '';
let rawDir = '';
let rawFile = '';

function dirSize(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((a, f) => a + dirSize(join(path, f)), 0);
}

const before = conditions();
interleave(configs, rounds, (config, round) => {
  const base = { ...process.env, NODE_OPTIONS: '' };
  let cost;
  if (config === 'plain node') cost = measureCommand(node, nodeArgs, base, config);
  else if (config === 'node --cpu-prof') {
    const d = join(dir, `cpuprof-${round}`);
    cost = measureCommand(node, ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', d, ...nodeArgs], base, config);
    cpuprofFile = join(d, readdirSync(d)[0]);
  } else if (config === 'hyprof, perf map') {
    const perfDir = join(dir, `raw-perf-map-${round}`);
    const env = childEnv({ ...base, HYPROF_V8_JIT: '0' }, requireRuntime(), perfDir, { sampling: true });
    delete env.HYPROF_RUN_PARENT;
    cost = measureCommand(node, nodeArgs, env, config);
    removePerfMaps(readdirSync(perfDir).map((f) => join(perfDir, f)));
  } else {
    rawDir = join(dir, `raw-${round}`);
    const env = childEnv(base, requireRuntime(), rawDir, { sampling: true });
    delete env.HYPROF_RUN_PARENT;
    cost = measureCommand(node, nodeArgs, env, config);
    const out = join(dir, `prof-${round}`);
    rmSync(out, { recursive: true, force: true });
    // the rusage wrapper (bench/cputime.c) runs preloaded too and writes a small raw file of its own
    const raw = readdirSync(rawDir)
      .map((f) => join(rawDir, f))
      .sort((a, b) => statSync(b).size - statSync(a).size)[0];
    const r = measureCommand(node, [cliPath, 'resolve', '-o', out, raw], process.env, 'hyprof resolve');
    rawFile = raw;
    wall.add('hyprof resolve', r.wall);
    cpu.add('hyprof resolve', r.cpu);
  }
  wall.add(config, cost.wall);
  cpu.add(config, cost.cpu);
});
const after = conditions();

// ---- the main thread's top 20 by self time ----
interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const key = (fn: string, file: string) => (file ? `${fn || '(anonymous)'} ${basename(file)}` : fn || '(anonymous)');
function cpuprofSelf(file: string): Map<string, number> {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: CpuNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(root)') return;
    const k = key(f.functionName, f.url.replace(/^file:\/\//, ''));
    self.set(k, (self.get(k) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return self;
}
function hyprofSelf(profDir: string): { self: Map<string, number>; unresolved: number; total: number; threads: number } {
  const prof = readTauProfileDir(profDir);
  const threads = prof.threads[0];
  const main = threads.find((t) => t.thread === 0)!;
  const self = new Map<string, number>();
  let unresolved = 0;
  let total = 0;
  for (const e of main.events) {
    if (e.name.includes(' => ')) continue; // flat events only: each sample once
    const m = /^\[SAMPLE\] (.*?)(?: \[\{(.*)\} \{(\d+)(?:,\d+)?\}\])?$/.exec(e.name);
    if (!m) continue;
    const ms = e.excl / 1000;
    total += ms;
    if (/UNRESOLVED/.test(m[1])) unresolved += ms;
    const k = key(m[1], m[2] ?? '');
    self.set(k, (self.get(k) ?? 0) + ms);
  }
  return { self, unresolved, total, threads: threads.length };
}
const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 20);
function spearman(a: Array<[string, number]>, b: Array<[string, number]>): number {
  const keys = [...new Set([...a.map((x) => x[0]), ...b.map((x) => x[0])])];
  const rank = (l: Array<[string, number]>, k: string) => {
    const i = l.findIndex((x) => x[0] === k);
    return i >= 0 ? i + 1 : l.length + 1;
  };
  const ra = keys.map((k) => rank(a, k));
  const rb = keys.map((k) => rank(b, k));
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < keys.length; i++) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}

const lastProf = join(dir, `prof-${rounds - 1}`);
const c = cpuprofSelf(cpuprofFile);
const h = hyprofSelf(lastProf);
const cTotal = [...c.values()].reduce((a, x) => a + x, 0);
const cTop = top(c);
const hTop = top(h.self);

console.log(`workload: node ${nodeArgs.map((a) => a.replace(repoRoot, '.')).join(' ')}`);
console.log(`before: ${before}\nafter: ${after}\n${rounds} rounds, interleaved`);
console.log('\n| configuration | wall min | wall median | CPU min | CPU median | CPU vs plain (median) |');
console.log('|---|---|---|---|---|---|');
const plainCpu = cpu.get('plain node').median;
for (const k of [...configs, 'hyprof resolve']) {
  const w = wall.get(k);
  const p = cpu.get(k);
  console.log(`| ${k} | ${fmt(w.min)} s | ${fmt(w.median)} s | ${fmt(p.min)} s | ${fmt(p.median)} s | ${k === 'hyprof resolve' ? '' : pct(p.median, plainCpu)} |`);
}
console.log(`\noutput: .cpuprofile ${(dirSize(cpuprofFile) / 1e6).toFixed(1)} MB; hyprof raw ${(dirSize(rawFile) / 1e6).toFixed(1)} MB, profile ${(dirSize(lastProf) / 1e6).toFixed(1)} MB (${h.threads} thread profiles)`);
console.log(`main thread: hyprof ${fmt(h.total, 0)} ms sampled, unresolved ${fmt((100 * h.unresolved) / h.total, 1)} %; cpuprofile ${fmt(cTotal, 0)} ms`);
console.log(`Spearman rank correlation of the top 20 (union of both lists): ${fmt(spearman(cTop, hTop))}`);
console.log('\n| # | --cpu-prof | % | hyprof | % |');
console.log('|---|---|---|---|---|');
for (let i = 0; i < 20; i++) {
  const a = cTop[i];
  const b = hTop[i];
  console.log(`| ${i + 1} | ${a ? a[0] : ''} | ${a ? fmt((100 * a[1]) / cTotal, 1) : ''} | ${b ? b[0] : ''} | ${b ? fmt((100 * b[1]) / h.total, 1) : ''} |`);
}

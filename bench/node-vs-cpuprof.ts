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
 * From the last round of each profiler, the main thread's top-20 functions by self time, keyed alike,
 * and their Spearman rank correlation (bench/cpuprof-compare.ts: hyprof's samples by their leaf and
 * by --cpu-prof's rule, the innermost JavaScript frame), the unresolved share of the main thread's
 * samples, the output sizes, the number of threads in the profile.
 * The side-by-side table shows each profiler's top 30 (the correlation is over the top 20); the
 * measurement directory is printed, so that the last round's raw file can be resolved again and
 * compared with its .cpuprofile (bench/cpuprof-compare.ts).
 * Workloads: the default above, or `-- bench/node-idle.mjs`, a mostly idle timer-driven program
 * (about 3 s), where what a profiler costs is mostly its cost on the process's idle threads.
 * Also the unresolved share of every thread profile's samples (main thread and each worker), from the
 * last round. Each worker thread is compared with its own `.cpuprofile` (`--cpu-prof` writes one per
 * thread; matched by Node's threadId) as the main thread is: all rounds added up against hyprof's
 * thread of that worker, beside --cpu-prof's odd rounds against its even rounds for that worker.
 * The `.cpuprofile` size is all the thread files of the last round. `--no-perf-map` leaves the perf-map configuration out (bench/node-programs.ts).
 * Run: node dist/bench/node-vs-cpuprof.js [rounds] [--no-perf-map] [-- node-args...]
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv } from '../src/run/run-measured.js';
import { requireRuntime } from '../src/base/package-root.js';
import { removePerfMaps } from '../src/run/run-perf-maps.js';
import { asHyprofRun, largestRaw } from './node-run.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { readStacksFiles, STACKS_FILE } from '../src/profile/stacks-file.js';
import { cliPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { AGREEMENT_HEAD, agreementLines, comparison, cpuprofFilesByThread, cpuprofSelf, floorLines, hyprofSelf, hyprofWorkers, sumCpuprof, sumHyprof, type CpuprofSelf } from './cpuprof-compare.js';
import { conditions, fmt, interleave, measureCommand, pct, Samples } from './lib.js';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const rounds = Number(argv[0] && !argv[0].startsWith('--') ? argv[0] : 3);
const perfMap = !argv.slice(0, dash >= 0 ? dash : argv.length).includes('--no-perf-map');
const nodeArgs = dash >= 0 ? argv.slice(dash + 1) : [join(repoRoot, 'node_modules', 'typescript', 'lib', 'tsc.js'), '-p', repoRoot, '--noEmit'];
const dir = tmpDir('node-vs-cpuprof');
const node = process.execPath;

type Config = 'plain node' | 'node --cpu-prof' | 'hyprof (preloaded)' | 'hyprof, perf map';
const configs: Config[] = ['plain node', 'node --cpu-prof', 'hyprof (preloaded)', ...(perfMap ? ['hyprof, perf map' as const] : [])];
const wall = new Samples();
const cpu = new Samples();
let cpuprofFile = '';
let cpuprofDir = '';
const cpuprofFiles: string[] = [];
/** Each round's --cpu-prof directory: one file per thread that ran JavaScript (workers too). */
const cpuprofDirs: string[] = [];
const profDirs: string[] = [];
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
    // the main thread's file (threadId 0); the workers' files are compared below, per worker
    cpuprofFile = cpuprofFilesByThread(d).get(0) ?? join(d, readdirSync(d)[0]);
    cpuprofFiles.push(cpuprofFile);
    cpuprofDir = d;
    cpuprofDirs.push(d);
  } else if (config === 'hyprof, perf map') {
    const perfDir = join(dir, `raw-perf-map-${round}`);
    const env = childEnv({ ...base, HYPROF_V8_JIT: '0' }, requireRuntime(), perfDir, { sampling: true });
    delete env.HYPROF_RUN_PARENT;
    cost = measureCommand(node, nodeArgs, env, config);
    removePerfMaps(readdirSync(perfDir).map((f) => join(perfDir, f)));
  } else {
    rawDir = join(dir, `raw-${round}`);
    mkdirSync(rawDir, { recursive: true });
    // as `hyprof run -- node ...` starts it: with V8's code log (src/run/run-node-jit.ts)
    const { env, args } = asHyprofRun(base, rawDir, nodeArgs);
    cost = measureCommand(node, args, env, config);
    const out = join(dir, `prof-${round}`);
    rmSync(out, { recursive: true, force: true });
    const raw = largestRaw(rawDir);
    const r = measureCommand(node, [cliPath, 'resolve', '-o', out, raw], process.env, 'hyprof resolve');
    rawFile = raw;
    profDirs.push(out);
    wall.add('hyprof resolve', r.wall);
    cpu.add('hyprof resolve', r.cpu);
  }
  wall.add(config, cost.wall);
  cpu.add(config, cost.cpu);
});
const after = conditions();

/** The most frames of any stack of the stacks files (0 when there are none). */
function deepest(profDir: string): number {
  let max = 0;
  for (const f of readStacksFiles(profDir)) {
    for (const t of f.threads) {
      const depth: number[] = [];
      t.parent.forEach((p, i) => {
        depth[i] = p < 0 ? 1 : depth[p] + 1;
        max = Math.max(max, depth[i]);
      });
    }
  }
  return max;
}

const lastProf = join(dir, `prof-${rounds - 1}`);

/** Each thread profile's share of samples in UNRESOLVED frames (the sample's leaf), in percent. */
function unresolvedByThread(profDir: string): string {
  const shares: string[] = [];
  for (const t of readTauProfileDir(profDir).threads[0]) {
    let total = 0;
    let unresolved = 0;
    for (const e of t.events) {
      if (!e.group.includes('TAU_CALLPATH') || !e.group.includes('TAU_SAMPLE')) continue;
      const leaf = e.name.split(' => ').pop()!.trim();
      if (!leaf.startsWith('[SAMPLE]')) continue;
      total += e.excl;
      if (/UNRESOLVED/.test(leaf)) unresolved += e.excl;
    }
    if (total > 0) shares.push(`thread ${t.thread} ${fmt((100 * unresolved) / total, 2)} %`);
  }
  return shares.join(', ');
}
const hs = profDirs.map((d) => hyprofSelf(d));
const h = hs[hs.length - 1];
const cs = cpuprofFiles.map(cpuprofSelf);

console.log(`measurements kept in ${dir}`);
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
const cpuprofCount = cpuprofFilesByThread(cpuprofDir).size;
console.log(`\noutput: .cpuprofile ${(dirSize(cpuprofDir) / 1e6).toFixed(1)} MB (${cpuprofCount} thread files, main thread's ${(dirSize(cpuprofFile) / 1e6).toFixed(1)} MB); hyprof raw ${(dirSize(rawFile) / 1e6).toFixed(1)} MB, profile ${(dirSize(lastProf) / 1e6).toFixed(1)} MB (${h.threads} thread profiles)`);
console.log(`unresolved samples by thread (last round): ${unresolvedByThread(lastProf)}`);
console.log('\n### The last round\n');
console.log(comparison(cs[cs.length - 1], h, cs.length > 1 ? cs[cs.length - 2] : undefined));
if (rounds > 1) {
  // every round added up: more samples, less of the noise of one run (the floor: the odd rounds of
  // --cpu-prof against the even ones)
  console.log(`\n### All ${rounds} rounds added up\n`);
  const odd = sumCpuprof(cs.filter((_, i) => i % 2 === 1));
  const even = sumCpuprof(cs.filter((_, i) => i % 2 === 0));
  // the summary lines of the comparison (the side-by-side table is the last round's, above)
  console.log(comparison(sumCpuprof(cs), sumHyprof(hs)).split('\n').slice(0, 6).join('\n'));
  console.log(floorLines(even, odd, 'odd rounds against even rounds').join('\n'));
}
// Each worker thread against its own .cpuprofile (matched by Node's threadId), as the main thread:
// the last round, then every round added up beside --cpu-prof's odd rounds against its even rounds.
const workerIds = [...cpuprofFilesByThread(cpuprofDir).keys()].filter((id) => id > 0).sort((a, b) => a - b);
if (workerIds.length > 0) {
  console.log('\n### Worker threads, each against its own .cpuprofile\n');
  console.log(AGREEMENT_HEAD[0].replace('| --cpu-prof against', '| worker (threadId) | against --cpu-prof'));
  console.log(`|---${AGREEMENT_HEAD[1]}`);
  for (const id of workerIds) {
    const cRounds: CpuprofSelf[] = [];
    const hRounds = [];
    for (let i = 0; i < cpuprofDirs.length; i++) {
      const c = cpuprofFilesByThread(cpuprofDirs[i]).get(id);
      const thread = profDirs[i] ? hyprofWorkers(profDirs[i]).get(id) : undefined;
      if (c) cRounds.push(cpuprofSelf(c));
      if (thread !== undefined) hRounds.push(hyprofSelf(profDirs[i], thread));
    }
    if (cRounds.length === 0 || hRounds.length === 0) {
      console.log(`| worker ${id} | no hyprof thread profile named worker ${id} | | | | |`);
      continue;
    }
    const c = sumCpuprof(cRounds);
    const h = sumHyprof(hRounds);
    console.log(agreementLines(c, h, `worker ${id} | all rounds: `).join('\n'));
    if (cRounds.length > 1) {
      const odd = sumCpuprof(cRounds.filter((_, i) => i % 2 === 1));
      const even = sumCpuprof(cRounds.filter((_, i) => i % 2 === 0));
      console.log(floorLines(even, odd, 'odd rounds against even rounds', `worker ${id} | `).join('\n'));
    }
    console.log(`| worker ${id} | unresolved (hyprof, all rounds): ${fmt((100 * h.unresolved) / h.total, 2)} % of ${fmt(h.total / 1000, 1)} s | | | | |`);
  }
}
// The targets: the profile directory within 1x of the .cpuprofiles (all threads), resolve quicker than the run.
const stacksBytes = readdirSync(lastProf).filter((f) => STACKS_FILE.test(f)).reduce((a, f) => a + dirSize(join(lastProf, f)), 0);
const mainMeta = readTauProfileDir(lastProf).threads[0].find((t) => t.thread === 0)!.metadata;
const metaOf = (k: string) => mainMeta.find(([key]) => key === k)?.[1] ?? '0';
console.log(
  `profile directory / .cpuprofile: ${fmt(dirSize(lastProf) / dirSize(cpuprofDir), 2)} (stacks files ${(stacksBytes / 1e6).toFixed(2)} MB); ` +
    `resolve / program wall (medians): ${fmt(wall.get('hyprof resolve').median / wall.get('hyprof (preloaded)').median, 2)}`,
);
console.log(
  `main thread: dropped table_full ${metaOf('hyprof dropped table_full')}, unwind_truncated ${metaOf('hyprof dropped unwind_truncated')}; ` +
    `chain depth ${metaOf('hyprof unwind chain depth')}, samples in shortened chains ${metaOf('hyprof samples in shortened chains')}; ` +
    `deepest stack ${deepest(lastProf)} frames`,
);

/**
 * Sampling a real JavaScript workload (test/native/node_real.mjs: the TypeScript compiler from
 * node_modules checking generated source, in a region across awaits, and in a worker thread) under
 * `hyprof run -- node`: JavaScript functions named with their files, V8's builtins moved next to the
 * JIT code resolved, garbage collection named, JavaScript callers unwound, JIT code named from V8's
 * code events (no perf map created).
 */
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readStacksFiles } from '../src/profile/stacks-file.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { perfMapPath } from '../src/symbolize/perf-map.js';
import { hyprof, repoRoot, testNativeDir, tmpDir } from './helpers/native.js';

const app = join(testNativeDir, 'node_real.mjs');
const tsLib = createRequire(import.meta.url).resolve('typescript');

interface Leaf {
  name: string;
  path: string;
  excl: number;
}

const run = (async () => {
  const out = join(tmpDir('node-real'), 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, app], {
    env: { HYPROF_MODULE: join(repoRoot, 'dist', 'src', 'index.js'), NODE_OPTIONS: undefined },
    timeoutMs: 270_000, // about 40 s on 2 idle cores; a loaded CI machine stretched it past 170 s (ava gives up at 5 min)
  });
  // a run that failed (or ran past the time limit) has no profile to read: say why, not "no profile"
  if (r.code !== 0) throw new Error(`hyprof run -- node ${app} exited ${r.code} (signal ${r.signal}):\n${r.stderr.slice(-2000)}`);
  const threads = readTauProfileDir(out).threads[0];
  // every sample once: the leaf entries of the full paths
  const leaves = (thread: number): Leaf[] =>
    threads
      .find((t) => t.thread === thread)!
      .events.filter((e) => e.group.includes('TAU_CALLPATH') && e.group.includes('TAU_SAMPLE') && / => \[SAMPLE\] /.test(e.name))
      .map((e) => ({ name: e.name.slice(e.name.lastIndexOf(' => [SAMPLE] ') + 4), path: e.name, excl: e.excl }));
  return { r, out, threads, leaves };
})();

const share = (ls: Leaf[], pick: (l: Leaf) => boolean) => ls.filter(pick).reduce((a, l) => a + l.excl, 0) / ls.reduce((a, l) => a + l.excl, 0);

test('JavaScript functions of a bundled library are named with their file; < 5 % unresolved', async (t) => {
  const { r, leaves } = await run;
  t.is(r.code, 0, r.stderr);
  const main = leaves(0);
  t.true(main.length > 0);
  const unresolved = share(main, (l) => /UNRESOLVED/.test(l.name));
  t.true(unresolved < 0.05, `unresolved share of the main thread ${(100 * unresolved).toFixed(1)} %`);
  const inTs = share(main, (l) => l.name.includes(`{${tsLib}}`));
  t.true(inTs > 0.2, `share of samples in typescript.js functions: ${(100 * inTs).toFixed(1)} %`);
  // a typescript function by its name and a line of it: the sampled line in optimised code, else the
  // line where it starts
  const lines = readFileSync(tsLib, 'utf8').split('\n');
  const named = main.find((l) => new RegExp(`^\\[SAMPLE\\] \\w+ \\[\\{${tsLib.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\} \\{\\d+\\}\\]$`).test(l.name));
  t.truthy(named);
  const [, fn, line] = /^\[SAMPLE\] (\w+) \[\{.*\} \{(\d+)\}\]$/.exec(named!.name)!;
  // V8 names a class's constructor by the class: its line then reads `constructor(`, and the class
  // of that name (`class X` or, as this bundle writes them, `X = class`) encloses it.
  const at = Number(line) - 1;
  const classAbove = (): boolean =>
    lines.slice(Math.max(0, at - 3000), at).some((l) => new RegExp(`\\bclass ${fn}\\b|\\b${fn} = class\\b`).test(l));
  const startsAbove = (): boolean => lines.slice(Math.max(0, at - 3000), at + 1).some((l) => new RegExp(`\\b${fn}\\b`).test(l));
  t.true(startsAbove() || (/\bconstructor\s*\(/.test(lines[at]) && classAbove()), `${fn} at line ${line}: ${lines[at]}`);
});

test('garbage collection is named as such, V8 builtins count for their JavaScript caller', async (t) => {
  const { leaves } = await run;
  const main = leaves(0);
  t.true(main.some((l) => l.name === '[SAMPLE] (garbage collector)'), 'no (garbage collector) sample');
  // no V8 collector internals as leaves: they are inside (garbage collector)
  t.false(main.some((l) => /\[SAMPLE\] .*v8::internal::(Scavenger|MarkCompactCollector)::/.test(l.name)));
  const builtins = share(main, (l) => /\[SAMPLE\] Builtins_/.test(l.name));
  t.true(builtins < 0.1, `builtins as leaves: ${(100 * builtins).toFixed(1)} %`);
});

test('JavaScript callers in the unwound chains; samples in the region across awaits; the worker is sampled', async (t) => {
  const { leaves, threads, out } = await run;
  const main = leaves(0);
  // a typescript function calling another, both by name and file, through JIT frames' frame
  // pointers: in the complete stacks (the stacks file). TAU's [UNWIND] chains keep only chains with
  // 0.5 % of the thread's samples (RARE_CHAIN_SHARE), which on a loaded machine's few samples may
  // hold no such pair.
  const ts = `{${tsLib}}`;
  const [stacks] = readStacksFiles(out);
  t.truthy(stacks, `no stacks file in ${out}`);
  const st = stacks.threads.find((x) => x.thread === 0)!;
  const inTsFile = (i: number): boolean => i >= 0 && stacks.frames[st.frame[i]][1] === tsLib;
  t.true(
    st.parent.some((p, i) => inTsFile(i) && inTsFile(p)),
    'no typescript caller of a typescript function in the stacks',
  );
  const inRegion = main.filter((l) => l.path.includes('[CONTEXT] compile work') && l.name.includes(ts));
  t.true(inRegion.length > 0, 'typescript samples under [CONTEXT] compile work');
  const worker = threads.filter((x) => x.thread !== 0).map((x) => leaves(x.thread)).find((ls) => ls.some((l) => l.name.includes(ts)));
  t.truthy(worker, 'a worker thread with samples in typescript.js');
});

test("no perf map: JIT code is named from the V8 part's code events", async (t) => {
  const { r, out } = await run;
  const pid = Number(/pid (\d+)/.exec(r.stdout)?.[1]);
  t.true(pid > 0, r.stdout);
  t.regex(r.stdout, /perf map mode none$/m);
  t.false(existsSync(perfMapPath(pid)), `${perfMapPath(pid)} left behind`);
  t.true(existsSync(out));
});

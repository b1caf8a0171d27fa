/**
 * The DWARF unwinder's fast path (native/sample/cfi.c: unwind rules read from .eh_frame and kept per
 * thread) against libunwind, the unwinder of record. The runtime is compiled into a program with
 * -DHYPROF_UNWIND_CROSSCHECK: every sample the rule table unwinds is unwound by libunwind as well,
 * and the two stacks (frames, depth, truncation) must be identical. Programs of many shapes (deep
 * recursion, libc calling back into the program, libm, a variable-length array, signals in
 * prologues and PLT stubs, nested timers, two threads; built as C++ also personality routines and
 * landing pads), compiled by gcc and clang at -O2 (no frame pointers) and -O0, sampled at 5 kHz to
 * the timer's frame and at depth 10.
 */
import test from 'ava';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readRawFile } from '../src/samples/raw-reader.js';
import { repoRoot, run, runtimeSources, tmpDir } from './helpers/native.js';

const sources = runtimeSources();

/** The runtime (C) and the test program (C, or C++ with `cxx`) in one executable. */
function build(label: string, cc: string, opt: string, cxx: boolean): string {
  const out = join(tmpDir('unwind-build'), 'sample_unwind');
  const program = join(repoRoot, 'test', 'native', 'sample_unwind.c');
  const args = [
    opt,
    '-g',
    '-DHYPROF_UNWIND_CROSSCHECK',
    `-I${join(repoRoot, 'native', 'include')}`,
    `-I${join(repoRoot, 'native')}`,
    ...(cxx ? ['-x', 'c', '-std=gnu11', ...sources, '-x', 'c++', program, '-x', 'none'] : ['-std=gnu11', ...sources, program]),
    '-o',
    out,
    '-lunwind',
    '-lunwind-x86_64',
    '-ldl',
    '-lpthread',
    '-lrt',
    '-lm',
    ...(cxx ? ['-lstdc++'] : []),
  ];
  const r = spawnSync(cc, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${label}: ${cc} ${args.join(' ')}\n${r.stderr}`);
  return out;
}

const builds: Array<[string, string, string, boolean]> = [
  ['gcc -O2', 'gcc', '-O2', false],
  ['gcc -O0', 'gcc', '-O0', false],
  ['clang -O2', 'clang', '-O2', false],
  ['gcc -O2, the program as C++', 'gcc', '-O2', true],
];

for (const [label, cc, opt, cxx] of builds) {
  test(`${label}: the rule table unwinds exactly as libunwind does`, async (t) => {
    const exe = build(label, cc, opt, cxx);
    for (const depth of ['0', '10']) {
      const dir = tmpDir('unwind');
      const r = await run(exe, ['400', '60'], {
        env: { HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '200', HYPROF_UNWIND_DEPTH: depth, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: dir },
        timeoutMs: 90_000,
      });
      t.is(r.code, 0, r.stderr);
      const m = /crosscheck (\d+) (\d+) (\d+)/.exec(r.stdout);
      t.truthy(m, r.stdout);
      const [fast, slow, differ] = m!.slice(1).map(Number);
      t.log(`depth ${depth}: ${fast} samples by the table (each checked against libunwind), ${slow} by libunwind alone`);
      t.is(differ, 0, `depth ${depth}: stacks that differ from libunwind's`);
      // the program runs until 400 samples were taken (or 60 s passed, which only an overloaded
      // machine reaches: then the count says so)
      t.true(fast + slow + differ >= 400, `depth ${depth}: ${fast + slow + differ} samples in 60 s`);
      t.true(fast >= 0.9 * (fast + slow), `depth ${depth}: most samples take the fast path (${fast} of ${fast + slow})`);
    }
  });
}

// The runtime compiled into the program: the executable is the program's code as much as the
// runtime's, so samples there are the program's (the in_tool flag covers probes and callbacks);
// before, every one of them was dropped as the tool's.
test('the runtime built into the program: samples in the program\'s own code are kept', async (t) => {
  const dir = tmpDir('builtin');
  const exe = join(tmpDir('builtin-build'), 'sample_builtin');
  const args = ['-std=gnu11', '-O2', '-g', `-I${join(repoRoot, 'native', 'include')}`, `-I${join(repoRoot, 'native')}`, ...sources,
    join(repoRoot, 'test', 'native', 'sample_builtin.c'), '-o', exe, '-lunwind', '-lunwind-x86_64', '-ldl', '-lpthread', '-lrt'];
  const b = spawnSync('gcc', args, { encoding: 'utf8' });
  t.is(b.status, 0, b.stderr);
  const r = await run(exe, ['300000000'], { env: { HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000', HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: dir } });
  t.is(r.code, 0, r.stderr);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const th = readRawFile(join(dir, raws[0])).threads[0];
  const kept = th.samples.reduce((n, s) => n + s.count, 0);
  const inTool = th.drops.find(([k]) => k === 'in_tool')?.[1] ?? 0;
  t.true(kept >= 50, `${kept} samples kept, ${inTool} counted as the tool's`);
  t.true(inTool <= 0.05 * kept, `${inTool} of ${kept + inTool} samples counted as the tool's`);
});

/**
 * Unwinding JavaScript frames makes no system call: JIT code and V8's builtins have no call-frame
 * information, and the sampler walks their frame-pointer chain reading only the thread's own stack
 * (native/sample/unwind.c, chain_step). Before, every such sample went to libunwind, which checks
 * each address it reads through the frame chain with mincore (and a write and a read on a pipe):
 * about 80 mincore calls per sample of this program (as many writes and reads).
 *
 * V8 runs its builtins from its copy of them next to the JIT code where the machine has 4 GB of
 * memory or more (short builtin calls), and from node's own text otherwise: there, calls into node's
 * C++ go through node's PLT, whose rule is a DWARF expression, and a sample interrupted in a PLT
 * stub went to libunwind (about 50 mincore calls each: 33,150 for 662 samples on a small machine).
 * The test runs both ways (--no-short-builtin-calls is what a small machine gets).
 *
 * One run of a deep-recursion program (test/native/node_formatter.mjs: getters, methods, mutual
 * recursion about 120 levels deep) under `hyprof run`, under `strace -f` filtering mincore alone
 * (seccomp-bpf: the other calls do not stop): mincore calls against the samples in the stacks file,
 * and the stacks still whole (the printer's recursion reaches deep, down to node's own start).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readStacksFiles } from '../src/profile/stacks-file.js';
import { cliPath, run, testNativeDir, tmpDir } from './helpers/native.js';

const haveStrace = spawnSync('strace', ['-V']).status === 0;

const unwoundWithoutSyscalls = test.macro(async (t, v8flag: string) => {
  if (!haveStrace) return t.fail('strace is not installed (scripts/install-deps.sh installs it; the suite needs it)');
  const dir = tmpDir('node-unwind-syscalls');
  const out = join(dir, 'prof');
  const counts = join(dir, 'strace.txt');
  const r = await run(
    'strace',
    ['-f', '--seccomp-bpf', '-c', '-e', 'trace=mincore', '-o', counts, process.execPath, cliPath, 'run', '--dir', out, '--',
      process.execPath, v8flag, join(testNativeDir, 'node_formatter.mjs'), '1500'],
    // 5 ms: under strace, a runtime that does call mincore per frame is slowed so much that a 1 ms
    // wall-clock timer would keep it in its handler; this way it fails the assertion, not the timeout
    { env: { NODE_OPTIONS: undefined, HYPROF_NODE_THREADS: undefined, HYPROF_PERIOD_US: '5000' }, timeoutMs: 240_000 },
  );
  t.is(r.code, 0, r.stderr);
  const line = readFileSync(counts, 'utf8').split('\n').find((l) => /\smincore$/.test(l));
  const mincore = line ? Number(line.trim().split(/\s+/)[3]) : 0;

  const [stacks] = readStacksFiles(out);
  t.truthy(stacks, `no stacks file in ${out}`);
  const thread = stacks.threads.find((x) => x.thread === 0)!;
  const samples = thread.samples.reduce((a, x) => a + x, 0);
  t.true(samples > 100, `${samples} samples`);
  // Fewer than one per ten samples, where the unwinder that validated each step made about 80 a
  // sample, and a PLT stub left to libunwind about 50 (3 or 4 in a whole run of either kind now; 75
  // to 515 for 300 samples with builtins in node's text before PLT stubs had their rule).
  t.true(mincore * 10 < samples, `${mincore} mincore calls for ${samples} samples`);

  // the walk still reaches through the JavaScript frames to node's own start
  const names = (i: number): string[] => {
    const p: string[] = [];
    for (let at = i; at >= 0; at = thread.parent[at]) p.push(stacks.frames[thread.frame[at]][0]);
    return p;
  };
  const deep = thread.parent.map((_, i) => names(i)).filter((p) => p.filter((n) => n === 'print').length > 30);
  t.true(deep.length > 0, 'no stack through more than 30 levels of print');
  t.true(
    deep.some((p) => p.some((n) => /node::Start/.test(n))),
    'no deep stack reaches node::Start',
  );
  t.log(`${samples} samples, ${mincore} mincore calls, ${deep.length} stack nodes below 30 levels of print`);
});

test('JavaScript stacks are unwound without a system call per frame (builtins next to the JIT code)', unwoundWithoutSyscalls, '--short-builtin-calls');
test('JavaScript stacks are unwound without a system call per frame (builtins in node\'s text, through its PLT)', unwoundWithoutSyscalls, '--no-short-builtin-calls');

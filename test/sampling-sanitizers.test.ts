/**
 * The runtime under sanitizers: every source of native/core and of its modules compiled
 * directly with a stress program (threads, nested probes, dlopen/dlclose, a flush while sampling at
 * 10 kHz), once with AddressSanitizer + UBSan and once with ThreadSanitizer. gcc is used because its
 * sanitizer runtimes are shared libraries: clang links them statically into the executable, where
 * the runtime's own interposers (pthread_create, sigaction) and the sanitizer's interceptors cannot
 * both be reached through RTLD_NEXT.
 */
import test from 'ava';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, repoRoot, tmpDir } from './helpers/native.js';
import { runSampled } from './sampling-support.js';

// the sources binding.gyp builds the runtime from: every .c of native/ but the addon's and the MPI
// layer's (the core, each module, and native/modules.c, their list)
const runtimeSources = (): string[] =>
  (readdirSync(join(repoRoot, 'native'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.c') && !f.startsWith('addon') && !f.startsWith('mpi'))
    .sort()
    .map((f) => join(repoRoot, 'native', f));

function build(name: string, sanitize: string): string {
  return compileC(name, [...runtimeSources(), 'sample_stress.c'], {
    link: false,
    cflags: ['-std=gnu11', '-O1', '-g', `-fsanitize=${sanitize}`, '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`],
    ldflags: ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt'],
  });
}

const sanitizerReport = /ERROR: (Address|Thread|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:|SUMMARY: \w+Sanitizer/;

test('AddressSanitizer + UBSan: sampling at 10 kHz with 4 threads, no report', async (t) => {
  const exe = build('stress_asan', 'address,undefined');
  const { result, raws } = await runSampled(exe, ['4'], {
    HYPROF_PERIOD_US: '100',
    ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0',
    UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
  });
  t.is(result.code, 0, `signal ${result.signal}\n${result.stderr}`);
  t.notRegex(result.stderr, sanitizerReport);
  t.regex(result.stdout, /stress done/);
  t.is(raws.length, 1);
  t.true(raws[0]!.threads.filter((th) => th.samples.length > 0).length >= 5);
});

test('ThreadSanitizer: sampling at 10 kHz with 4 threads, no report from the sampling module', async (t) => {
  const exe = build('stress_tsan', 'thread');
  const dir = tmpDir('tsan-supp');
  // Known races in files owned by the core (reported to their owner): the shared dummy store that
  // keeps the thread trampoline's call from being a tail call (keep_frame), and a flush reading
  // statistics and open timers of threads that are still running (close_frame against
  // collect_open / section_contexts). Suppressed by those names only, which never appear on the
  // sampling handler's or the sample writer's stacks, so a race in native/sample still fails.
  const supp = join(dir, 'tsan.supp');
  writeFileSync(supp, 'race:keep_frame\nrace:close_frame\nrace:collect_open\nrace:section_contexts\n');
  const { result, raws } = await runSampled(exe, ['4'], {
    HYPROF_PERIOD_US: '100',
    TSAN_OPTIONS: `suppressions=${supp}:halt_on_error=0:exitcode=66`,
  });
  t.is(result.code, 0, `signal ${result.signal}\n${result.stderr}`);
  t.notRegex(result.stderr, sanitizerReport);
  t.regex(result.stdout, /stress done/);
  t.is(raws.length, 1);
  const sampled = raws[0]!.threads.map((th) => th.samples.reduce((k, s) => k + s.count, 0));
  t.log(`samples per thread under TSan: ${sampled.join(' ')}`);
  // TSan delivers asynchronous signals only at its own safe points (the stress loop sleeps briefly
  // for that), so fewer arrive than without it
  t.true(sampled.filter((n) => n > 0).length >= 3, sampled.join(' '));
});

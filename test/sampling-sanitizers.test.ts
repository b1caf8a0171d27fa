/**
 * The runtime under sanitizers: every source of native/core and of its modules compiled (once per
 * sanitizer: helpers/native.ts runtimeArchive) and linked whole with a stress program (threads, nested probes, dlopen/dlclose, a flush while sampling at
 * 10 kHz), once with AddressSanitizer + UBSan and once with ThreadSanitizer; and the OpenMP tool
 * (level full, tasks timed and throttled) with a task program under AddressSanitizer + UBSan. gcc is used because its
 * sanitizer runtimes are shared libraries: clang links them statically into the executable, where
 * the runtime's own interposers (pthread_create, sigaction) and the sanitizer's interceptors cannot
 * both be reached through RTLD_NEXT.
 */
import test, { type ExecutionContext } from 'ava';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, compileWithRuntime, repoRoot, run, runtimeArchive, tmpDir } from './helpers/native.js';
import { planOpenmpRuntime } from '../src/analysis/openmp-runtime.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { runSampled } from './sampling-support.js';
import { otf2WriterPath } from '../src/base/package-root.js';
import { traceSamplePcs } from '../src/resolve/trace-otf2.js';

const sanitizeFlags = (sanitize: string) => ['-std=gnu11', '-O1', '-g', `-fsanitize=${sanitize}`, '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`];
function build(name: string, sanitize: string): string {
  return compileWithRuntime(name, ['sample_stress.c'], sanitizeFlags(sanitize), ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
}

const sanitizerReport = /ERROR: (Address|Thread|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:|SUMMARY: \w+Sanitizer/;
/** AddressSanitizer + UBSan: leaks checked, a UBSan report ends the run. */
const ASAN_ENV = { ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' };
/** The run ended normally, and no sanitizer reported. */
function assertClean(t: ExecutionContext, result: { code: number | null; signal: string | null; stderr: string }, what = ''): void {
  t.is(result.code, 0, `${what}signal ${result.signal}\n${result.stderr}`);
  t.notRegex(result.stderr, sanitizerReport);
}

/** The samples the run's trace file holds (HYPROF_TRACE: the handler writes each into the thread's
 * buffer beside its probes' records, core/trace.c), by the OTF2 writer's reader; -1 without the writer. */
function tracedSamplePcs(dir: string): number {
  const trace = readdirSync(dir).find((f) => f.endsWith('.trace'));
  if (!existsSync(otf2WriterPath) || !trace) return trace ? -1 : 0;
  return traceSamplePcs(otf2WriterPath, join(dir, trace)).length;
}

test('AddressSanitizer + UBSan: sampling at 10 kHz with 4 threads, traced, no report', async (t) => {
  const exe = build('stress_asan', 'address,undefined');
  const { result, raws, dir } = await runSampled(exe, ['4'], {
    HYPROF_PERIOD_US: '100',
    HYPROF_TRACE: '1',
    ...ASAN_ENV,
  });
  assertClean(t, result);
  t.regex(result.stdout, /stress done/);
  t.is(raws.length, 1);
  t.true(raws[0]!.threads.filter((th) => th.samples.length > 0).length >= 5);
  t.not(tracedSamplePcs(dir), 0, 'the samples are in the trace too');
});

test('AddressSanitizer + UBSan: the OpenMP tool at level full, tasks timed and then throttled, sampled at 10 kHz on 2 threads, no report', async (t) => {
  // The tool's callbacks and its part of the sampling handler (ompt/stitch.c, which reads the
  // current task's record) with the runtime built in, on LLVM's libomp as `hyprof run` runs a
  // gcc-built program; -rdynamic so that libomp finds ompt_start_tool in the program. Recursive fib
  // tasks; their timers throttled after 1,000 instances (docs/throttling.md), the rest untimed.
  const flags = sanitizeFlags('address,undefined');
  const exe = compileC('omp_kernels_asan', ['omp_kernels.c'], {
    cflags: [...flags, '-fopenmp'],
    ldflags: ['-Wl,--whole-archive', runtimeArchive(flags), '-Wl,--no-whole-archive', '-fopenmp', '-rdynamic', '-lunwind', '-lunwind-x86_64', '-ldl', '-lrt'],
    link: false,
  });
  const plan = planOpenmpRuntime(exe, tmpDir('omp-asan-runtime'), { ...process.env, HYPROF_OPENMP: 'full' });
  t.truthy(plan.env.LD_LIBRARY_PATH, 'no libomp to run the program on');
  const { result, raws } = await runSampled(exe, ['fib', '22'], {
    ...plan.env,
    OMP_NUM_THREADS: '2',
    HYPROF_OPENMP: 'full',
    HYPROF_PERIOD_US: '100',
    HYPROF_THROTTLE_NUMCALLS: '1000',
    HYPROF_THROTTLE_PERCALL: '1000000',
    ...ASAN_ENV,
  });
  assertClean(t, result);
  t.regex(result.stderr, /hyprof: throttled 'OpenMP_Task in fib'/, 'the tool ran and throttled the task timers');
  t.is(raws.length, 1);
  t.true(raws[0]!.threads.filter((th) => th.samples.length > 0).length >= 2);
});

test('ThreadSanitizer: sampling at 10 kHz with 4 threads and a flush while they run, traced, no report and no suppression', async (t) => {
  const exe = build('stress_tsan', 'thread');
  // The flush reads running threads' open timers and statistics while they change them: each thread
  // brackets its writes with a sequence count and the dump reads one moment's values (core/thread.h);
  // and their trace buffers, which their probes and sampling handlers append to meanwhile (trace.c).
  const { result, raws, dir } = await runSampled(exe, ['4'], {
    HYPROF_PERIOD_US: '100',
    HYPROF_TRACE: '1',
    TSAN_OPTIONS: 'halt_on_error=0:exitcode=66',
  });
  assertClean(t, result);
  t.regex(result.stdout, /stress done/);
  t.is(raws.length, 1);
  const sampled = raws[0]!.threads.map((th) => th.samples.reduce((k, s) => k + s.count, 0));
  t.log(`samples per thread under TSan: ${sampled.join(' ')}`);
  // TSan delivers asynchronous signals only at its own safe points (the stress loop sleeps briefly
  // for that), so fewer arrive than without it
  t.true(sampled.filter((n) => n > 0).length >= 3, sampled.join(' '));
  t.not(tracedSamplePcs(dir), 0, 'the samples are in the trace too');
});

// perf's task-clock: an event per thread, and each sample weighed by the thread's CPU clock read in
// the handler (sample.c, timer.c hp_sample_clock_start)
for (const [label, sanitize, options] of [
  ['AddressSanitizer + UBSan', 'address,undefined', ASAN_ENV],
  ['ThreadSanitizer', 'thread', { TSAN_OPTIONS: 'halt_on_error=0:exitcode=66' }],
] as const) {
  test(`${label}: sampling on perf's task-clock with 4 threads, no report`, async (t) => {
    const exe = build(sanitize === 'thread' ? 'stress_tsan' : 'stress_asan', sanitize);
    const { result, raws } = await runSampled(exe, ['4'], { HYPROF_SAMPLE_SOURCE: 'task-clock', HYPROF_PERIOD_US: '100', ...options });
    assertClean(t, result);
    t.notRegex(result.stderr, /cannot be opened/);
    t.regex(result.stdout, /stress done/);
    t.is(raws[0]?.sampling?.source, 'task-clock');
    const sampled = raws[0]!.threads.map((th) => th.samples.reduce((k, s) => k + s.count, 0));
    t.true(sampled.filter((n) => n > 0).length >= 3, sampled.join(' '));
  });
}

test('LeakSanitizer: a program built with AddressSanitizer and linked with -lhyprof exits 0, no leak reported', async (t) => {
  // The program is instrumented, the runtime is the installed libhyprof.so: as a user builds.
  const exe = compileC('kept_tables_asan', ['kept_tables.c'], { cflags: ['-O1', '-g', '-fsanitize=address', '-fno-omit-frame-pointer'] });
  const dir = tmpDir('lsan');
  for (const sampling of ['0', '1']) {
    const r = await run(exe, [], {
      env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: sampling, HYPROF_PERIOD_US: '200', ASAN_OPTIONS: 'detect_leaks=1' },
    });
    t.is(r.code, 0, `sampling ${sampling}: ${r.stderr}`);
    t.notRegex(r.stderr, sanitizerReport);
    t.regex(r.stdout, /child done/);
    t.regex(r.stdout, /parent done, child status 0/);
  }
  t.is(readdirSync(dir).filter((f) => f.endsWith('.raw')).length, 4, 'parent and child, twice');
});

// AddressSanitizer together with UBSan, as the stress test above builds it: one runtime archive
// for both (helpers/native.ts runtimeArchive; a build of the whole runtime under a sanitizer is about
// a minute of CPU), and UBSan's checks come on top of AddressSanitizer's, never instead.
for (const [label, sanitize, contexts] of [['ThreadSanitizer', 'thread', 50_000], ['AddressSanitizer + UBSan', 'address,undefined', 100_000]] as const) {
  test(`${label}: statistics tables outgrown and freed while another thread flushes, no report`, async (t) => {
    // One thread enters 100,000 new contexts (50,000 under the slower ThreadSanitizer), a new parameter
    // value at every step: its table grows from 256 slots to 262,144 (10 times; 9) while the main thread flushes over and over, each flush
    // reading that table for most of its time. The tables it outgrew are freed at once when no dump
    // runs, else after the flush (native/core/stats.c): a flush that read a freed table is reported
    // here (AddressSanitizer: heap-use-after-free; ThreadSanitizer: a race with the free).
    const exe = compileWithRuntime(`flush_race_${sanitize.replace(/,/g, '_')}`, ['core_flush_race.c'], ['-std=gnu11', '-O1', '-g', `-fsanitize=${sanitize}`, '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`], ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
    const dir = tmpDir(`flush-race-${sanitize.replace(/,/g, '_')}`);
    const copies = tmpDir(`flush-race-copies-${sanitize.replace(/,/g, '_')}`);
    const r = await run(exe, [copies, String(contexts)], {
      timeoutMs: 300_000,
      env: {
        HYPROF_RAW_DIR: dir,
        HYPROF_RESOLVE: '0',
        HYPROF_SAMPLING: '0',
        HYPROF_THROTTLE: '0',
        TSAN_OPTIONS: 'halt_on_error=0:exitcode=66',
        ASAN_OPTIONS: 'detect_leaks=1',
        UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
      },
    });
    t.is(r.code, 0, `signal ${r.signal}\n${r.stderr}`);
    t.notRegex(r.stderr, sanitizerReport);
    t.is(readdirSync(copies).filter((f) => f.startsWith('flush-')).length, 12);
    // the file written at exit holds every context the thread entered
    const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
    t.is(raws.length, 1);
    const churn = Math.max(...readRawFile(join(dir, raws[0]!)).threads.map((th) => th.stats.length));
    t.true(churn >= contexts, `${churn} statistics`);
  });
}

test('ThreadSanitizer: a user event triggered on one thread while another flushes, no report and no suppression', async (t) => {
  const exe = compileWithRuntime('user_event_flush_tsan', ['user_event_flush.c'], ['-std=gnu11', '-O1', '-g', '-fsanitize=thread', '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`], ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
  const dir = tmpDir('tsan-ue');
  const r = await run(exe, ['20'], {
    env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', TSAN_OPTIONS: 'halt_on_error=0:exitcode=66' },
  });
  t.is(r.code, 0, `signal ${r.signal}\n${r.stderr}`);
  t.notRegex(r.stderr, sanitizerReport);
  t.regex(r.stdout, /flushes done/);
  // Every trigger adds 1: count == sum == sum of squares in the file written at exit.
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const p = readRawFile(join(dir, raws[0]!));
  const worker = p.threads.find((th) => th.userStats.length > 0);
  t.truthy(worker, 'the triggering thread has its user event');
  for (const u of worker!.userStats) {
    t.true(u.count > 0);
    t.is(u.sum, u.count);
    t.is(u.sumsqr, u.count);
  }
});

test('ThreadSanitizer: metadata added by two threads while another flushes, no report and no suppression; every key kept', async (t) => {
  const exe = compileWithRuntime('metadata_flush_tsan', ['metadata_flush.c'], ['-std=gnu11', '-O1', '-g', '-fsanitize=thread', '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`], ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
  const dir = tmpDir('tsan-meta');
  const r = await run(exe, ['20'], {
    env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', TSAN_OPTIONS: 'halt_on_error=0:exitcode=66' },
  });
  t.is(r.code, 0, `signal ${r.signal}\n${r.stderr}`);
  t.notRegex(r.stderr, sanitizerReport);
  t.regex(r.stdout, /metadata done/);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const meta = new Map(readRawFile(join(dir, raws[0]!)).info.attributes);
  for (const a of [0, 1]) {
    for (let i = 0; i < 40; i++) t.is(meta.get(`adder ${a} key ${i}`), `value ${i}`);
    t.is(meta.get(`adder ${a} changing`), 'last');
  }
});

test('ThreadSanitizer: a flush never reads a perf counter (HYPROF_METRICS) as its ending thread closes it', async (t) => {
  const exe = compileWithRuntime('metrics_flush_tsan', ['metrics_flush.c'], ['-std=gnu11', '-O1', '-g', '-fsanitize=thread', '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`], ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
  const dir = tmpDir('tsan-metrics');
  const r = await run(exe, ['40'], {
    env: {
      HYPROF_RAW_DIR: dir,
      HYPROF_RESOLVE: '0',
      HYPROF_SAMPLING: '0',
      HYPROF_METRICS: 'TIME:context-switches',
      TSAN_OPTIONS: 'halt_on_error=0:exitcode=66',
    },
  });
  t.notRegex(r.stderr, /cannot be counted/, 'the perf counter opens (else nothing is read)');
  t.regex(r.stdout, /metrics done after \d+ flushes/);
  // ThreadSanitizer follows descriptors: a read racing the close of the same one is reported with
  // both stacks. No other report either (the extra metrics' frames: the test below).
  const reports = r.stderr.split(/^WARNING: ThreadSanitizer: /m).slice(1);
  const fdRaces = reports.filter((rep) => /close_counters/.test(rep) && /hp_metrics_read/.test(rep));
  t.deepEqual(fdRaces, []);
  t.is(r.code, 0, `signal ${r.signal}\n${r.stderr}`);
  t.notRegex(r.stderr, sanitizerReport);
  t.is(readdirSync(dir).filter((f) => f.endsWith('.raw')).length, 1);
});

test('ThreadSanitizer: threads closing timers and ending with several metrics (HYPROF_METRICS) while another flushes, no report and no suppression', async (t) => {
  const exe = compileWithRuntime('metrics_end_flush_tsan', ['metrics_end_flush.c'], ['-std=gnu11', '-O1', '-g', '-fsanitize=thread', '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`], ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
  const dir = tmpDir('tsan-metrics-end');
  const rounds = 30; // four threads at a time
  const r = await run(exe, [String(rounds)], {
    env: {
      HYPROF_RAW_DIR: dir,
      HYPROF_RESOLVE: '0',
      HYPROF_SAMPLING: '0',
      HYPROF_METRICS: 'TIME:context-switches',
      TSAN_OPTIONS: 'halt_on_error=0:exitcode=66',
    },
  });
  t.notRegex(r.stderr, /cannot be counted/, 'the perf counter opens (else no extra-metric frames are kept)');
  // The extra metrics' frame values written by a closing or opening timer outside the sequence count
  // the dump reads a thread by were reported here (hp_metrics_close, hp_metrics_push racing
  // open_metrics); the replacement of an ending thread's stack by its open frames is made under it
  // too, so a reading across it is read again rather than taken torn.
  t.is(r.code, 0, `signal ${r.signal}\n${r.stderr}`);
  t.notRegex(r.stderr, sanitizerReport);
  t.regex(r.stdout, /threads ended after \d+ flushes/);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const p = readRawFile(join(dir, raws[0]!));
  t.is(p.info.metrics.length, 2);
  // Each worker: its open timer (closed at its end), 200 outer and 200 inner.
  const workers = p.threads.filter((th) => th.stats.length >= 3);
  t.is(workers.length, rounds * 4);
  for (const w of workers) t.is(Math.max(...w.stats.calls), 200);
});

// Not under ThreadSanitizer: it runs a handler only after its own interceptor of the interrupted call
// has returned (deferred signals), so the runtime's waits see EINTR before the handler counted it.
for (const [label, sanitize] of [['AddressSanitizer + UBSan', 'address,undefined']] as const) {
  test(`${label}: the interposed waits and the counting of the program's signals at 10 kHz, no report, the same lines as without hyprof`, async (t) => {
    // test/native/waits.c (test/waits.test.ts) built with the runtime's sources under the sanitizer
    const plain = compileC('waits_plain', ['waits.c'], { link: false });
    const exe = compileWithRuntime(`waits_${sanitize.replace(/,/g, '_')}`, ['waits.c'], ['-std=gnu11', '-O1', '-g', `-fsanitize=${sanitize}`, '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`], ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
    for (const mode of ['full', 'program']) {
      const sock = join(tmpDir('waits-san'), 's');
      const expected = await run(plain, [mode, sock]);
      const { result } = await runSampled(exe, [mode, sock], {
        HYPROF_PERIOD_US: '100',
        ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0',
        UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
      });
      assertClean(t, result, `${mode}: `);
      t.is(result.stdout, expected.stdout, `${mode}:\n${result.stderr}`);
    }
  });
}

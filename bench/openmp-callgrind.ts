/**
 * bench/openmp-callgrind: the OpenMP tool's cost in instructions (valgrind --tool=callgrind), which a
 * loaded machine does not disturb:
 *  - per task, level by level: fib(22) minus fib(18) (bench/openmp-kernels.c, one thread, so the
 *    count is deterministic), divided by the tasks in between; against the uninstrumented run, an
 *    OMPT tool that registers nothing (the runtime's own bookkeeping once a tool is active) and one
 *    that registers the callbacks hyprof's level full uses per task, each empty (the runtime's cost
 *    of calling them: the floor of any tool that sees each task); and level full with the trace on
 *    (HYPROF_TRACE=1: each task's create, switch and complete records, docs/trace.md), with the
 *    trace file's bytes per task; and level full past the throttle (its task and taskwait timers
 *    throttled by TAU's rule, reached early here: docs/openmp.md, "Throttling");
 *  - per sample, the sampling handler with the tool off, basic and full on short parallel regions
 *    (2 threads, 1 kHz): its inclusive instructions and the unwinder's steps per sample.
 * The per-task figures for the kernel built by clang and by gcc (run on libomp, as `hyprof run` runs
 * it). Run: node dist/bench/openmp-callgrind.js   (needs valgrind)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planOpenmpRuntime } from '../src/analysis/openmp-runtime.js';
import { compileC, libPath, repoRoot } from '../test/helpers/native.js';

const work = mkdtempSync(join(tmpdir(), 'hyprof-bench-ompcg-'));
// The kernel built by both compilers; gcc's on libomp (libgomp calls no tool), as `hyprof run` runs
// it (src/analysis/openmp-runtime.ts): every configuration of a compiler runs on the same runtime.
const build = (cc: 'clang' | 'gcc') =>
  compileC(`openmp-kernels-${cc}`, [join(repoRoot, 'bench', 'openmp-kernels.c')], {
    cc,
    cflags: ['-O2', '-g', '-fopenmp'],
    ldflags: ['-fopenmp'],
    link: false,
    outDir: work,
  });
const exes = { clang: build('clang'), gcc: build('gcc') };
const runtimeDir = join(work, 'runtime');
mkdirSync(runtimeDir);
const runtimeEnv = {
  clang: {} as NodeJS.ProcessEnv,
  gcc: planOpenmpRuntime(exes.gcc, runtimeDir, { ...process.env, HYPROF_OPENMP: 'full' }).env as NodeJS.ProcessEnv,
};
if (!runtimeEnv.gcc.LD_LIBRARY_PATH) throw new Error('gcc: no libomp to run the kernel on (libgomp calls no OpenMP tool)');
const emptyTool = join(work, 'empty-tool.so');
{
  const src = join(work, 'empty-tool.c');
  // An OMPT tool that starts and registers nothing: what the runtime itself does once a tool is on.
  writeFileSync(src, `#include <stddef.h>
typedef union { unsigned long value; void *ptr; } data_t;
typedef int (*init_t)(void *, int, data_t *);
typedef void (*fini_t)(data_t *);
typedef struct { init_t initialize; fini_t finalize; data_t tool_data; } result_t;
static int init(void *l, int d, data_t *t) { return 1; }
static void fini(data_t *t) {}
result_t *ompt_start_tool(unsigned v, const char *r) { static result_t res = {init, fini, {0}}; return &res; }
`);
  const r = spawnSync('cc', ['-O2', '-shared', '-fPIC', src, '-o', emptyTool], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}
const callbackTool = join(work, 'callback-tool.so');
{
  const src = join(work, 'callback-tool.c');
  // The callbacks level full registers for each task (task create and schedule, and the taskwait's
  // sync region and its wait), each returning at once: what the runtime spends calling a tool.
  writeFileSync(src, `typedef union { unsigned long value; void *ptr; } data_t;
typedef void (*cb_t)(void);
typedef int (*set_t)(int, cb_t);
typedef void (*(*lookup_t)(const char *))(void);
typedef int (*init_t)(lookup_t, int, data_t *);
typedef void (*fini_t)(data_t *);
typedef struct { init_t initialize; fini_t finalize; data_t tool_data; } result_t;
static void none(void) {}
/* ompt_callback_task_create 5, task_schedule 6, sync_region_wait 16, sync_region 23 (omp-tools.h) */
static int init(lookup_t l, int d, data_t *t) {
  set_t set = (set_t)l("ompt_set_callback");
  set(5, none); set(6, none); set(16, none); set(23, none);
  return 1;
}
static void fini(data_t *t) {}
result_t *ompt_start_tool(unsigned v, const char *r) { static result_t res = {init, fini, {0}}; return &res; }
`);
  const r = spawnSync('cc', ['-O2', '-shared', '-fPIC', src, '-o', callbackTool], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}
const raw = join(work, 'raw');
mkdirSync(raw);
const callgrind = (env: NodeJS.ProcessEnv, args: string[], out: string, cc: 'clang' | 'gcc' = 'clang') => {
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, exes[cc], ...args], {
    encoding: 'utf8',
    env: { ...process.env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw, ...runtimeEnv[cc], ...env },
  });
  if (r.status !== 0) throw new Error(`valgrind ${args.join(' ')}: ${r.stderr.slice(-500)}`);
  return Number(/Collected : (\d+)/.exec(r.stderr)?.[1] ?? NaN);
};

const tasks = 57313 - 8361;
const levels: Array<[string, NodeJS.ProcessEnv]> = [
  ['uninstrumented', {}],
  ['an OMPT tool that registers nothing', { LD_PRELOAD: emptyTool }],
  ["an OMPT tool with level full's per-task callbacks, empty", { LD_PRELOAD: callbackTool }],
  ['hyprof, tool off', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'off' }],
  ['basic', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'basic' }],
  ['full', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'full' }],
  // Past the throttle: TAU's rule (100,000 instances of under 10 us each, per construct and thread)
  // reached after 1,000 instances, both inputs then run nearly all their tasks untimed, so the
  // difference is a task's cost once its construct's timer is throttled. The per-call limit is
  // raised because callgrind runs the program about 50 times slower.
  ['full, past the throttle (HYPROF_THROTTLE_NUMCALLS=1000)', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'full', HYPROF_THROTTLE_NUMCALLS: '1000', HYPROF_THROTTLE_PERCALL: '1000000' }],
  ['full, traced (HYPROF_TRACE=1)', { LD_PRELOAD: libPath, HYPROF_OPENMP: 'full', HYPROF_TRACE: '1' }],
];
// The trace files of a traced run, in a directory of their own per run: their bytes per task.
const traceBytes = (dir: string) =>
  readdirSync(dir).filter((f) => f.endsWith('.trace')).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
for (const cc of ['clang', 'gcc'] as const) {
  console.log(`\n${cc}: instructions per task, fib(22) - fib(18) (48952 tasks), 1 thread:`);
  console.log('| configuration | instructions per task | over uninstrumented |');
  console.log('|---|---|---|');
  const perTask: Record<string, number> = {};
  let bytesPerTask = NaN;
  for (const [name, env] of levels) {
    const e = { OMP_NUM_THREADS: '1', ...env };
    const out = join(work, 'cg.out');
    const dirs = ['22', '18'].map((n) => join(work, `raw-${cc}-${name.length}-${n}`));
    for (const d of dirs) mkdirSync(d);
    const at = (i: number) => (env.HYPROF_TRACE ? { ...e, HYPROF_RAW_DIR: dirs[i] } : e);
    perTask[name] = (callgrind(at(0), ['tasks', '22'], out, cc) - callgrind(at(1), ['tasks', '18'], out, cc)) / tasks;
    if (env.HYPROF_TRACE) bytesPerTask = (traceBytes(dirs[0]) - traceBytes(dirs[1])) / tasks;
    const d = Math.round(perTask[name] - perTask.uninstrumented);
    const pct = ((100 * d) / perTask.uninstrumented).toFixed(0);
    const over = name === 'uninstrumented' ? '' : `${d < 0 ? '' : '+'}${d} (${d < 0 ? '' : '+'}${pct} %)`;
    console.log(`| ${name} | ${perTask[name].toFixed(0)} | ${over} |`);
  }
  console.log(`\nTrace file bytes per task (level full, traced): ${bytesPerTask.toFixed(1)}`);
}

console.log('\nThe sampling handler on 3000 short parallel regions (2 threads, 1 kHz), per sample:');
console.log('| tool | instructions | unwind steps |');
console.log('|---|---|---|');
for (const level of ['off', 'basic', 'full']) {
  const out = join(work, `cgh.${level}`);
  callgrind({ OMP_NUM_THREADS: '2', LD_PRELOAD: libPath, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000', HYPROF_OPENMP: level }, ['regions', '3000'], out);
  const ann = spawnSync('callgrind_annotate', ['--inclusive=yes', out], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  const handler = Number((ann.split('\n').find((l) => l.includes('handler.c:hp_sample_handler [')) ?? '').trim().split(' ')[0].replace(/,/g, ''));
  const text = readFileSync(out, 'utf8');
  const ids = new Set([...text.matchAll(/c?fn=\((\d+)\) hp_sample_take\n/g)].map((m) => m[1]));
  let samples = 0;
  for (const m of text.matchAll(/cfn=\((\d+)\)[^\n]*\ncalls=(\d+)/g)) if (ids.has(m[1])) samples += Number(m[2]);
  let steps = 0;
  for (const m of ann.matchAll(/=> \?\?\?:_ULx86_64_step \(([\d,]+)x\)/g)) steps += Number(m[1].replace(/,/g, ''));
  console.log(`| ${level} | ${(handler / samples).toFixed(0)} | ${(steps / samples).toFixed(1)} |`);
}
rmSync(work, { recursive: true, force: true });

/**
 * TAU's own API examples as a conformance corpus: C, C++ and Fortran programs from TAU's source tree,
 * copied byte for byte into test/native/tau-examples/ (TAU's license beside them), build with hyprof's
 * flags as their TAU Makefiles build them (`$(TAU_INCLUDE) $(TAU_DEFS)` is `-I<hyprof's include>
 * -DPROFILING_ON`, `$(TAU_LIBS)` is `-L... -lhyprof`) and run unchanged; their profiles pass TAU's
 * strict reader (run() checks every profile written) and hold what the macros asked for:
 * `#include <Profile/Profiler.h>`, TAU_MAX_COUNTERS, the structured metadata macros, Fortran's
 * TAU_PROFILE_PARAM_1L(name, value), parameters set right after a timer's start, context events.
 *
 * The examples sleep whole seconds to make time visible; test/native/fast_sleep.c, preloaded, makes
 * each second 10 ms, so a run takes a fraction of a second and the programs stay unchanged.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayName, type TauThreadProfile } from '../src/profile/tau-model.js';
import { calls, group, mainThread, userEvent } from './helpers/profile-queries.js';
import { mpiMissing, mpirunArgs, rankMain } from './helpers/mpi.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { compileC, hyprof, includeDir, libDir, libPath, run, testNativeDir, tmpDir } from './helpers/native.js';

const examples = join(testNativeDir, 'tau-examples');

/** Build one example as its TAU Makefile does, with hyprof in TAU's place. */
function build(name: string, compiler: string, sources: string[], extra: string[] = [], libs = [`-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof']): string {
  const out = join(tmpDir(`tau-example-${name}`), name);
  const args = [
    '-g',
    `-I${includeDir}`,
    '-DPROFILING_ON',
    ...extra,
    ...sources.map((s) => join(examples, s)),
    '-o',
    out,
    ...libs,
  ];
  const r = spawnSync(compiler, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${compiler} ${args.join(' ')} failed:\n${r.stderr}`);
  return out;
}

let fastSleep: string | undefined;
function fastSleepLib(): string {
  fastSleep ??= compileC('libfast_sleep.so', ['fast_sleep.c'], { cflags: ['-O1', '-shared', '-fPIC'], link: false });
  return fastSleep;
}

/** Run a built example linked (it writes its profile at exit); its main thread's profile. */
async function runExample(exe: string, args: string[] = []): Promise<{ p: TauThreadProfile; stdout: string; stderr: string }> {
  const dir = tmpDir('tau-example-run');
  const r = await run(exe, args, { env: { HYPROF_DIR: dir, LD_PRELOAD: fastSleepLib(), OMP_NUM_THREADS: '2' } });
  if (r.code !== 0) throw new Error(`${exe} exited with ${r.code}:\n${r.stderr}`);
  return { p: mainThread(dir), stdout: r.stdout, stderr: r.stderr };
}

function event(p: TauThreadProfile, name: string) {
  return p.events.find((e) => displayName(e.name) === name);
}

function meta(p: TauThreadProfile, key: string): string | undefined {
  return p.metadata.find(([k]) => k === key)?.[1];
}

test.before((t) => {
  if (!existsSync(libPath)) t.fail(`the native runtime is not built: ${libPath}`);
});

test("profilercreate (C): TAU_PROFILER_CREATE and TAU_MAX_COUNTERS-sized arrays for the timer's values", async (t) => {
  const { p, stdout } = await runExample(build('profilercreate', 'gcc', ['profilercreate_foo.c']));
  t.regex(stdout, /^Calls = 5, child = 0$/m);
  t.regex(stdout, /^numcounters = 1$/m);
  t.regex(stdout, /counter \[0\] = TIME/);
  const incl = Number(/incl \[0\] = ([\d.e+]+)/.exec(stdout)?.[1]);
  t.true(incl >= 5 * 10_000, `bar's five calls sleep 5 x 10 ms (microseconds: ${incl})`);
  t.is(calls(p, 'foo'), 1);
  t.is(calls(p, 'bar'), 5);
  t.is(group(p, 'bar'), 'TAU_USER');
});

test('metadata (C): TAU_METADATA, TAU_CONTEXT_METADATA and the structured metadata macros', async (t) => {
  const { p } = await runExample(build('metadata', 'gcc', ['metadata.c']));
  t.is(calls(p, 'main() int (int, char **)'), 1);
  t.is(calls(p, 'foo() void foo (int x)'), 4);
  t.is(meta(p, 'Test Metadata Name'), 'Test Metadata Value');
  t.is(meta(p, 'Foo Parameters'), 'Thread 0 of 1 in foo(x = 3)', 'the last value set');
  t.is(meta(p, 'Test Metadata String'), 'This is a test string');
  t.is(meta(p, 'Test Metadata Integer'), '1234567');
  t.is(meta(p, 'Test Metadata Double'), '1234.567000');
  t.is(meta(p, 'Test Metadata Null'), 'NULL');
  t.is(meta(p, 'Test Metadata True'), 'TRUE');
  t.is(meta(p, 'Test Metadata False'), 'FALSE');
  const object = {
    'Test Metadata Object': 1234.567,
    'Test Metadata String': 'This is a test string',
    'Test Metadata Integer': 1234567,
    'Test Metadata Double': 1234.567,
    'Test Metadata Null': null,
    'Test Metadata True': true,
    'Test Metadata False': false,
  };
  t.deepEqual(JSON.parse(meta(p, 'Test Metadata Object') ?? 'undefined'), object);
  t.deepEqual(JSON.parse(meta(p, 'Test Metadata Array') ?? 'undefined'), ['This is a test string', 1234567, 1234.567, null, true, false, object]);
});

test('param (C++): a parameter set right after the scope timer starts names the whole call', async (t) => {
  const { p } = await runExample(build('param-cxx', 'g++', ['param_simple.cpp'], ['-w']));
  t.is(calls(p, 'f1()'), 5);
  t.is(calls(p, 'f1() [ <x> = <2> ]'), 3);
  t.is(calls(p, 'f1() [ <x> = <4> ]'), 1);
  t.is(calls(p, 'f2() [ <y> = <3> ]'), 1);
  t.is(group(p, 'f1() [ <x> = <2> ]'), 'TAU_PARAM | TAU_USER');
  // The five calls' time is the parameters' time, the whole of each call.
  const f1 = event(p, 'f1()')!.incl;
  const byParam = [2, 3, 4].map((x) => event(p, `f1() [ <x> = <${x}> ]`)!.incl).reduce((a, b) => a + b, 0);
  t.true(Math.abs(f1 - byParam) <= f1 * 0.001, `f1 ${f1} us, its parameters ${byParam} us`);
});

test("param (Fortran): TAU_PROFILE_PARAM_1L(name, value), TAU's name and argument order", async (t) => {
  const { p, stdout } = await runExample(build('param-f90', 'gfortran', ['param_cubes.f']));
  t.deepEqual(stdout.trim().split(/\s+/), ['153', '370', '371', '407']);
  t.is(calls(p, 'PROGRAM SUM_OF_CUBES'), 1);
  t.is(calls(p, 'PROGRAM SUM_OF_CUBES [ <param> = <50> ]'), 1);
  t.is(event(p, 'PROGRAM SUM_OF_CUBES [ <param> = <50> ]')!.incl, event(p, 'PROGRAM SUM_OF_CUBES')!.incl, 'set after the start, it covers the whole timer');
});

test('instrument (C++): #include <Profile/Profiler.h> is hyprof\'s TAU.h', async (t) => {
  const source = readFileSync(join(examples, 'instrument_simple.cpp'), 'utf8');
  t.true(source.startsWith('#include <Profile/Profiler.h>'), 'the example includes TAU\'s internal header');
  const { p, stdout } = await runExample(build('instrument', 'g++', ['instrument_simple.cpp'], ['-w']), ['1000', '4']);
  t.regex(stdout, /size 1000, 4 th largest element = \d+/);
  t.is(calls(p, 'int main(int, char **)'), 1);
  t.is(calls(p, 'int kth_largest_qs(int, int *, int)'), 5, 'kth_largest_qs calls itself');
  t.true((calls(p, 'void interchange(int *, int *)') ?? 0) > 100);
});

test('userevent (C++): context events under the path of the running timers', async (t) => {
  const { p } = await runExample(build('userevent', 'g++', ['userevent_simple.cpp'], ['-std=gnu++11', '-w']));
  const main = 'main() (calls f1, f5)';
  const f1 = 'f1() (sleeps 1 sec, calls f2, f4)';
  const f2 = 'f2() (sleeps 2 sec, calls f3)';
  const f4 = 'f4() (sleeps 4 sec, calls f2)';
  t.is(calls(p, f2), 2);
  t.deepEqual(userEvent(p, 'Iteration count'), { count: 2, sum: 467 });
  t.deepEqual(userEvent(p, `Iteration count : .TAU application => ${main} => ${f1} => ${f2}`), { count: 1, sum: 233 });
  t.deepEqual(userEvent(p, `Iteration count : .TAU application => ${main} => ${f1} => ${f4} => ${f2}`), { count: 1, sum: 234 });
});

test('matmult_api (Fortran, MPI): linked with the MPI layer, the program keeps its MPI', async (t) => {
  const missing = mpiMissing();
  if (missing) return t.fail(missing);
  // As TAU's Makefile builds it (tau_f90.sh -optLinkOnly, TAU_ALLOW_ARG_MISMATCH), with hyprof's
  // flags (`hyprof config --libs --mpi`): the layer defines every MPI routine the program calls, and
  // without --no-as-needed the linker dropped Open MPI's libraries and the ranks ran without MPI.
  const config = await hyprof(['config', '--libs', '--mpi']);
  t.is(config.code, 0, config.stderr);
  const exe = build('matmult-api', 'mpif90', ['matmult_api.f90'], ['-fallow-argument-mismatch', '-w'], config.stdout.trim().split(/\s+/));
  const dir = tmpDir('tau-example-matmult-api');
  const r = await run('mpirun', [...mpirunArgs(2), exe], { env: { HYPROF_DIR: dir }, cwd: dir });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /Process\s+1\s+of\s+2\s+is active/);
  t.regex(r.stdout, /c\(\s+1000 ,\s+1000 \) =\s+500500000\.0+/);
  const profile = readTauProfileDir(dir);
  for (const rank of [0, 1]) {
    const main = rankMain(profile, rank);
    if (!main) return t.fail(`no profile of rank ${rank}`);
    t.is(calls(main, 'MPI_Init()'), 1, `rank ${rank}`);
    t.true((calls(main, 'MPI_Send()') ?? 0) + (calls(main, 'MPI_Recv()') ?? 0) > 0, `rank ${rank}`);
  }
});

test('TAU_PROFILE_PARAM_1L with a blank name says so once and records nothing', async (t) => {
  // The one check beyond TAU's examples: hyprof's argument checks apply to TAU's spelling too.
  const dir = tmpDir('tau-param-1l-blank');
  const src = join(dir, 'blank.f90');
  writeFileSync(src, "program blank\ninteger :: profiler(2) = [0, 0]\nsave profiler\ncall TAU_PROFILE_TIMER(profiler, 'outer')\ncall TAU_PROFILE_START(profiler)\ncall TAU_PROFILE_PARAM_1L('  ', 7)\ncall TAU_PROFILE_STOP(profiler)\nend program\n");
  const exe = join(dir, 'blank');
  const c = spawnSync('gfortran', [src, '-o', exe, `-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof'], { encoding: 'utf8' });
  t.is(c.status, 0, c.stderr);
  const r = await run(exe, [], { env: { HYPROF_DIR: dir } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /TAU_PROFILE_PARAM_1L: the name is empty/);
  const p = mainThread(dir);
  t.is(calls(p, 'outer'), 1);
  t.false(p.events.some((e) => e.name.includes('<7>')));
});

/**
 * TAU's C and C++ API through TAU.h, as TAU's own examples use it: the programs compile unchanged
 * with gcc, clang, g++ and clang++, run linked and under `hyprof run`, and every timer, phase,
 * parameter, user and context event, metadata entry and the instrumentation switch show in the
 * profile (which TAU's strict reader accepts: run() and hyprof() check every profile). And TAU's
 * variables hyprof does not implement are named, once.
 */
import test from 'ava';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, libPath, run, tmpDir } from './helpers/native.js';
import type { TauThreadProfile } from '../src/profile/tau-model.js';
import { calls, group, mainThread, userEvent } from './helpers/profile-queries.js';





const MAIN = 'main() int (int, char **)';

function checkC(t: import('ava').ExecutionContext, p: TauThreadProfile, stdout: string): void {
  t.is(calls(p, MAIN), 1);
  t.is(calls(p, 'leaf() void (int)'), 9, 'leaf: 1 in setup, 3 in iterations, 4 under created, 1 under io(); none while off');
  t.is(calls(p, 'leaf() void (int) [ <x> = <2> ]'), 3);
  t.is(calls(p, 'leaf() void (int) [ <x> = <3> ]'), 4);
  t.is(calls(p, 'leaf() void (int) [ <x> = <5> ]'), undefined, 'recorded while instrumentation was off');
  t.is(calls(p, 'with_events()'), 3);
  for (const phase of ['setup phase', 'Iteration 0', 'Iteration 1', 'Iteration 2', 'static phase by name', 'dynamic phase by name'])
    t.regex(group(p, phase) ?? '', /\|TAU_PHASE$/, phase);
  t.is(calls(p, `.TAU application => ${MAIN} => Iteration 1 => leaf() void (int)`), 1);
  for (const timer of ['static timer', 'dynamic timer 7', 'by name', 'created too', 'created dynamic', 'spans the switch']) t.is(calls(p, timer), 1, timer);
  t.is(calls(p, 'created'), 4);
  t.is(calls(p, `.TAU application => ${MAIN} => created => leaf() void (int)`), 4);
  t.is(calls(p, 'io()'), 1);
  t.is(group(p, 'io()'), 'TAU_IO');
  t.is(calls(p, 'while off'), undefined);
  t.regex(stdout, /^created calls=4 child_calls=4 counters=1 TIME incl_ge_excl=1 excl_positive=1$/m);
  t.deepEqual(userEvent(p, 'plain value'), { count: 3, sum: 3 });
  t.deepEqual(userEvent(p, 'context value'), { count: 3, sum: 30 });
  for (let i = 0; i < 3; i++) {
    t.deepEqual(userEvent(p, `context value : .TAU application => ${MAIN} => Iteration ${i} => with_events()`), { count: 1, sum: 10 * i });
    t.deepEqual(userEvent(p, `triggered in context : .TAU application => ${MAIN} => Iteration ${i} => with_events()`), { count: 1, sum: 3 });
  }
  t.deepEqual(userEvent(p, 'triggered'), { count: 3, sum: 6 });
  t.is(p.userEvents.length, 10, p.userEvents.map((u) => u.name).join('\n'));
  t.is(p.metadata.find(([k]) => k === 'Example Key')?.[1], 'example value');
}

for (const cc of ['gcc', 'clang']) {
  test.serial(`TAU's C API compiles unchanged with ${cc}; linked and under hyprof run`, async (t) => {
    if (!existsSync(libPath)) return t.fail(`the native runtime is not built: ${libPath}`);
    const exe = compileC(`tau_api_c_${cc}`, ['tau_api_c.c'], { cc, cflags: ['-O1', '-g', '-Wall', '-Wextra', '-Werror'] });
    const linked = tmpDir(`tau-api-${cc}`);
    const r = await run(exe, [], { env: { HYPROF_DIR: linked } });
    t.is(r.code, 0, r.stderr);
    checkC(t, mainThread(linked), r.stdout);
    const ran = tmpDir(`tau-api-run-${cc}`);
    const h = await hyprof(['run', '--dir', ran, '--no-sampling', '--', exe]);
    t.is(h.code, 0, h.stderr);
    checkC(t, mainThread(ran), h.stdout);
  });
}

for (const cxx of ['g++', 'clang++']) {
  test.serial(`TAU's C++ API (CT, TAU_TYPE_STRING, scope timers and phases) compiles unchanged with ${cxx}`, async (t) => {
    if (!existsSync(libPath)) return t.fail(`the native runtime is not built: ${libPath}`);
    const exe = compileC(`tau_api_cxx_${cxx}`, ['tau_api_cxx.cc'], { cc: cxx, cflags: ['-O1', '-g', '-Wall', '-Wextra', '-Werror'] });
    const dir = tmpDir(`tau-api-cxx-${cxx}`);
    const r = await run(exe, [], { env: { HYPROF_DIR: dir } });
    t.is(r.code, 0, r.stderr);
    const p = mainThread(dir);
    t.is(calls(p, 'main() int (int, char **)'), 1);
    t.is(calls(p, 'Grid::fill() Grid<double> void ()'), 6, 'CT(*this) names the type as the program reads it');
    t.is(group(p, 'Grid::fill() Grid<double> void ()'), 'TAU_FIELD');
    t.is(group(p, 'scoped phase'), 'TAU_USER|TAU_PHASE');
    t.is(calls(p, '.TAU application => main() int (int, char **) => scoped phase => Grid::fill() Grid<double> void ()'), 1);
    t.is(calls(p, 'dynamic 0'), 1);
    t.is(calls(p, 'dynamic 1'), 1);
    t.is(calls(p, 'string name (string type)'), 1);
  });
}

test.serial('TAU variables hyprof does not implement are named once each, with what happens instead', async (t) => {
  if (!existsSync(libPath)) return t.fail(`the native runtime is not built: ${libPath}`);
  const exe = compileC('tau_vars', ['tau_api_c.c']);
  const env = {
    HYPROF_DIR: tmpDir('tau-vars'),
    TAU_TRACE: '0', // implemented (HYPROF_TRACE), and off: never named here
    TRACEDIR: '/tmp/traces',
    TAU_TRACK_HEAP: 'on',
    TAU_TRACK_MESSAGE: '0', // off: asks for nothing hyprof lacks
    TAU_THROTTLE: '1', // implemented elsewhere: never named here
    TAU_METRICS: 'TIME',
    TAU_PROFILE_FORMAT: 'profile',
  };
  const r = await run(exe, [], { env });
  t.is(r.code, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => / is not supported: /.test(l));
  t.deepEqual(lines, [
    "hyprof: TRACEDIR is not supported: the trace (TAU_TRACE=1) is written in the profile's directory, as traces.otf2 (TRACEDIR=/tmp/traces ignored)",
    'hyprof: TAU_TRACK_HEAP is not supported: heap memory is not tracked (TAU_TRACK_HEAP=on ignored)',
  ]);
  // Another MPI rank says nothing: rank 0 has said it for the job.
  const rank1 = await run(exe, [], { env: { ...env, HYPROF_DIR: tmpDir('tau-vars-rank1'), OMPI_COMM_WORLD_RANK: '1', OMPI_COMM_WORLD_SIZE: '2' } });
  t.is(rank1.code, 0, rank1.stderr);
  t.notRegex(rank1.stderr, /is not supported/);
});

test.serial('misuse of the calls behind TAU.h says what was wrong and the program runs on', async (t) => {
  if (!existsSync(libPath)) return t.fail(`the native runtime is not built: ${libPath}`);
  const exe = compileC('tau_misuse', ['tau_misuse.c'], { cflags: ['-O1', '-g', '-Wall', '-Wextra', '-Werror'] });
  const dir = tmpDir('tau-misuse');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'null totals 0 0 0 0\nrunning calls 0\nstopped calls 1\n');
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('hyprof: ') && !l.includes('profile of'));
  t.deepEqual(lines, [
    'hyprof: stop of the running timer while no timer is running on thread 0; ignored',
    'hyprof: hyprof_metadata: the name is empty; ignored (said once)',
    "hyprof: stop of 'never started', which is not running on thread 0 (innermost running: 'running'); ignored",
  ]);
  t.is(calls(mainThread(dir), 'running'), 1);
  t.is(calls(mainThread(dir), 'recursive'), 1, 'the start made while off was not counted, its stop did not end the outer call');
  t.is(calls(mainThread(dir), '.TAU application => running => recursive'), 1);
});

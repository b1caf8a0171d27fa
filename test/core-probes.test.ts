/**
 * The native core on real programs: exact call counts, child calls, time conservation, phases and
 * parameters, 64 threads, misuse, fork, SIGTERM, TAU.h — read back from the raw file the runtime
 * wrote (src/samples/raw-reader.ts).
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRawFile } from '../src/samples/raw-reader.js';
import type { RawProcess, RawStat, RawThread } from '../src/samples/raw-model.js';
import { compileC, run, tmpDir } from './helpers/native.js';

/** Run a program with the runtime writing raw files only (no resolve) into a fresh directory. */
async function measure(exe: string, args: string[] = [], env: Record<string, string> = {}) {
  const dir = tmpDir('raw');
  const result = await run(exe, args, {
    env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', ...env },
  });
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.raw'))
    .map((f) => join(dir, f));
  return { result, dir, processes: files.map(readRawFile) };
}

function eventId(p: RawProcess, name: string): number {
  const e = p.events.find((ev) => ev.name === name);
  if (!e) throw new Error(`no event ${name} in ${p.events.map((x) => x.name).join(', ')}`);
  return e.id;
}

/** Statistics of every context of `name` on a thread. */
function statsOf(p: RawProcess, t: RawThread, name: string): RawStat[] {
  const id = eventId(p, name);
  return t.stats.list().filter((s) => p.contexts.get(s.context)?.event === id);
}

function total(stats: RawStat[], key: 'calls' | 'childCalls'): number {
  return stats.reduce((a, s) => a + s[key], 0);
}

/** Path of event names from the root to a context. */
function pathOf(p: RawProcess, context: bigint): string[] {
  const names: string[] = [];
  for (let c = p.contexts.get(context); c; c = c.parent ? p.contexts.get(c.parent) : undefined) {
    names.unshift(p.events[c.event].name);
  }
  return names;
}

for (const cc of ['gcc', 'clang'] as const) {
  test(`${cc}: exact calls, child calls, nesting and conserved time`, async (t) => {
    const exe = compileC(`core_nesting_${cc}`, ['core_nesting.c'], { cc });
    const { result, processes } = await measure(exe);
    t.is(result.code, 0, result.stderr);
    t.is(processes.length, 1);
    const p = processes[0];
    t.is(p.threads.length, 1);
    const th = p.threads[0];

    const root = statsOf(p, th, '.TAU application');
    t.is(root.length, 1);
    t.is(root[0].calls, 1);
    t.is(root[0].childCalls, 1, 'the root has one child: main');
    const main = statsOf(p, th, 'main');
    t.is(total(main, 'calls'), 1);
    t.is(total(main, 'childCalls'), 5, 'main: 3 outer + 2 phases');
    const outer = statsOf(p, th, 'outer');
    t.is(total(outer, 'calls'), 3);
    t.is(total(outer, 'childCalls'), 6);
    const inner = statsOf(p, th, 'inner');
    t.is(total(inner, 'calls'), 6);
    t.deepEqual(pathOf(p, inner[0].context), ['.TAU application', 'main', 'outer', 'inner']);
    t.is(p.events[eventId(p, 'inner')].group, 'MY_GROUP');

    // Phases and parameters: the parameter specialises the running timer and becomes its context.
    const phase = p.events.find((e) => e.name === 'Iteration 1');
    t.truthy(phase);
    t.is(phase!.group, 'TAU_USER|TAU_PHASE');
    t.is(phase!.kind, 1);
    const spec = p.events.find((e) => e.name === 'kernel  [ <size> = <256> ]  ');
    t.truthy(spec, 'parameter event named as TAU names it');
    t.is(spec!.group, 'TAU_PARAM | TAU_USER');
    t.is(spec!.base, eventId(p, 'kernel'));
    const specStats = statsOf(p, th, 'kernel  [ <size> = <256> ]  ');
    t.is(total(specStats, 'calls'), 1);
    t.deepEqual(pathOf(p, specStats[0].context), ['.TAU application', 'main', 'Iteration 1', 'kernel  [ <size> = <256> ]  ']);
    t.is(total(statsOf(p, th, 'kernel'), 'calls'), 2);

    // Every statistic: inclusive >= exclusive; exclusive times of all timer contexts sum exactly to
    // the root's inclusive time (each nanosecond belongs to exactly one running timer).
    for (const s of th.stats) t.true(s.incl[0] >= s.excl[0]);
    const nonParam = th.stats.list().filter((s) => p.events[p.contexts.get(s.context)!.event].kind !== 2);
    const exclSum = nonParam.reduce((a, s) => a + s.excl[0], 0);
    t.is(exclSum, root[0].incl[0]);

    // User event: count, min, max, sum, sum of squares.
    const ue = [...p.userEvents.entries()].find(([, n]) => n === 'message size');
    t.truthy(ue);
    const us = th.userStats.find((u) => u.userEvent === ue![0]);
    t.deepEqual(
      us && [us.count, us.min, us.max, us.sum, us.sumsqr],
      [4, 10, 40, 100, 100 + 400 + 900 + 1600],
    );
    t.deepEqual(th.warnings, []);
    t.deepEqual(th.open, []);
  });
}

// Literal names are resolved once per call site by hyprof.h's macros; everything else by the
// functions. Either way the events and counts are the same; the C++ builds take the template path.
for (const [cc, opt] of [['gcc', '-O0'], ['gcc', '-O2'], ['clang', '-O2'], ['g++', '-O2'], ['clang++', '-O0'], ['clang++', '-O2']] as const) {
  test(`${cc} ${opt}: names reach the same events by literal, at run time, through a parameter and TAU_START`, async (t) => {
    const lang = cc.endsWith('++') ? ['-x', 'c++'] : [];
    const exe = compileC(`core_named_${cc}${opt}`, ['core_named.c'], { cc, cflags: [opt, '-g', '-Wall', '-Wextra', '-Werror', ...lang] });
    const { result, processes } = await measure(exe);
    t.is(result.code, 0, result.stderr);
    const p = processes[0];
    const calls = (name: string) => p.threads.reduce((a, th) => a + total(statsOf(p, th, name), 'calls'), 0);
    const expected: Record<string, number> = {
      main: 1,
      literal: 3,
      'dynamic 0': 2,
      'dynamic 1': 2,
      'inside dynamic': 4,
      'Iteration 0': 1,
      'Iteration 3': 1,
      'wrapped a': 1,
      'wrapped b': 2,
      'tau start': 2,
      'static phase': 1,
      'through a pointer': 1,
      threaded: 4000,
    };
    for (const [name, n] of Object.entries(expected)) t.is(calls(name), n, name);
    for (const name of ['Iteration 0', 'static phase']) t.is(p.events[eventId(p, name)].kind, 1, `${name} is a phase`);
    t.is(p.events[eventId(p, 'literal')].group, 'TAU_USER');
    const inside = statsOf(p, p.threads[0], 'inside dynamic');
    t.deepEqual(inside.map((s) => pathOf(p, s.context).join(' => ')).sort(), [
      '.TAU application => main => dynamic 0 => inside dynamic',
      '.TAU application => main => dynamic 1 => inside dynamic',
    ]);
    t.is(p.threads.filter((th) => total(statsOf(p, th, 'threaded'), 'calls') === 1000).length, 4);
    for (const th of p.threads) t.deepEqual(th.warnings, []);
  });
}

// Names resolved once per call site: the program counts its own calls of the look-up and of the
// by-name functions (-Wl,--wrap). Four literal call sites (two by hyprof_start_named / stop, two by
// TAU_START / TAU_STOP) run 500 times each: four look-ups; a name made at run time: every call by name.
// HYPROF_NO_CALLSITE_CACHE turns the handles off: the control that the counts see the difference.
for (const [cc, opt, nocache] of [['gcc', '-O0', false], ['gcc', '-O2', false], ['clang', '-O2', false], ['g++', '-O2', false], ['clang++', '-O0', false], ['gcc', '-O2', true]] as const) {
  const title = nocache ? 'HYPROF_NO_CALLSITE_CACHE: every call goes by name (the control)' : 'a literal name is looked up once per call site';
  test(`${cc} ${opt}: ${title}`, async (t) => {
    const lang = cc.endsWith('++') ? ['-x', 'c++'] : [];
    const exe = compileC(`core_callsite_${cc}${opt}${nocache ? '_nocache' : ''}`, ['core_callsite.c'], {
      cc,
      cflags: [opt, '-g', '-Wall', '-Werror', ...(nocache ? ['-DHYPROF_NO_CALLSITE_CACHE'] : []), ...lang],
      ldflags: ['-Wl,--wrap=hyprof_event,--wrap=hyprof_start_named,--wrap=hyprof_stop_named'],
    });
    const { result, processes } = await measure(exe, ['500']);
    t.is(result.code, 0, result.stderr);
    t.is(result.stdout.trim(), nocache ? 'lookups 0 by-name 3000' : 'lookups 4 by-name 1000');
    const p = processes[0];
    for (const name of ['literal', 'tau start', 'made at run time 0']) t.is(total(statsOf(p, p.threads[0], name), 'calls'), 500, name);
  });
}

test('64 threads, numbered in order of first appearance, one never calling a probe', async (t) => {
  const exe = compileC('core_threads', ['core_threads.c']);
  const { result, processes } = await measure(exe, ['64']);
  t.is(result.code, 0, result.stderr);
  const p = processes[0];
  t.is(p.threads.length, 66, 'main + 64 workers + the silent thread');
  const byIndex = [...p.threads].sort((a, b) => a.index - b.index);
  t.deepEqual(
    byIndex.map((th) => th.index),
    Array.from({ length: 66 }, (_, i) => i),
  );
  for (let k = 0; k < 64; k++) {
    const th = byIndex[k + 1];
    t.is(total(statsOf(p, th, 'work'), 'calls'), k + 1, `thread ${k + 1}`);
  }
  const silent = byIndex[65];
  t.is(statsOf(p, silent, '.TAU application')[0].calls, 1, 'a thread without probes still has its root');
  t.is(new Set(p.threads.map((th) => th.tid)).size, 66);
});

test('misuse gives one clear warning each and a consistent profile', async (t) => {
  const exe = compileC('core_misuse', ['core_misuse.c']);
  const { result, processes } = await measure(exe);
  t.is(result.code, 0);
  const err = result.stderr;
  t.regex(err, /stop of 'never started' while no timer is running on thread 0; ignored/);
  t.regex(err, /parameter 'size' set while no timer is running on thread 0; ignored/);
  t.regex(err, /stop of 'A' while 'B', started inside it, is still running on thread 0; 'B' is stopped too/);
  t.regex(err, /stop of 'D', which is not running on thread 0 \(innermost running: 'C'\); ignored/);
  t.is(err.match(/stop of 'A'/g)?.length, 1, 'each warning once');
  const p = processes[0];
  const th = p.threads[0];
  t.is(total(statsOf(p, th, 'A'), 'calls'), 1);
  t.is(total(statsOf(p, th, 'B'), 'calls'), 1);
  t.is(total(statsOf(p, th, 'C'), 'calls'), 1);
  t.is(th.warnings.length, 4);
  // The timer left running is closed when the file is written and named as open.
  const left = statsOf(p, th, 'left running');
  t.is(total(left, 'calls'), 1);
  t.deepEqual(th.open, [left[0].context]);
  const root = statsOf(p, th, '.TAU application')[0];
  const exclSum = th.stats.list().reduce((a, s) => a + s.excl[0], 0);
  t.is(exclSum, root.incl[0]);
});

test('a forked child writes its own file without the parent data', async (t) => {
  const exe = compileC('core_fork', ['core_fork.c']);
  const { result, processes } = await measure(exe);
  t.is(result.code, 0, result.stderr);
  t.is(processes.length, 2);
  const child = processes.find((p) => p.info.flags & 1)!;
  const parent = processes.find((p) => !(p.info.flags & 1))!;
  t.truthy(child && parent);
  t.is(child.info.ppid, parent.info.pid);
  const ct = child.threads;
  t.is(ct.length, 1);
  t.is(total(statsOf(child, ct[0], 'child work'), 'calls'), 3);
  t.is(total(statsOf(child, ct[0], 'before fork'), 'calls'), 0, 'parent data not duplicated');
  t.is(total(statsOf(child, ct[0], 'around fork'), 'calls'), 1);
  const pt = parent.threads[0];
  t.is(total(statsOf(parent, pt, 'before fork'), 'calls'), 1);
  t.is(total(statsOf(parent, pt, 'parent work'), 'calls'), 1);
  t.throws(() => eventId(parent, 'child work'), undefined, 'the child registered its event after the fork');
});

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  test(`${sig} in the middle of a run still leaves the measurements`, async (t) => {
    const exe = compileC(`core_sigterm_${sig}`, ['core_sigterm.c']);
    const dir = tmpDir('sig');
    const result = await run(exe, [], {
      env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0' },
      onSpawn: (child) => {
        child.stdout!.on('data', (d: Buffer) => {
          if (d.toString().includes('ready')) setTimeout(() => child.kill(sig), 200);
        });
      },
    });
    t.is(result.signal, sig, 'the default action of the signal still happens');
    const files = readdirSync(dir).filter((f) => f.endsWith('.raw'));
    t.is(files.length, 1);
    const p = readRawFile(join(dir, files[0]));
    t.truthy(p.info.flags & 2, 'written from the signal handler');
    const th = p.threads[0];
    t.true(total(statsOf(p, th, 'step'), 'calls') > 10);
    t.is(total(statsOf(p, th, 'endless loop'), 'calls'), 1);
    t.is(th.open.length >= 1, true, 'the endless loop was still open');
  });
}

for (const cxx of ['g++', 'clang++'] as const) {
  test(`TAU.h program compiles unchanged with ${cxx} and records TAU names`, async (t) => {
    const exe = compileC(`core_tau_${cxx}`, ['core_tau_api.cc'], { cc: cxx });
    const { result, processes } = await measure(exe);
    t.is(result.code, 0, result.stderr);
    const p = processes[0];
    const th = p.threads[0];
    t.is(total(statsOf(p, th, 'compute int (int)'), 'calls'), 3);
    t.is(total(statsOf(p, th, 'main int (int, char **)'), 'calls'), 1);
    t.is(p.events[eventId(p, 'main int (int, char **)')].group, 'TAU_DEFAULT');
    t.is(p.events[eventId(p, 'Iteration 2')].group, 'TAU_USER|TAU_PHASE');
    t.truthy(p.events.find((e) => e.name === 'Iteration 1  [ <n> = <200> ]  '));
    t.is(total(statsOf(p, th, 'by name'), 'calls'), 1);
    const ue = [...p.userEvents.entries()].find(([, n]) => n === 'bytes sent')!;
    t.is(th.userStats.find((u) => u.userEvent === ue[0])?.count, 3);
  });
}

test('configuration: TAU aliases are honoured, malformed values warn once with the value used', async (t) => {
  const exe = compileC('core_config', ['core_misuse.c']);
  const { result, processes } = await measure(exe, [], {
    TAU_CALLPATH: 'off',
    HYPROF_CALLPATH_DEPTH: 'abc',
    HYPROF_VERBOSE: 'maybe',
  });
  t.is(result.code, 0);
  t.regex(result.stderr, /hyprof: HYPROF_CALLPATH_DEPTH=abc is not a whole number from 1 to 100000; using 100/);
  t.regex(result.stderr, /hyprof: HYPROF_VERBOSE=maybe is not a boolean \(1\/0, on\/off, true\/false, yes\/no\); using 0/);
  t.is(result.stderr.match(/HYPROF_CALLPATH_DEPTH=abc/g)?.length, 1);
  const attrs = new Map(processes[0].info.attributes);
  t.is(attrs.get('TAU_CALLPATH'), 'off');
  t.is(attrs.get('HYPROF_CALLPATH_DEPTH'), '100');
});

test('a value of thousands of characters: its warning is one line that keeps its end', async (t) => {
  const exe = compileC('core_config_long', ['core_misuse.c']);
  const value = `${'7'.repeat(4990)}xyz`;
  const { result } = await measure(exe, [], { HYPROF_CALLPATH_DEPTH: value });
  t.is(result.code, 0);
  const line = result.stderr.split('\n').find((l) => l.startsWith('hyprof: HYPROF_CALLPATH_DEPTH='));
  t.truthy(line, result.stderr);
  t.regex(line!, /^hyprof: HYPROF_CALLPATH_DEPTH=7{500,} \[\.\.\.\] 7+xyz is not a whole number from 1 to 100000; using 100$/);
  t.true(line!.length < 1000, `${line!.length} characters`);
  t.true(result.stderr.includes(`${line}\n`), 'the line ends with its newline');
});

test('an unwritable measurement directory is reported and the program exits normally', async (t) => {
  const exe = compileC('core_unwritable', ['core_nesting.c']);
  const result = await run(exe, [], { env: { HYPROF_RAW_DIR: '/proc/hyprof-cannot-be-here', HYPROF_RESOLVE: '0' } });
  t.is(result.code, 0);
  t.regex(result.stderr, /hyprof: cannot write the measurements to \/proc\/hyprof-cannot-be-here: /);
});

test('HYPROF_DISABLE=1 measures nothing and writes nothing', async (t) => {
  const exe = compileC('core_disabled', ['core_nesting.c']);
  const { result, processes } = await measure(exe, [], { HYPROF_DISABLE: '1' });
  t.is(result.code, 0);
  t.is(processes.length, 0);
  t.is(result.stderr, '');
});

test('-DHYPROF_NO_PROBES builds the same source uninstrumented, without the library', async (t) => {
  const exe = compileC('core_noprobes', ['core_nesting.c'], { link: false, cflags: ['-O1', '-DHYPROF_NO_PROBES'] });
  const { result, processes } = await measure(exe);
  t.is(result.code, 0, result.stderr);
  t.is(processes.length, 0, 'nothing measured, nothing written');
  const cxx = compileC('core_noprobes_tau', ['core_tau_api.cc'], { cc: 'g++', link: false, cflags: ['-O1', '-DHYPROF_NO_PROBES'] });
  t.is((await run(cxx, [])).code, 0);
});

test('flushes while another thread enters new contexts always write complete, consistent files', async (t) => {
  const exe = compileC('core_flush_race', ['core_flush_race.c']);
  const copies = tmpDir('flush-copies');
  const { result } = await measure(exe, [copies]);
  t.is(result.code, 0, result.stderr);
  const files = readdirSync(copies).filter((f) => f.startsWith('flush-'));
  t.is(files.length, 12);
  for (const f of files) {
    const p = readRawFile(join(copies, f)); // throws on any dangling context or event
    t.true(p.info.flags & 4 ? true : false, `${f} is marked as a flush`);
    t.true(p.threads.length >= 1 && p.threads.length <= 2, `${p.threads.length} threads`);
  }
});

test('SIGTERM then SIGINT while the first dump is written: the measurements are not lost', async (t) => {
  const exe = compileC('core_dump_signals', ['core_dump_signals.c']);
  const dir = tmpDir('sig2');
  const result = await run(exe, ['400000'], {
    // Every call counted: 400,000 tiny calls would be throttled (TAU's default rule).
    env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_THROTTLE: '0' },
    onSpawn: (child) => {
      child.stdout!.on('data', (d: Buffer) => {
        if (!d.toString().includes('ready')) return;
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGINT'), 20);
      });
    },
  });
  t.true(result.signal === 'SIGTERM' || result.signal === 'SIGINT', `ended by ${result.signal}`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(files.length, 1, 'the file was written before the process ended');
  const p = readRawFile(join(dir, files[0]));
  t.is(total(statsOf(p, p.threads[0], 'work'), 'calls'), 400000);
});

test('an Open MPI rank stopped by SIGTERM waits for its node\'s other ranks at most 0.6 of mpirun\'s SIGKILL time, never over 2 s', async (t) => {
  // One rank of a node of two, the other never comes: the wait runs out. A bound too long outlives
  // mpirun's SIGKILL (the rank dies before it says where its file is); none cuts a slower rank's write.
  const exe = compileC('core_dump_signals', ['core_dump_signals.c']);
  const stoppedAfter = async (killAfter: string): Promise<{ s: number; dir: string; signal: string | null }> => {
    const dir = tmpDir('rank-end');
    let sent = 0n;
    const result = await run(exe, ['10'], {
      env: {
        HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', OMPI_COMM_WORLD_RANK: '0', OMPI_COMM_WORLD_SIZE: '2',
        OMPI_COMM_WORLD_LOCAL_SIZE: '2', OMPI_MCA_ess_base_jobid: '4242', OMPI_MCA_odls_base_sigkill_timeout: killAfter,
      },
      onSpawn: (child) => {
        child.stdout!.on('data', (d: Buffer) => {
          if (!d.toString().includes('ready')) return;
          sent = process.hrtime.bigint();
          child.kill('SIGTERM');
        });
      },
    });
    return { s: Number(process.hrtime.bigint() - sent) / 1e9, dir, signal: result.signal };
  };
  // 30744573457 s times 0.6e9 ns wraps past 2^64 to 0.49 s unless the time is bounded first.
  for (const [killAfter, least] of [['1', 0.55], ['not-a-number', 0.55], ['3', 1.75], ['30744573457', 1.95]] as const) {
    const r = await stoppedAfter(killAfter);
    t.is(r.signal, 'SIGTERM', `sigkill_timeout ${killAfter}`);
    t.true(r.s >= least && r.s < least + 8, `sigkill_timeout ${killAfter}: ended ${r.s.toFixed(2)} s after SIGTERM, at least ${least} s`);
    const left = readdirSync(r.dir);
    t.is(left.filter((f) => f.endsWith('.raw')).length, 1, `sigkill_timeout ${killAfter}: the file was written`);
    t.deepEqual(left.filter((f) => f.startsWith('.hyprof-ended')), [], 'the tally is removed by the rank whose wait ran out');
  }
});

test('timers nested deeper than 256 levels per thread are counted and named, the rest measured', async (t) => {
  const exe = compileC('deep_nesting', ['deep_nesting.c']);
  const dir = tmpDir('deep');
  // 300 levels: the root and 255 timers are kept, 45 starts (and their stops) are counted. Event
  // paths are written whole (the default depth of 100 names only the innermost 100 levels).
  const env = { HYPROF_SAMPLING: '0', HYPROF_CALLPATH_DEPTH: '1000' };
  const r = await run(exe, ['300'], { env: { ...env, HYPROF_DIR: dir } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /deep done/);
  t.regex(r.stderr, /^hyprof: 45 timer entries not recorded: timers nested too deep \(those timers are missing from the profile\)$/m);
  const profile = readFileSync(join(dir, 'profile.0.0.0'), 'utf8');
  t.regex(profile, /^"level" 255 254 /m);
  t.regex(profile, /<name>hyprof dropped timers_nested_too_deep<\/name><value>45<\/value>/);
  // Below the limit nothing is counted.
  const dir2 = tmpDir('deep-ok');
  const r2 = await run(exe, ['255'], { env: { ...env, HYPROF_DIR: dir2 } });
  t.is(r2.code, 0, r2.stderr);
  t.notRegex(r2.stderr, /not recorded|nested too deep/);
  t.regex(readFileSync(join(dir2, 'profile.0.0.0'), 'utf8'), /^"level" 255 254 /m);
});

test('a flush while another thread is held in the middle of a write counts that thread\'s entries as possibly torn', async (t) => {
  // The worker is held inside the write that grows its statistics table (its own calloc waits):
  // what a second SIGTERM does to a thread it lands on mid-write. Its sequence count stays odd for
  // the whole flush; after one reading runs to the bound, each entry is read once.
  const exe = compileC('held_mid_write', ['held_mid_write.c']);
  const dir = tmpDir('held');
  const r = await run(exe, [], { env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /flushed while the worker was held/);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const p = readRawFile(join(dir, raws[0]!));
  const worker = p.threads.find((th) => th.index === 1)!;
  t.truthy(worker);
  // The 128 events closed before the growth (the table's entries) and the two open frames, the root
  // and the event being closed (in no table yet): every one of them read while the thread was held.
  t.is(worker.stats.length, 130);
  const torn = worker.drops.find(([reason]) => reason === 'entries_possibly_torn')?.[1];
  t.is(Number(torn), 130);
  t.false(p.threads[0]!.drops.some(([reason]) => reason === 'entries_possibly_torn'), 'the flushing thread is read as usual');
});

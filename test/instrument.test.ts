/**
 * Compiler instrumentation (-finstrument-functions) and throttling: real programs compiled with gcc,
 * clang and gfortran, linked with -lhyprof or run under `hyprof run`, with and without TAU's
 * selective instrumentation file; every profile goes through the conformance helper (run / hyprof).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauEvent, TauThreadProfile } from '../src/profile/tau-model.js';
import { haveTool, hyprof, includeDir, libDir, run, testNativeDir, tmpDir } from './helpers/native.js';

const LINK = [`-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof'];

/** What `hyprof config --instrument --compiler X` printed, asked once per compiler in this file. */
const instrumentFlags = new Map<string, Promise<string[]>>();
/** Programs built by `build`, by compiler, sources and options: most tests build the same program
 * with the same flags, and a copy of the first build is that program (the compiler's output does not
 * depend on the output's name). */
const builds = new Map<string, Promise<string>>();

/** Compile with the flags `hyprof config --instrument` prints (plus `extra`); returns the program. */
async function build(compiler: string, sources: string[], out: string, opts: { link?: boolean; extra?: string[] } = {}): Promise<string> {
  const key = JSON.stringify([compiler, sources, opts.link !== false, opts.extra ?? []]);
  let first = builds.get(key);
  if (!first) {
    first = compile(compiler, sources, out, opts);
    builds.set(key, first);
    return first;
  }
  copyFileSync(await first, out);
  return out;
}

async function compile(compiler: string, sources: string[], out: string, opts: { link?: boolean; extra?: string[] }): Promise<string> {
  let asked = instrumentFlags.get(compiler);
  if (!asked) {
    asked = hyprof(['config', '--instrument', '--compiler', compiler]).then((r) => r.stdout.trim().split(' '));
    instrumentFlags.set(compiler, asked);
  }
  const flags = await asked;
  const args = ['-O1', ...flags, ...(opts.extra ?? []), `-I${includeDir}`, ...sources.map((s) => join(testNativeDir, s)), '-o', out, ...(opts.link === false ? [] : LINK)];
  const r = spawnSync(compiler, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${compiler} ${args.join(' ')}:\n${r.stderr}`);
  return out;
}

function thread0(dir: string): TauThreadProfile {
  return readTauProfileDir(dir).threads[0][0];
}

/** The flat entry of the function named `fn` (compiler-instrumented names: `fn [{file} {line,0}]`). */
function fn(t: TauThreadProfile, name: string): TauEvent | undefined {
  return t.events.find((e) => !e.name.includes(' => ') && (e.name === name || e.name.startsWith(`${name} [{`)));
}

function flatNames(t: TauThreadProfile): string[] {
  return t.events.filter((e) => !e.name.includes(' => ')).map((e) => e.name);
}

const TOOLS = ['gcc', 'clang', 'gfortran'];
test.before(() => {
  for (const tool of TOOLS) if (!haveTool(tool)) throw new Error(`${tool} is needed (scripts/install-deps.sh installs it)`);
});

for (const cc of ['gcc', 'clang']) {
  test(`${cc}: every function a timer, named after the run, with its calls and nesting`, async (t) => {
    const dir = tmpDir(`instr-${cc}`);
    const exe = await build(cc, ['instr_app.c', 'instr_util.c'], join(dir, 'app'));
    const out = join(dir, 'prof');
    const r = await run(exe, ['10'], { env: { HYPROF_DIR: out } });
    t.is(r.code, 0, r.stderr);
    const th = thread0(out);
    t.is(fn(th, 'main')?.calls, 1);
    t.is(fn(th, 'compute')?.calls, 10);
    t.is(fn(th, 'helper')?.calls, 10);
    t.is(fn(th, 'leaf')?.calls, 200);
    t.is(fn(th, 'util_sum')?.calls, 10);
    t.is(fn(th, 'util_square')?.calls, 40);
    t.is(fn(th, 'compute')?.subrs, 20, 'compute calls helper and util_sum');
    t.is(fn(th, 'main')?.group, 'TAU_DEFAULT');
    // TAU's naming of compiler-instrumented functions: name, file and the line where it begins.
    t.regex(fn(th, 'helper')!.name, /^helper \[\{.*instr_app\.c\} \{10,0\}\]$/);
    const path = th.events.find((e) => / => leaf \[/.test(e.name))?.name ?? '';
    t.regex(path, /^\.TAU application => main \[.*\] => compute \[.*\] => helper \[.*\] => leaf \[.*\]$/);
    t.false(flatNames(th).some((n) => n.startsWith('@0x')), 'no event keeps its address for a name');
  });
}

test('gfortran: module routines and the main program are timers', async (t) => {
  const dir = tmpDir('instr-f90');
  const exe = await build('gfortran', ['instr_app.f90'], join(dir, 'app'), { extra: ['-J', dir] }); // kernels.mod there
  const out = join(dir, 'prof');
  const r = await run(exe, [], { env: { HYPROF_DIR: out } });
  t.is(r.code, 0, r.stderr);
  const th = thread0(out);
  const relax = th.events.find((e) => !e.name.includes(' => ') && /relax/.test(e.name));
  t.truthy(relax, flatNames(th).join(', '));
  t.is(relax!.calls, 7);
  t.regex(relax!.name, /\[\{.*instr_app\.f90\} \{5,0\}\]$/);
  // The main program is named as Fortran names it (gfortran's MAIN__ is the PROGRAM instr_app,
  // called by the C main gfortran writes).
  t.truthy(th.events.find((e) => / => instr_app \[[^\]]*\] => kernels::relax \[/.test(e.name)), `relax under the main program: ${th.events.map((e) => e.name).join(', ')}`);
  t.false(th.events.some((e) => /MAIN__|_MOD_/.test(e.name)), 'no gfortran symbol names');
  // An external procedure without the underscore gfortran adds to its linkage name (smooth_).
  t.truthy(th.events.find((e) => / => instr_app \[[^\]]*\] => smooth \[\{.*instr_app\.f90\} \{\d+,0\}\]$/.test(e.name)), flatNames(th).join(', '));
  t.false(th.events.some((e) => /smooth_/.test(e.name)), 'no linkage name of an external procedure');
  // A select file names Fortran routines as Fortran does (module::routine), under hyprof run.
  const sel = join(dir, 'select.tau');
  writeFileSync(sel, 'BEGIN_EXCLUDE_LIST\nkernels::relax\nEND_EXCLUDE_LIST\n');
  const out2 = join(dir, 'prof2');
  const r2 = await hyprof(['run', '--dir', out2, '--no-sampling', '--', exe], { env: { HYPROF_SELECT_FILE: sel } });
  t.is(r2.code, 0, r2.stderr);
  const th2 = thread0(out2);
  t.false(th2.events.some((e) => /relax/.test(e.name)), th2.events.map((e) => e.name).join(', '));
  t.truthy(th2.events.find((e) => /^instr_app \[/.test(e.name)), 'the main program is still measured');
});

test('under hyprof run: the preloaded hooks win over glibc empty ones (program not linked with hyprof)', async (t) => {
  const dir = tmpDir('instr-run');
  const exe = await build('gcc', ['instr_app.c', 'instr_util.c'], join(dir, 'app'), { link: false });
  const nm = spawnSync('nm', ['-D', exe], { encoding: 'utf8' }).stdout;
  t.regex(nm, /U __cyg_profile_func_enter/, 'the program calls the hooks and does not define them');
  const out = join(dir, 'prof');
  const r = await hyprof(['run', '--dir', out, '--no-sampling', '--', exe, '4']);
  t.is(r.code, 0, r.stderr);
  const th = thread0(out);
  t.is(fn(th, 'compute')?.calls, 4);
  t.is(fn(th, 'leaf')?.calls, 80);
});

test('under hyprof run with sampling: samples inside an instrumented function are under its timer', async (t) => {
  const dir = tmpDir('instr-sampled');
  const exe = await build('gcc', ['instr_app.c', 'instr_util.c'], join(dir, 'app'), { link: false });
  const out = join(dir, 'prof');
  // Enough calls to be sampled; the tiny functions get throttled (said on stderr), the profile stays whole.
  const r = await hyprof(['run', '--dir', out, '--period', '200', '--', exe, '100000']);
  t.is(r.code, 0, r.stderr);
  const th = thread0(out);
  const contexts = th.events.filter((e) => e.name.startsWith('[CONTEXT] ') && !e.name.includes(' => '));
  t.true(contexts.some((e) => /^\[CONTEXT\] (compute|helper|util_sum|main) \[\{/.test(e.name)), contexts.map((e) => e.name).join(', '));
  t.true(th.events.some((e) => e.name.startsWith('[SAMPLE] ')), 'samples were taken');
});

test('four threads register and call the same functions at once: every call counted on its thread', async (t) => {
  const dir = tmpDir('instr-threads');
  const exe = await build('gcc', ['instr_threads.c'], join(dir, 'app'), { extra: ['-pthread'] });
  const out = join(dir, 'prof');
  const r = await run(exe, [], { env: { HYPROF_DIR: out } });
  t.is(r.code, 0, r.stderr);
  const threads = readTauProfileDir(out).threads[0];
  const workers = threads.filter((th) => fn(th, 't_work'));
  t.is(workers.length, 4);
  for (const th of workers) {
    t.is(fn(th, 't_work')?.calls, 100);
    t.is(fn(th, 't_leaf')?.calls, 1000);
    t.is(fn(th, 't_work')?.name, fn(workers[0], 't_work')?.name, 'one event per function for every thread');
  }
});

test('linked: libhyprof.so comes before libc, so its hooks are the ones called', async (t) => {
  const dir = tmpDir('instr-order');
  const exe = await build('gcc', ['instr_app.c', 'instr_util.c'], join(dir, 'app'));
  const needed = spawnSync('readelf', ['-d', exe], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes('NEEDED'));
  const at = (lib: string) => needed.findIndex((l) => l.includes(lib));
  t.true(at('libhyprof.so') >= 0 && at('libhyprof.so') < at('libc.so'), needed.join('\n'));
});

/** Write a select file; returns its path. */
function selectFile(dir: string, text: string): string {
  const p = join(dir, 'select.tau');
  writeFileSync(p, text);
  return p;
}

for (const cc of ['gcc', 'clang']) {
  test(`${cc}: an exclude list with a quoted leading wildcard leaves those functions out; their time stays in the caller`, async (t) => {
    const dir = tmpDir(`instr-excl-${cc}`);
    const exe = await build(cc, ['instr_app.c', 'instr_util.c'], join(dir, 'app'));
    const sel = selectFile(dir, '# not these\nBEGIN_EXCLUDE_LIST\nleaf\n"#_square"\nEND_EXCLUDE_LIST\n');
    const out = join(dir, 'prof');
    const r = await run(exe, ['10'], { env: { HYPROF_DIR: out, HYPROF_SELECT_FILE: sel } });
    t.is(r.code, 0, r.stderr);
    t.is(r.stderr.includes('select'), false, r.stderr);
    const th = thread0(out);
    t.is(fn(th, 'leaf'), undefined);
    t.is(fn(th, 'util_square'), undefined);
    t.is(fn(th, 'helper')?.calls, 10);
    t.is(fn(th, 'helper')?.subrs, 0, 'leaf is no child timer any more');
    t.is(fn(th, 'helper')?.excl, fn(th, 'helper')?.incl);
    t.is(th.metadata.find(([k]) => k === 'hyprof Functions Excluded')?.[1], '2');
  });
}

test('C++ through hyprof c++: names demangled in the profile; the select file matches demangled names', async (t) => {
  const dir = tmpDir('instr-cxx');
  const exe = join(dir, 'app');
  const sel = selectFile(dir, 'BEGIN_EXCLUDE_LIST\ngeo::Point::norm2\ngeo::scale(double, int)\nEND_EXCLUDE_LIST\n');
  const cc = await hyprof(['c++', '-O1', join(testNativeDir, 'instr_app.cc'), '-o', exe], { env: { CXX: 'g++' } });
  t.is(cc.code, 0, cc.stderr);
  let out = join(dir, 'prof');
  let r = await run(exe, ['5'], { env: { HYPROF_DIR: out } });
  t.is(r.code, 0, r.stderr);
  let th = thread0(out);
  t.is(fn(th, 'geo::Point::norm2() const')?.calls, 5, flatNames(th).join(', '));
  t.is(fn(th, 'geo::scale(double, int)')?.calls, 5);
  out = join(dir, 'prof-sel');
  r = await run(exe, ['5'], { env: { HYPROF_DIR: out, HYPROF_SELECT_FILE: sel } });
  t.is(r.code, 0, r.stderr);
  th = thread0(out);
  t.is(fn(th, 'geo::Point::norm2() const'), undefined, flatNames(th).join(', '));
  t.is(fn(th, 'geo::scale(double, int)'), undefined);
  t.is(fn(th, 'main')?.calls, 1);
});

test('an include list with # wildcards (TAU_SELECT_FILE): only those functions are timers', async (t) => {
  const dir = tmpDir('instr-incl');
  const exe = await build('gcc', ['instr_app.c', 'instr_util.c'], join(dir, 'app'));
  const sel = selectFile(dir, 'BEGIN_INCLUDE_LIST\ncomp#\nutil_#\nEND_INCLUDE_LIST\n');
  const out = join(dir, 'prof');
  const r = await run(exe, ['3'], { env: { HYPROF_DIR: out, TAU_SELECT_FILE: sel } });
  t.is(r.code, 0, r.stderr);
  const th = thread0(out);
  const names = flatNames(th).filter((n) => n !== '.TAU application' && !n.startsWith('loop'));
  t.deepEqual(names.map((n) => n.split(' ')[0]).sort(), ['compute', 'util_square', 'util_sum']);
  t.is(fn(th, 'compute')?.calls, 3);
  t.truthy(th.events.find((e) => e.name.startsWith('.TAU application => compute [')), 'compute right under the root: main is not measured');
});

test('a file exclude list: hyprof cc leaves the file uninstrumented; config --instrument gives gcc the exclusion', async (t) => {
  const dir = tmpDir('instr-files');
  const sel = selectFile(dir, 'BEGIN_FILE_EXCLUDE_LIST\n*_util.c\nEND_FILE_EXCLUDE_LIST\n');
  const env = { HYPROF_SELECT_FILE: sel, CC: 'gcc' };
  // The wrapper, one file at a time, as build systems call it.
  for (const s of ['instr_app.c', 'instr_util.c']) {
    const r = await hyprof(['cc', '-O1', '-c', join(testNativeDir, s), '-o', join(dir, s.replace('.c', '.o'))], { env });
    t.is(r.code, 0, r.stderr);
  }
  const link = await hyprof(['cc', join(dir, 'instr_app.o'), join(dir, 'instr_util.o'), '-o', join(dir, 'app')], { env });
  t.is(link.code, 0, link.stderr);
  const out = join(dir, 'prof');
  let r = await run(join(dir, 'app'), ['5'], { env: { HYPROF_DIR: out } });
  t.is(r.code, 0, r.stderr);
  let th = thread0(out);
  t.is(fn(th, 'compute')?.calls, 5);
  t.is(fn(th, 'util_sum'), undefined);
  // Both files in one command: gcc's own exclusion by file.
  const flags = (await hyprof(['config', '--instrument', '--select', sel, '--compiler', 'gcc'])).stdout.trim().split(' ');
  t.true(flags.includes('-finstrument-functions-exclude-file-list=_util.c'), flags.join(' '));
  const exe = join(dir, 'app2');
  const cc = spawnSync('gcc', ['-O1', ...flags, join(testNativeDir, 'instr_app.c'), join(testNativeDir, 'instr_util.c'), '-o', exe, ...LINK], { encoding: 'utf8' });
  t.is(cc.status, 0, cc.stderr);
  const out2 = join(dir, 'prof2');
  r = await run(exe, ['5'], { env: { HYPROF_DIR: out2 } });
  t.is(r.code, 0, r.stderr);
  th = thread0(out2);
  t.is(fn(th, 'helper')?.calls, 5);
  t.is(fn(th, 'util_sum'), undefined);
});

test('config --instrument: what gcc can express from a select file, and what clang cannot, said on stderr', async (t) => {
  const dir = tmpDir('instr-config');
  const sel = selectFile(dir, 'BEGIN_EXCLUDE_LIST\n"#leaf#"\nhelper\nEND_EXCLUDE_LIST\nBEGIN_FILE_INCLUDE_LIST\napp*.c\nEND_FILE_INCLUDE_LIST\n');
  let r = await hyprof(['config', '--instrument']);
  t.is(r.stdout, '-g -finstrument-functions\n');
  r = await hyprof(['config', '--instrument', '--select', sel, '--compiler', 'gcc']);
  t.is(r.stdout, '-g -finstrument-functions -finstrument-functions-exclude-function-list=leaf\n');
  t.regex(r.stderr, /routine lists beyond "#text#" entries: set HYPROF_SELECT_FILE/);
  t.regex(r.stderr, /BEGIN_FILE_INCLUDE_LIST cannot be expressed as a gcc flag/);
  r = await hyprof(['config', '--instrument', '--select', sel, '--compiler', 'clang']);
  t.is(r.stdout, '-g -finstrument-functions\n');
  t.regex(r.stderr, /clang has no -finstrument-functions-exclude-\* options/);
  r = await hyprof(['config', '--instrument', '--select', join(dir, 'missing.tau')]);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: .*missing\.tau: cannot read the selective instrumentation file: no such file or directory/);
  writeFileSync(sel, 'BEGIN_EXCLUDE_LIST\nleaf\nBEGIN_INCLUDE_LIST\n');
  r = await hyprof(['config', '--instrument', '--select', sel]);
  t.is(r.code, 2);
  t.regex(r.stderr, /select\.tau: line 3: a list begins inside BEGIN_EXCLUDE_LIST \(line 1\), which has no END yet/);
});

test("a select file's BEGIN_INSTRUMENT_SECTION (TAU's source instrumentation) is named once at run time and by config, not skipped silently", async (t) => {
  const dir = tmpDir('instr-section');
  const exe = await build('gcc', ['instr_app.c', 'instr_util.c'], join(dir, 'app'));
  // As TAU's examples write them: loops and I/O of a routine, then memory in a second section.
  const sel = selectFile(
    dir,
    'BEGIN_EXCLUDE_LIST\nleaf\nEND_EXCLUDE_LIST\nBEGIN_INSTRUMENT_SECTION\nloops routine="#"\n# a comment\nio file="app.c" line=12\nEND_INSTRUMENT_SECTION\nBEGIN_INSTRUMENT_SECTION\nmemory file="*"\nEND_INSTRUMENT_SECTION\n',
  );
  const said = /^hyprof: .*select\.tau: BEGIN_INSTRUMENT_SECTION is TAU's source instrumentation, which hyprof does not apply: loops, io \(lines 4-8\); memory \(lines 9-11\); the routine lists are applied$/m;
  const out = join(dir, 'prof');
  const r = await run(exe, ['3'], { env: { HYPROF_DIR: out, HYPROF_SELECT_FILE: sel } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, said);
  t.is(r.stderr.split('\n').filter((l) => l.includes('BEGIN_INSTRUMENT_SECTION')).length, 1, 'once');
  const th = thread0(out);
  t.is(th.metadata.find(([k]) => k === 'hyprof Select File not applied')?.[1], 'loops, io (lines 4-8); memory (lines 9-11)');
  t.is(fn(th, 'leaf'), undefined, 'the routine list is applied');
  const c = await hyprof(['config', '--instrument', '--select', sel, '--compiler', 'gcc']);
  t.is(c.code, 0, c.stderr);
  t.regex(c.stderr, /^hyprof: BEGIN_INSTRUMENT_SECTION is TAU's source instrumentation, which hyprof does not apply: loops, io \(lines 4-8\); memory \(lines 9-11\); the routine and file lists are applied$/m);
});

test('bad select files at run time: one message naming the file (and line), and every function is measured', async (t) => {
  const dir = tmpDir('instr-badsel');
  const exe = await build('gcc', ['instr_app.c', 'instr_util.c'], join(dir, 'app'));
  const cases: Array<[string, string | null, RegExp]> = [
    ['missing', null, /^hyprof: HYPROF_SELECT_FILE=.*nothere\.tau: cannot read the selective instrumentation file: No such file or directory; it is not used, every function is measured$/m],
    ['unclosed', 'BEGIN_EXCLUDE_LIST\nleaf\n', /^hyprof: .*unclosed\.tau: line 1: BEGIN_EXCLUDE_LIST has no END_EXCLUDE_LIST; the selective instrumentation file is not used, every function is measured$/m],
    ['stray', 'leaf\n', /^hyprof: .*stray\.tau: line 1: 'leaf' is outside every BEGIN_\.\.\._LIST \/ END_\.\.\._LIST; /m],
    ['unknown', 'BEGIN_EXCLUDE_LIST\nleaf\nEND_EXCLUDE_LIST\n\nBEGIN_ROUTINE_LIST\n', /^hyprof: .*unknown\.tau: line 5: unknown section 'BEGIN_ROUTINE_LIST'; /m],
    ['mismatch', 'BEGIN_INCLUDE_LIST\nleaf\nEND_EXCLUDE_LIST\n', /^hyprof: .*mismatch\.tau: line 3: END_EXCLUDE_LIST without BEGIN_EXCLUDE_LIST; /m],
  ];
  for (const [name, text, message] of cases) {
    const path = join(dir, text === null ? 'nothere.tau' : `${name}.tau`);
    if (text !== null) writeFileSync(path, text);
    const out = join(dir, `prof-${name}`);
    const r = await run(exe, ['2'], { env: { HYPROF_DIR: out, HYPROF_SELECT_FILE: path } });
    t.is(r.code, 0, r.stderr);
    t.regex(r.stderr, message, name);
    t.is(r.stderr.split('\n').filter((l) => l.includes('selective instrumentation')).length, 1, `${name}: said once`);
    t.is(fn(thread0(out), 'leaf')?.calls, 40, `${name}: every function measured`);
  }
});

/** The throttled timer of a profile, and its parent's flat entry. */
function throttled(th: TauThreadProfile, name: RegExp): TauEvent | undefined {
  return th.events.find((e) => !e.name.includes(' => ') && name.test(e.name) && e.name.endsWith(' [THROTTLED]'));
}

test('throttling by default: a tiny probed timer is renamed [THROTTLED], said once, counted, and its time goes to its parent', async (t) => {
  const dir = tmpDir('throttle-probe');
  const exe = join(dir, 'tiny');
  const cc = spawnSync('gcc', ['-O2', '-g', `-I${includeDir}`, join(testNativeDir, 'instr_tiny.c'), '-o', exe, ...LINK], { encoding: 'utf8' });
  t.is(cc.status, 0, cc.stderr);
  const out = join(dir, 'prof');
  const r = await run(exe, ['probe', '150000'], { env: { HYPROF_DIR: out } });
  t.is(r.code, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.includes('throttled'));
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0], /^hyprof: throttled 'tiny' after 100001 calls of [\d.]+ us each \(TAU_THROTTLE_NUMCALLS=100000, TAU_THROTTLE_PERCALL=10\): it is no longer measured/);
  const th = thread0(out);
  const tiny = throttled(th, /^tiny/);
  t.truthy(tiny, flatNames(th).join(', '));
  t.is(tiny!.name, 'tiny [THROTTLED]');
  t.is(tiny!.group, 'TAU_DISABLE');
  t.is(tiny!.calls, 100001);
  const loop = fn(th, 'loop')!;
  t.is(loop.subrs, 100001);
  // The 49,999 calls after throttling are in the loop's own time. Each runs 40 dependent
  // multiply-adds (at least 30 ns on any x86 core), so they add at least 1.5 ms there; the loop's
  // own instructions for 150,000 iterations are a fraction of that. (A bound from the measured
  // calls' mean fails on a loaded machine: a few preempted calls inflate the mean tenfold.)
  t.true(loop.excl >= 49999 * 0.03, `loop excl ${loop.excl} us, tiny ${tiny!.incl} us / ${tiny!.calls}`);
  t.is(th.metadata.find(([k]) => k === 'hyprof Throttled Timers')?.[1], '1');
  t.is(th.metadata.find(([k]) => k === 'TAU_THROTTLE_NUMCALLS')?.[1], '100000');
});

test('throttling a compiler-instrumented function (TAU names, HYPROF_ aliases); TAU_THROTTLE=0 measures every call', async (t) => {
  const dir = tmpDir('throttle-inst');
  const exe = await build('gcc', ['instr_tiny.c'], join(dir, 'tiny'));
  const out = join(dir, 'prof');
  let r = await run(exe, ['inst', '3000'], { env: { HYPROF_DIR: out, HYPROF_THROTTLE_NUMCALLS: '1000', TAU_THROTTLE_PERCALL: '50' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /^hyprof: throttled 'tiny_func' after 1001 calls .*TAU_THROTTLE_NUMCALLS=1000, TAU_THROTTLE_PERCALL=50\)/m);
  let th = thread0(out);
  const f = throttled(th, /^tiny_func \[\{.*instr_tiny\.c\} \{\d+,0\}\]/);
  t.truthy(f, flatNames(th).join(', '));
  t.is(f!.calls, 1001);
  t.is(fn(th, 'main')?.calls, 1, 'main is not throttled: one call');
  const out2 = join(dir, 'prof2');
  r = await run(exe, ['inst', '3000'], { env: { HYPROF_DIR: out2, HYPROF_THROTTLE_NUMCALLS: '1000', TAU_THROTTLE: '0' } });
  t.is(r.code, 0, r.stderr);
  t.false(r.stderr.includes('throttled'), r.stderr);
  th = thread0(out2);
  t.is(fn(th, 'tiny_func')?.calls, 3000);
  t.is(th.metadata.find(([k]) => k === 'TAU_THROTTLE')?.[1], 'off');
});

test('bad throttle values: one warning naming the variable and the value used', async (t) => {
  const dir = tmpDir('throttle-bad');
  const exe = join(dir, 'tiny');
  const cc = spawnSync('gcc', ['-O2', '-g', `-I${includeDir}`, join(testNativeDir, 'instr_tiny.c'), '-o', exe, ...LINK], { encoding: 'utf8' });
  t.is(cc.status, 0, cc.stderr);
  const r = await run(exe, ['probe', '10'], {
    env: { HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: dir, TAU_THROTTLE: 'maybe', HYPROF_THROTTLE_NUMCALLS: '0', TAU_THROTTLE_PERCALL: '-5us' },
  });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /^hyprof: TAU_THROTTLE=maybe is not a boolean \(1\/0, on\/off, true\/false, yes\/no\); using 1$/m);
  t.regex(r.stderr, /^hyprof: HYPROF_THROTTLE_NUMCALLS=0 is not a whole number from 1 to 1000000000000; using 100000$/m);
  t.regex(r.stderr, /^hyprof: TAU_THROTTLE_PERCALL=-5us is not a whole number from 0 to 1000000000; using 10$/m);
});

test('hyprof cc: a compiler that cannot be run, a failing compile and a bad select file are said and exit non-zero', async (t) => {
  const dir = tmpDir('instr-cc-errors');
  const src = join(testNativeDir, 'instr_util.c');
  let r = await hyprof(['cc', '-c', src, '-o', join(dir, 'u.o')], { env: { CC: join(dir, 'no-such-cc') } });
  t.is(r.code, 1);
  t.regex(r.stderr, /^hyprof: cannot run the compiler '.*no-such-cc' \(\$CC\): /m);
  const bad = join(dir, 'bad.c');
  writeFileSync(bad, 'int main(void) { return undeclared; }\n');
  r = await hyprof(['cc', '-c', bad, '-o', join(dir, 'bad.o')], { env: { CC: 'gcc' } });
  t.is(r.code, 1, 'the compiler\'s own status');
  t.regex(r.stderr, /undeclared/);
  const sel = join(dir, 'sel.tau');
  writeFileSync(sel, 'BEGIN_FILE_EXCLUDE_LIST\n*.c\n');
  r = await hyprof(['cc', '-c', src, '-o', join(dir, 'u.o')], { env: { CC: 'gcc', TAU_SELECT_FILE: sel } });
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: .*sel\.tau: line 1: BEGIN_FILE_EXCLUDE_LIST has no END_FILE_EXCLUDE_LIST$/m);
});

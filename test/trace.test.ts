/**
 * Event traces (HYPROF_TRACE / TAU_TRACE, docs/trace.md): real C programs run traced, resolved, and
 * every OTF2 archive written is read back with the OTF2 project's own readers, `otf2-print` and
 * Python's `otf2` (test/helpers/otf2_check.py): every enter has its leave on its location, times never
 * go back, per location each region's enter-to-leave time equals the profile's inclusive time, the
 * parameter attributes are there. And the trace's reliability: a run killed by SIGKILL, a damaged or
 * cut trace file, a resolve without the OTF2 writer.
 *
 * The OTF2 writer is built only where the OTF2 library is installed (scripts/build-otf2.sh): without
 * it these tests are skipped, with the reason printed.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, compileWithRuntime, hyprof, repoRoot, run, tmpDir, type RunResult } from './helpers/native.js';
import { resolveChecked } from './helpers/resolve.js';
import { compileMpiC, mpiMissing, mpirunArgs } from './helpers/mpi.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauThreadProfile } from '../src/profile/tau-model.js';
import { PYTHON, traceRunMissing } from './helpers/otf2.js';

const checker = join(repoRoot, 'test', 'helpers', 'otf2_check.py');

const missing = traceRunMissing;
const why = missing();
if (why) console.log(`trace tests skipped: ${why}`);
const traceTest = why ? test.skip : test.serial;

interface Location {
  name: string;
  group: string;
  group_type: string;
  node: string;
  node_class: string;
  type: string;
  events_defined: number;
  events: number;
  enter: number;
  leave: number;
  metrics: number;
  mismatched: number;
  open_at_end: number;
  backwards: number;
  first: number;
  last: number;
  /** lead: for a parameter specialisation, the time from its timer's enter to its own (see sameTimes). */
  regions: Record<string, { incl: number; calls: number; lead: number }>;
  attributes: Record<string, Record<string, number | string>>;
  properties: Record<string, number | string>;
}
interface Archive {
  clock: { resolution: number; offset: number; length: number };
  regions: Array<{ name: string; canonical: string; description: string; role: string; paradigm: string; file: string; line: number }>;
  locations: Location[];
}

/** Read an archive with both readers; check what holds for every trace. */
function readArchive(t: import('ava').ExecutionContext, dir: string): Archive {
  const anchor = join(dir, 'traces.otf2');
  t.true(existsSync(anchor), `${anchor} written`);
  t.true(existsSync(join(dir, 'traces.def')) && existsSync(join(dir, 'traces')), 'OTF2 layout: traces.def and traces/');
  const printed = spawnSync('otf2-print', [anchor], { encoding: 'utf8', maxBuffer: 1 << 30 });
  t.is(printed.status, 0, printed.stderr);
  const py = spawnSync(PYTHON, [checker, anchor], { encoding: 'utf8', maxBuffer: 1 << 30 });
  t.is(py.status, 0, py.stderr);
  const a = JSON.parse(py.stdout) as Archive;
  const enters = (printed.stdout.match(/^ENTER /gm) ?? []).length;
  const leaves = (printed.stdout.match(/^LEAVE /gm) ?? []).length;
  t.is(enters, a.locations.reduce((n, l) => n + l.enter, 0), 'otf2-print and python3-otf2 read the same enters');
  t.is(leaves, a.locations.reduce((n, l) => n + l.leave, 0), 'and the same leaves');
  t.is(a.clock.resolution, 1_000_000_000, 'nanoseconds');
  t.is(a.clock.offset, Math.min(...a.locations.map((l) => l.first)), 'global offset: the earliest event');
  t.is(a.clock.offset + a.clock.length, Math.max(...a.locations.map((l) => l.last)), 'trace length: to the last event');
  for (const l of a.locations) {
    t.is(l.enter, l.leave, `${l.name}: every enter has its leave`);
    t.is(l.mismatched, 0, `${l.name}: leaves nest`);
    t.is(l.open_at_end, 0, `${l.name}: nothing left open`);
    t.is(l.backwards, 0, `${l.name}: timestamps never go back`);
    t.is(l.events, l.events_defined, `${l.name}: the event count its definition states`);
    t.is(l.type, 'LocationType.CPU_THREAD');
    t.is(l.group_type, 'LocationGroupType.PROCESS');
    t.is(l.node_class, 'node');
    t.regex(l.name, /^thread \d+( ".*")?$/);
  }
  for (const r of a.regions) t.is(r.canonical, r.name);
  return a;
}

/** Each region's inclusive time on a location equals the thread profile's (µs, within the
 * profile's rounding: the root line is written in whole microseconds), with the same calls. */
function sameTimes(t: import('ava').ExecutionContext, loc: Location, p: TauThreadProfile): number {
  let compared = 0;
  for (const e of p.events) {
    if (e.name.includes('=>') || e.calls === 0) continue;
    const r = loc.regions[e.name];
    if (!r) {
      t.fail(`${loc.name}: the profile's ${JSON.stringify(e.name)} is not in the trace`);
      continue;
    }
    t.is(r.calls, e.calls, `${e.name}: calls`);
    const tolerance = e.name === '.TAU application' ? 1 : 0.002;
    // The profile gives a timer's first parameter specialisation the whole call (as TAU does); the
    // trace enters it where the parameter was set: the two differ by that lead (docs/trace.md).
    const traced = (r.incl + (r.lead ?? 0)) / 1000;
    t.true(Math.abs(traced - e.incl) <= tolerance, `${e.name}: trace ${r.incl / 1000} µs + lead ${(r.lead ?? 0) / 1000} µs, profile ${e.incl} µs`);
    compared++;
  }
  return compared;
}

function threadOf(dir: string, node: number, context: number, thread: number, metric = 0): TauThreadProfile {
  const p = readTauProfileDir(dir).threads[metric].find((x) => x.node === node && x.context === context && x.thread === thread);
  if (!p) throw new Error(`no profile.${node}.${context}.${thread} in ${dir}`);
  return p;
}

function noTrace(r: RunResult): void {
  if (/Error|\n\s+at /.test(r.stderr)) throw new Error(`a stack trace: ${r.stderr}`);
}

for (const cc of ['gcc', 'clang']) {
  traceTest(`a program with phases and parameters (${cc}), traced: the archive matches its profile`, async (t) => {
    const exe = compileC(`param_phases_${cc}`, ['param_phases.c'], { cc });
    const dir = tmpDir(`trace-params-${cc}`);
    const r = await run(exe, ['3'], { env: { HYPROF_DIR: dir, HYPROF_TRACE: '1' } });
    t.is(r.code, 0, r.stderr);
    t.regex(r.stderr, /trace: traces\.otf2 \(OTF2, 1 location, \d+ events\)/);
    t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw') || f.endsWith('.trace')), [], 'the raw and trace files are removed once resolved');
    const a = readArchive(t, dir);
    t.is(a.locations.length, 1);
    const loc = a.locations[0];
    t.is(loc.name, 'thread 0');
    t.is(loc.group, 'process 0.0');
    t.true(sameTimes(t, loc, threadOf(dir, 0, 0, 0)) >= 16, 'every timer, phase and specialisation compared');
    // Parameters: an attribute per parameter on the specialisation's Enter, typed as the value is.
    t.deepEqual(loc.attributes['Iteration 2  [ <size> = <256> ]  '], { 'param:size': 256 });
    t.deepEqual(loc.attributes['Iteration 1  [ <size> = <512> ]  [ <mode> = <1> ]  '], { 'param:size': 512, 'param:mode': 1 });
    const region = (n: string) => a.regions.find((x) => x.name === n);
    t.is(region('Iteration 0')?.description, 'TAU_USER|TAU_PHASE');
    t.is(region('Iteration 0')?.role, 'RegionRole.CODE', 'a phase is a code region, its group in the description');
    t.is(region('main')?.role, 'RegionRole.FUNCTION');
    t.is(region('main')?.paradigm, 'Paradigm.USER');
    t.is(loc.properties['hyprof:lost_events'], 0);
  });
}

traceTest('threads and a second metric: one location per thread, a Metric event with each enter and leave', async (t) => {
  const exe = compileC('trace_metrics_threads', ['metrics_threads.c']);
  const dir = tmpDir('trace-threads');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, TAU_TRACE: '1', TAU_TRACE_FORMAT: 'otf2', HYPROF_METRICS: 'TIME:CPU_TIME' } });
  t.is(r.code, 0, r.stderr);
  t.notRegex(r.stderr, /TAU_TRACE/, 'TAU_TRACE and TAU_TRACE_FORMAT=otf2 are taken without a word');
  const a = readArchive(t, dir);
  // The forked child resolved its own profile and trace at its exit; the parent's resolve, into the
  // same directory, replaced both (the archive holds what the profile holds).
  const parent = a.locations.filter((l) => l.group === 'process 0.0');
  t.is(parent.length, 3, 'the main thread and its two workers');
  t.is(a.locations.length, 3);
  for (const loc of parent) {
    const index = Number(/^thread (\d+)/.exec(loc.name)![1]);
    t.true(sameTimes(t, loc, threadOf(dir, 0, 0, index)) >= 2);
    // one extra metric: a Metric event per enter and leave recorded (the leaves that close regions
    // open at the end carry none)
    t.true(loc.metrics >= loc.enter && loc.metrics <= loc.enter + loc.leave, `${loc.name}: ${loc.metrics} metric events`);
  }
});

traceTest('the profile of a traced run is the one of an untraced run', async (t) => {
  const exe = compileC('trace_same_profile', ['param_phases.c']);
  const plain = tmpDir('trace-same-plain');
  const traced = tmpDir('trace-same-traced');
  t.is((await run(exe, ['2'], { env: { HYPROF_DIR: plain } })).code, 0);
  t.is((await run(exe, ['2'], { env: { HYPROF_DIR: traced, HYPROF_TRACE: '1' } })).code, 0);
  const a = threadOf(plain, 0, 0, 0);
  const b = threadOf(traced, 0, 0, 0);
  // Times differ from run to run; everything else is the same: events, calls, groups, metadata keys
  // (but the trace's own entries: the setting, the trace file).
  const shape = (p: TauThreadProfile) => p.events.map((e) => [e.name, e.calls, e.subrs, e.group]);
  t.deepEqual(shape(b), shape(a));
  const keys = (p: TauThreadProfile) => p.metadata.map(([k]) => k).filter((k) => !/TRACE|Trace/.test(k));
  t.deepEqual(keys(b), keys(a));
  t.true(b.metadata.some(([k, v]) => k === 'hyprof Trace' && v.endsWith('.trace')), 'the traced run names its trace file');
  t.false(existsSync(join(plain, 'traces.otf2')), 'no archive without HYPROF_TRACE');
});

traceTest('forks: a child that exits has its own trace, system() and a child that leaves by _exit leave none', async (t) => {
  const exe = compileC('trace_fork', ['trace_fork.c']);
  const dir = tmpDir('trace-fork');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_TRACE: '1', HYPROF_RESOLVE: '0' } });
  t.is(r.code, 0, r.stderr);
  const child = r.stdout.trim();
  const files = readdirSync(dir);
  const stem = (f: string) => f.replace(/\.(raw|trace)$/, '');
  t.deepEqual(files.filter((f) => f.endsWith('.trace')).map(stem).sort(), files.filter((f) => f.endsWith('.raw')).map(stem).sort(), 'a trace file beside every raw file, and no other');
  t.is(files.filter((f) => f.endsWith('.trace')).length, 2, 'the parent and the child that exited');
  const out = tmpDir('trace-fork-out');
  const res = await hyprof(['resolve', dir, '-o', out]);
  t.is(res.code, 0, res.stderr);
  const a = readArchive(t, out);
  t.deepEqual(a.locations.map((l) => l.group).sort(), ['process 0.0', `process 0.${child}`]);
  const kid = a.locations.find((l) => l.group === `process 0.${child}`)!;
  t.deepEqual(Object.keys(kid.regions).sort(), ['.TAU application', 'child work', 'outer'], 'the child goes on inside the timer it forked in');
  t.true(sameTimes(t, kid, threadOf(out, 0, Number(child), 0)) >= 3);
  t.true(sameTimes(t, a.locations.find((l) => l.group === 'process 0.0')!, threadOf(out, 0, 0, 0)) >= 2);
});

traceTest("a TAU program that sets its node (TAU_PROFILE_SET_NODE(0), as TAU's examples do) is traced: under hyprof run, and resolved from its raw directory", async (t) => {
  const exe = compileC('tau_api_c_trace', ['tau_api_c.c']);
  const viaRun = join(tmpDir('trace-setnode-run'), 'prof');
  const r = await hyprof(['run', '--dir', viaRun, '--', exe], { env: { HYPROF_TRACE: '1' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /trace: traces\.otf2 \(OTF2, \d+ locations?, \d+ events\)/);
  t.true(sameTimes(t, readArchive(t, viaRun).locations[0], threadOf(viaRun, 0, 0, 0)) >= 2);
  // The program's own files, resolved later from their directory: the whole run, its archive written.
  const raw = tmpDir('trace-setnode-raw');
  t.is((await run(exe, [], { env: { HYPROF_DIR: raw, HYPROF_TRACE: '1', HYPROF_RESOLVE: '0' } })).code, 0);
  const out = tmpDir('trace-setnode-out');
  const res = await hyprof(['resolve', raw, '-o', out]);
  t.is(res.code, 0, res.stderr);
  t.notRegex(res.stderr, /kept beside their raw files/);
  t.true(sameTimes(t, readArchive(t, out).locations[0], threadOf(out, 0, 0, 0)) >= 2);
});

traceTest('MPI, 4 ranks with a late sender: one location group per rank, the MPI calls as MPI regions, the receivers\' wait in their MPI_Recv', async (t) => {
  const missingMpi = mpiMissing();
  if (missingMpi) return t.fail(missingMpi);
  const exe = compileMpiC('mpi_late_sender', 'mpi_late_sender.c');
  const out = tmpDir('trace-mpi');
  const delayMs = 300;
  const r = await hyprof(['run', '--dir', out, '--', 'mpirun', ...mpirunArgs(4), exe, String(delayMs)], {
    env: { HYPROF_TRACE: '1', HYPROF_SAMPLING: '0' },
    timeoutMs: 300_000,
  });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /ranks 4/);
  const a = readArchive(t, out);
  const main = (rank: number) => a.locations.find((l) => l.group === `rank ${rank}` && l.name.startsWith('thread 0'))!;
  for (let rank = 0; rank < 4; rank++) {
    const loc = main(rank);
    t.truthy(loc, `rank ${rank} has its main thread`);
    t.true(sameTimes(t, loc, threadOf(out, rank, 0, 0)) >= 5);
    t.is(loc.regions['MPI_Allreduce()']?.calls, 1);
    if (rank === 0) t.is(loc.regions['MPI_Send()']?.calls, 3);
    else t.true(loc.regions['MPI_Recv()'].incl / 1e6 >= delayMs * 0.9, `rank ${rank} waited ${loc.regions['MPI_Recv()'].incl / 1e6} ms for the late sender`);
  }
  t.is(a.regions.find((x) => x.name === 'MPI_Send()')?.paradigm, 'Paradigm.MPI');
  t.is(a.regions.find((x) => x.name === 'MPI_Send()')?.description, 'MPI');
});

traceTest('a run killed by SIGKILL after a flush: the trace is kept up to its last written buffer, and the resolve says what was lost', async (t) => {
  const exe = compileC('trace_kill', ['trace_kill.c']);
  const dir = tmpDir('trace-kill');
  // 4 KiB buffers: 256 records, about 64 phases each; 2,000 phases after the flush fill many.
  const r = await run(exe, ['50', '2050'], { env: { HYPROF_DIR: dir, HYPROF_TRACE: '1', HYPROF_TRACE_BUFFER_KB: '4' } });
  t.is(r.signal, 'SIGKILL');
  t.is(r.stdout, 'flushed 50\nkilled 2050\n');
  const raw = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raw.length, 1, 'the flush wrote the raw file');
  const out = tmpDir('trace-kill-out');
  const res = await hyprof(['resolve', dir, '-o', out]);
  t.is(res.code, 0, res.stderr);
  noTrace(res);
  t.regex(res.stderr, /thread 0: the trace goes on after the last dump \(the run was killed after a flush\?\): kept up to its last written block; what the thread recorded after it is lost/);
  t.regex(res.stderr, /\d+ events not named by the profile: named from the trace file's own definitions/);
  const a = readArchive(t, out);
  const loc = a.locations[0];
  const phases = Object.keys(loc.regions).filter((n) => /^Iteration \d+$/.test(n));
  // What the file holds is every buffer written: all phases but those of the last, unwritten buffer.
  t.true(phases.length > 2050 - 70 && phases.length <= 2050, `${phases.length} phases of 2,050 in the trace`);
  for (let i = 0; i < phases.length - 1; i++) t.is(loc.regions[`Iteration ${i}`]?.calls, 1, `Iteration ${i} whole`);
  t.true(loc.regions.work.calls >= phases.length - 1 && loc.regions.work.calls <= phases.length, `${loc.regions.work.calls} calls of work`);
  t.is(loc.properties['hyprof:lost_reason'], 'the run ended without a final dump (killed)');
});

traceTest('a run killed by SIGKILL with no dump at all: no profile, but the trace up to its last written buffer, and what was lost said', async (t) => {
  const exe = compileC('trace_kill_nodump', ['trace_kill.c']);
  const dir = tmpDir('trace-kill-nodump');
  const r = await run(exe, ['0', '2000'], { env: { HYPROF_DIR: dir, HYPROF_TRACE: '1', HYPROF_TRACE_BUFFER_KB: '4' } });
  t.is(r.signal, 'SIGKILL');
  const files = readdirSync(dir);
  t.is(files.filter((f) => f.endsWith('.raw')).length, 0, 'no raw file: nothing was dumped');
  const trace = files.find((f) => f.endsWith('.trace'))!;
  const pid = /\.(\d+)\.\d+\.trace$/.exec(trace)![1];
  const out = tmpDir('trace-kill-nodump-out');
  const res = await hyprof(['resolve', dir, '-o', out]);
  t.is(res.code, 0, res.stderr);
  noTrace(res);
  t.regex(res.stderr, /no raw measurement file beside this trace \(the process ended without writing its measurements: killed\?\): its trace is converted with the names it holds, and it has no profile/);
  t.regex(res.stderr, /thread 0: the trace has no end \(the run was killed\?\): kept up to its last written block, \d+ records/);
  t.regex(res.stderr, /hyprof: no profile \(no raw measurement file\), trace: traces\.otf2 \(OTF2, 1 location, \d+ events\)/);
  const a = readArchive(t, out);
  const loc = a.locations[0];
  t.is(loc.group, `process 0.${pid}`);
  const phases = Object.keys(loc.regions).filter((n) => /^Iteration \d+$/.test(n)).length;
  t.true(phases > 2000 - 70 && phases <= 2000, `${phases} phases of 2,000`);
  t.is(loc.properties['hyprof:lost_reason'], 'the run ended without a final dump (killed)');
});

traceTest('hyprof run of a traced program killed by SIGKILL: no profile, the trace converted all the same', async (t) => {
  const exe = compileC('trace_kill_run', ['trace_kill.c']);
  const out = tmpDir('trace-kill-run');
  const r = await hyprof(['run', '--dir', out, '--', exe, '0', '2000'], { env: { HYPROF_TRACE: '1', HYPROF_TRACE_BUFFER_KB: '4', HYPROF_SAMPLING: '0' } });
  t.not(r.code, 0);
  noTrace(r);
  t.regex(r.stderr, /no profile/);
  t.regex(r.stderr, /hyprof: no profile \(no raw measurement file\), trace: traces\.otf2 \(OTF2, 1 location, \d+ events\)/);
  const a = readArchive(t, out);
  t.true(Object.keys(a.locations[0].regions).filter((n) => /^Iteration \d+$/.test(n)).length > 1900);
});

traceTest('a damaged trace file is refused with its name and the place; a cut one is read to its last whole block', async (t) => {
  const exe = compileC('trace_damage', ['param_phases.c']);
  const dir = tmpDir('trace-damage');
  const r = await run(exe, ['2'], { env: { HYPROF_DIR: dir, HYPROF_TRACE: '1', HYPROF_RESOLVE: '0' } });
  t.is(r.code, 0, r.stderr);
  const trace = join(dir, readdirSync(dir).find((f) => f.endsWith('.trace'))!);
  const good = readFileSync(trace);
  // A byte inside the first block's records: its checksum no longer holds.
  const bad = Buffer.from(good);
  bad[32 + 48 + 20] ^= 0xff;
  writeFileSync(trace, bad);
  const out = tmpDir('trace-damage-out');
  const res = await hyprof(['resolve', dir, '-o', out]);
  t.is(res.code, 2, 'bad input');
  noTrace(res);
  t.is(res.stderr.trim(), `hyprof: ${trace}: offset 32: block checksum mismatch: this trace file is damaged; it is not converted`);
  t.false(existsSync(join(out, 'profile.0.0.0')), 'nothing written: every file is checked first');
  // Not a trace file at all.
  writeFileSync(trace, 'not a trace');
  const res2 = await hyprof(['resolve', dir, '-o', out]);
  t.is(res2.code, 2);
  t.is(res2.stderr.trim(), `hyprof: ${trace}: offset 0: not a hyprof trace file (no HYPROFTR header): this trace file is damaged; it is not converted`);
  // Cut inside its last block (a run that ended while writing it): read up to the blocks before.
  writeFileSync(trace, good.subarray(0, good.length - 10));
  const res3 = await hyprof(['resolve', dir, '-o', out]);
  t.is(res3.code, 0, res3.stderr);
  t.regex(res3.stderr, /its last \d+ bytes are a block cut short \(the run ended while writing it\): left out/);
  readArchive(t, out);
});

traceTest('without the OTF2 writer the profile is written and the resolve says why no archive is', async (t) => {
  const exe = compileC('trace_no_writer', ['param_phases.c']);
  const dir = tmpDir('trace-no-writer');
  const r = await run(exe, ['1'], { env: { HYPROF_DIR: dir, HYPROF_TRACE: '1', HYPROF_RESOLVE: '0' } });
  t.is(r.code, 0, r.stderr);
  const raw = readdirSync(dir).filter((f) => f.endsWith('.raw')).map((f) => join(dir, f));
  const out = tmpDir('trace-no-writer-out');
  const res = await resolveChecked(raw, { outDir: out, otf2Writer: null });
  t.is(res.files.length, 1, 'the profile is written');
  t.false(existsSync(join(out, 'traces.otf2')));
  t.true(res.warnings.some((w) => /recorded a trace \(HYPROF_TRACE\), but this hyprof was built without the OTF2 library \(libopen-trace-format2-dev\): no OTF2 archive is written/.test(w)));
});

traceTest('TAU_TRACE_FORMAT other than otf2 is named once; the trace is written in OTF2', async (t) => {
  const exe = compileC('trace_format', ['param_phases.c']);
  const dir = tmpDir('trace-format');
  const r = await run(exe, ['1'], { env: { HYPROF_DIR: dir, TAU_TRACE: '1', TAU_TRACE_FORMAT: 'slog2' } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stderr.match(/hyprof: TAU_TRACE_FORMAT=slog2: hyprof writes traces in OTF2 only \(TAU_TRACE_FORMAT=otf2\)/g)?.length, 1, r.stderr);
  readArchive(t, dir);
});

// AddressSanitizer with UBSan, as sampling-sanitizers builds it: one sanitizer build of the runtime for
// both files (helpers/native.ts runtimeArchive); UBSan's checks come on top of AddressSanitizer's.
for (const [label, sanitize] of [['ThreadSanitizer', 'thread'], ['AddressSanitizer + UBSan', 'address,undefined']] as const) {
  traceTest(`${label}: a thread fills and writes trace buffers while another flushes, copying them; no report, a sound trace`, async (t) => {
    // test/native/core_flush_race.c: one thread enters 5,000 contexts (five records each) while the
    // main thread flushes over and over; 4 KiB buffers, so the thread writes a block every 51 steps
    // while the flushes copy its buffer (native/core/trace.c: the seqlock on its gen).
    const exe = compileWithRuntime(`trace_flush_race_${sanitize.replace(/,/g, '_')}`, ['core_flush_race.c'], ['-std=gnu11', '-O1', '-g', `-fsanitize=${sanitize}`, '-fno-omit-frame-pointer', `-I${join(repoRoot, 'native')}`], ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt']);
    const dir = tmpDir(`trace-flush-race-${sanitize.replace(/,/g, '_')}`);
    const copies = tmpDir(`trace-flush-race-copies-${sanitize.replace(/,/g, '_')}`);
    const r = await run(exe, [copies, '5000'], {
      timeoutMs: 300_000,
      env: {
        HYPROF_RAW_DIR: dir,
        HYPROF_RESOLVE: '0',
        HYPROF_SAMPLING: '0',
        HYPROF_THROTTLE: '0',
        HYPROF_TRACE: '1',
        HYPROF_TRACE_BUFFER_KB: '4',
        TSAN_OPTIONS: 'halt_on_error=0:exitcode=66',
        ASAN_OPTIONS: 'detect_leaks=1',
        UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
      },
    });
    t.is(r.code, 0, `signal ${r.signal}\n${r.stderr}`);
    t.notRegex(r.stderr, /WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:/);
    const out = tmpDir(`trace-flush-race-out-${sanitize.replace(/,/g, '_')}`);
    const res = await hyprof(['resolve', dir, '-o', out]);
    t.is(res.code, 0, res.stderr);
    const a = readArchive(t, out);
    const worker = a.locations.find((l) => l.name.startsWith('thread 1'));
    t.is(worker?.regions.work?.calls, 5_000, 'every call of the thread in the trace');
  });
}

/**
 * Samples in the trace (HYPROF_TRACE with sampling, docs/trace.md "Samples"): a real C program with a
 * long phase in which a() runs first, then b(), with no probe between them, traced and sampled at
 * 1 kHz. The archive is read with the OTF2 project's own readers (`otf2-print`, Python's `otf2`:
 * test/helpers/otf2_samples.py): every sample lies inside its phase's Enter / Leave on its location,
 * in time order; those before the switch (the program prints its time, on the trace's clock) name
 * a(), those after it b(), the one sample at the boundary allowed; as many samples as the profile
 * counts for the thread; a calling-context tree with source locations and an interrupt generator.
 * Then the readers: `hyprof export --format chrome` writes each sample as an instant named by its
 * function; the timeline's API gives a tick per sample and names a() or b() under the pointer.
 *
 * One build, one run, one resolve for every assertion (under a minute on two cores).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, compileC, repoRoot, run, tmpDir } from './helpers/native.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { readTrace } from '../src/trace/otf2-index.js';
import { buildModel } from '../src/trace/trace-model.js';
import { TraceApi } from '../src/view/trace-api.js';
import { PYTHON, traceRunMissing } from './helpers/otf2.js';

const reader = join(repoRoot, 'test', 'helpers', 'otf2_samples.py');

const missing = traceRunMissing;
const why = missing();
if (why) console.log(`trace sample tests skipped: ${why}`);
const traceTest = why ? test.skip : test.serial;

type Frame = [string, string, number];
type Event = [number, 'E' | 'L', string] | [number, 'S', Frame[], number, string];
interface Samples {
  locations: Record<string, { events: Event[]; properties: Record<string, number | string> }>;
  generators: Array<{ name: string; mode: string; period: number; exponent: number }>;
  contexts: number;
}

traceTest('a long phase, traced and sampled: its samples say a() ran, then b()', async (t) => {
  const exe = compileC('trace_samples', ['trace_samples.c'], { cflags: ['-O1', '-g', '-fno-omit-frame-pointer'] });
  const dir = tmpDir('trace-samples');
  const r = await run(exe, ['200', '300'], {
    env: { HYPROF_DIR: dir, HYPROF_TRACE: '1', HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000' },
  });
  t.is(r.code, 0, r.stderr);
  t.notRegex(r.stderr, /not in the trace|samples? lost/, 'no sample lost');
  const switched = Number(/switch (\d+)/.exec(r.stdout)![1]);

  const anchor = join(dir, 'traces.otf2');
  const printed = spawnSync('otf2-print', [anchor], { encoding: 'utf8', maxBuffer: 1 << 28 });
  t.is(printed.status, 0, printed.stderr);
  const py = spawnSync(PYTHON, [reader, anchor], { encoding: 'utf8', maxBuffer: 1 << 28 });
  t.is(py.status, 0, py.stderr);
  const a = JSON.parse(py.stdout) as Samples;
  const loc = a.locations['thread 0'];
  t.truthy(loc, 'thread 0 is a location');
  const samples = loc.events.filter((e): e is [number, 'S', Frame[], number, string] => e[1] === 'S');
  t.is((printed.stdout.match(/^CALLING_CONTEXT_SAMPLE /gm) ?? []).length, samples.length, 'otf2-print reads the samples Python reads');

  // Time order on the location, samples between the enters and leaves.
  for (let i = 1; i < loc.events.length; i++) t.true(loc.events[i][0] >= loc.events[i - 1][0], `event ${i} not before the one before it`);
  const enter = loc.events.find((e) => e[1] === 'E' && e[2] === 'long phase')!;
  const leave = loc.events.find((e) => e[1] === 'L' && e[2] === 'long phase')!;
  t.truthy(enter && leave, 'the phase entered and left');
  const inPhase = samples.filter((s) => s[0] >= enter[0] && s[0] <= leave[0]);
  // Each sample's innermost region is the phase: nothing else is entered inside it.
  let open: string[] = [];
  for (const e of loc.events) {
    if (e[1] === 'E') open.push(e[2]);
    else if (e[1] === 'L') open = open.slice(0, open.lastIndexOf(e[2]));
    else if (e[0] > enter[0] && e[0] < leave[0]) t.is(open[open.length - 1], 'long phase', 'a sample inside the phase is inside its Enter / Leave');
  }
  // 500 ms at 1 kHz; fewer on a loaded machine, whose timer signals wait while the thread does not run.
  t.true(inPhase.length >= 30, `${inPhase.length} samples in the phase`);

  // Before the switch a(), after it b(): by function, in the chain (the leaf, or its caller for a
  // sample inside clock_gettime); at most one sample at the boundary names neither (main, between).
  const names = (s: (typeof samples)[number]) => s[2].map((f) => f[0]);
  const fn = (s: (typeof samples)[number]) => (names(s).includes('a') ? 'a' : names(s).includes('b') ? 'b' : 'other');
  const before = inPhase.filter((s) => s[0] < switched);
  const after = inPhase.filter((s) => s[0] >= switched);
  const wrongBefore = before.filter((s) => fn(s) !== 'a');
  const wrongAfter = after.filter((s) => fn(s) !== 'b');
  t.true(wrongBefore.length + wrongAfter.length <= 1, `out of place: ${JSON.stringify([...wrongBefore, ...wrongAfter].map((s) => [s[0] - switched, names(s)]))}`);
  // a() has 40 % of the phase's wall time; its share of the samples follows only where the thread got
  // a core as often in both parts (a loaded machine's timer signals wait while the thread does not run)
  t.true(before.length >= 5 && after.length >= 5, `samples in a(): ${before.length}, in b(): ${after.length}`);
  t.log(`a()'s share of the phase's samples: ${(before.length / inPhase.length).toFixed(2)} (40 % of its time)`);
  for (const s of inPhase) {
    const leaf = s[2].find((f) => f[0] === 'a' || f[0] === 'b');
    if (!leaf) continue;
    t.regex(leaf[1], /trace_samples\.c$/, "a source code location: the program's file");
    t.true(leaf[2] >= 20 && leaf[2] <= 45, `and a line of a() or b(): ${leaf[2]}`);
    t.is(s[2][s[2].length - 1][0], 'main', 'the chain goes up to main, its root');
    t.true(s[2].length <= 8 * 2, 'a short chain');
    t.is(s[3], s[2].length, 'unwind distance: the chain');
  }
  t.true(a.contexts >= 3, 'a calling-context tree: main, a() and b() at least');
  t.is(a.generators.length, 1);
  t.is(a.generators[0].name, 'sampling: itimer-wall');
  t.is(a.generators[0].mode, 'InterruptGeneratorMode.TIME');
  t.is(a.generators[0].period, 1_000_000);
  t.is(a.generators[0].exponent, -9);

  // As many samples as the profile holds for the thread, in the phase as in the whole run.
  const prof = readTauProfileDir(dir).threads[0].find((p) => p.node === 0 && p.context === 0 && p.thread === 0)!;
  const profSamples = prof.events.filter((e) => e.group === 'TAU_SAMPLE').reduce((n, e) => n + e.calls, 0);
  t.is(samples.length, profSamples, 'every sample of the profile is in the trace');
  const ctx = prof.events.find((e) => e.name === '[CONTEXT] long phase');
  t.is(inPhase.length, ctx?.calls ?? -1, "the phase's samples: the profile's [CONTEXT] long phase");

  // The readers: Chrome's trace event format names each sample by its function.
  const chrome = join(dir, 'trace.json');
  const x = await run(process.execPath, [cliPath, 'export', dir, '--format', 'chrome', '-o', chrome]);
  t.is(x.code, 0, x.stderr);
  const events = (JSON.parse(readFileSync(chrome, 'utf8')) as { traceEvents: Array<{ ph: string; name: string; cat: string; ts: number; args?: { chain?: string[] } }> }).traceEvents;
  const instants = events.filter((e) => e.cat === 'sample' && e.ph === 'i');
  t.is(instants.length, samples.length, 'one instant per sample');
  const aInstants = instants.filter((e) => e.args?.chain?.some((c) => c.startsWith('a [{')));
  t.true(aInstants.length >= before.length - 1, 'named by the chain, with source locations');

  // The timeline's API: a tick per sample (10,000 pixels across the phase), and the hover
  // over the phase names what ran there, a() before the switch and b() after it.
  const model = buildModel(await readTrace(dir));
  const api = new TraceApi(model);
  const offset = model.defs.clock.offset;
  const view = api.range(new URLSearchParams({ t0: String(enter[0] - offset), t1: String(leave[0] - offset), px: '10000' })) as { lanes: Array<{ samples: number[] }> };
  // one tick per pixel at most: two samples closer than a pixel (a timer that caught up) make one
  const pixel = (leave[0] - enter[0]) / 10000;
  const pixels = new Set(inPhase.map((x) => Math.floor((x[0] - enter[0]) / pixel)));
  t.is(view.lanes[0].samples.length, pixels.size, 'a sample tick per sample in the phase (per pixel)');
  const hover = (ts: number) => (api.at(new URLSearchParams({ lane: '0', t: String(ts - offset), depth: '1' })) as { name: string; sample?: string[] });
  const early = hover(enter[0] + (switched - enter[0]) / 2);
  const late = hover(switched + (leave[0] - switched) / 2);
  t.is(early.name, 'long phase');
  t.regex(early.sample?.[0] ?? '', /^a \[\{.*trace_samples\.c\} \{\d+\}\]$/, 'hovering the first part: a()');
  t.regex(late.sample?.[0] ?? '', /^b \[\{.*trace_samples\.c\} \{\d+\}\]$/, 'the second: b()');
});

traceTest('samples that find the trace buffer full are counted per thread and said, never lost silently', async (t) => {
  // 4 KiB of buffer holds about 120 samples of two frames; the phase gives up to 2,000 at 10 kHz
  // with no probe to write the buffer out.
  const exe = compileC('trace_samples_full', ['trace_samples.c'], { cflags: ['-O1', '-g', '-fno-omit-frame-pointer'] });
  const dir = tmpDir('trace-samples-full');
  const r = await run(exe, ['100', '100'], {
    env: { HYPROF_DIR: dir, HYPROF_TRACE: '1', HYPROF_TRACE_BUFFER_KB: '4', HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '100' },
  });
  t.is(r.code, 0, r.stderr);
  const prof = readTauProfileDir(dir).threads[0].find((p) => p.node === 0 && p.context === 0 && p.thread === 0)!;
  const profSamples = prof.events.filter((e) => e.group === 'TAU_SAMPLE').reduce((n, e) => n + e.calls, 0);
  const lost = Number(prof.metadata.find(([k]) => k === 'hyprof dropped trace_samples_lost')?.[1] ?? 0);
  t.true(lost > 0, `samples lost: ${lost} of ${profSamples} (${r.stderr})`);
  t.regex(r.stderr, new RegExp(`thread 0: ${lost} samples of the profile are not in the trace`), 'the resolve says how many, per thread');
  t.regex(r.stderr, new RegExp(`${lost} samples of the profile not in the trace: the thread's trace buffer was full`), 'and the drop line');
  const py = spawnSync(PYTHON, [reader, join(dir, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  t.is(py.status, 0, py.stderr);
  const loc = (JSON.parse(py.stdout) as Samples).locations['thread 0'];
  const traced = loc.events.filter((e) => e[1] === 'S').length;
  t.is(traced + lost, profSamples, "the trace holds the profile's samples but the ones counted");
  t.is(loc.properties['hyprof:lost_samples'], lost, 'the location says it too');
});

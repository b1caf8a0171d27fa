/**
 * Every export format on TAU's own reference profiles (shared/reference/tau, beside the repository):
 * the numbers that come out are checked against the numbers in the profile files, computed here
 * from the events directly, not through the tree the exporters use.
 */
import test from 'ava';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { Profile, type Sample } from 'pprof-format';
import { buildPprof, exportPprof } from '../src/export/export-pprof.js';
import { exportSpeedscope, speedscopePieces, type SpeedscopeFile } from '../src/export/export-speedscope.js';
import { exportCollapsed } from '../src/export/export-collapsed.js';
import type { TauEvent } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { repoRoot, tauReferenceDir } from './helpers/native.js';

const ref = (v: string): string => join(tauReferenceDir, v);
const VARIANTS = ['probes_callpath', 'hybrid_unwind', 'hybrid_callpath_unwind', 'sampling_tau_exec', 'phase_probes'];

const byName = (events: TauEvent[]): Map<string, TauEvent> => new Map(events.map((e) => [e.name.trimEnd(), e]));

/**
 * What the stacks of one thread must add up to: the root's inclusive time, plus what a timer's
 * samples exceed its exclusive time by (sample time is measured beside timer time, TAU-FORMAT.md).
 */
function expectedTotal(events: TauEvent[]): number {
  const names = byName(events);
  let total = names.get('.TAU application')!.incl;
  for (const e of events) {
    const g = e.group.split('|');
    if (!g.includes('TAU_SAMPLE_CONTEXT') || !g.includes('TAU_CALLPATH')) continue;
    const timer = names.get(e.name.slice(0, e.name.lastIndexOf(' => [CONTEXT]')).trimEnd());
    if (!timer) throw new Error(`no timer event for ${e.name}`);
    total += Math.max(0, e.incl - timer.excl);
  }
  return total;
}

/** A timer's [CONTEXT] path entry: what the file says that timer's samples add up to. */
function contextEvent(events: TauEvent[], timer: string): TauEvent {
  const e = events.find((x) => x.group === 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH' && collapse(x.name.split(' => ').at(-1)!) === `[CONTEXT] ${timer}`);
  if (!e) throw new Error(`no context entry for ${timer}`);
  return e;
}

const collapse = (s: string): string => s.replace(/ {2,}/g, ' ').trim();

for (const v of VARIANTS) {
  test(`pprof of ${v} decodes back and its totals equal the profile's`, (t) => {
    const profile = readTauProfileDir(ref(v));
    const events = profile.threads[0][0].events;
    const decoded = Profile.decode(gunzipSync(exportPprof(profile)));
    const str = (i: number | bigint): string => decoded.stringTable.strings[Number(i)];
    t.deepEqual(decoded.sampleType.map((s) => [str(s.type), str(s.unit)]), [['calls', 'count'], ['time', 'nanoseconds']]);
    const total = decoded.sample.reduce((s, x) => s + Number(x.value[1]), 0);
    t.is(total, Math.round(expectedTotal(events) * 1000));
    const fname = new Map(decoded.function.map((f) => [Number(f.id), str(f.name)]));
    const locName = new Map(decoded.location.map((l) => [Number(l.id), fname.get(Number(l.line[0].functionId))!]));
    const label = (x: Sample, key: string) => str(x.label.find((l) => str(l.key) === key)!.str);
    // Leaf first, as pprof wants; the timer path (the context label) is the root part of every
    // stack, sampled code below it; no TAU prefixes anywhere.
    for (const s of decoded.sample) {
      const names = s.locationId.map((id) => locName.get(Number(id))!);
      t.true(names.every((n) => !/^\[(SAMPLE|UNWIND|CONTEXT)\]/.test(n)), names.join(' <- '));
      t.is(label(s, 'thread'), 'n,c,t 0,0,0');
      const context = label(s, 'context').split(' => ');
      t.deepEqual(names.slice(names.length - context.length).reverse(), context);
    }
    if (v.startsWith('hybrid')) {
      // The samples under [CONTEXT] Iteration 0 (code frames below the context Iteration 0) add up to
      // that context's entry in the file.
      const ctx = contextEvent(events, 'Iteration 0');
      const under = decoded.sample
        .filter((s) => label(s, 'context').split(' => ').at(-1) === 'Iteration 0' && s.locationId.length > label(s, 'context').split(' => ').length)
        .reduce((a, s) => a + Number(s.value[1]), 0);
      t.is(under, ctx.incl * 1000);
      // Sampled code is a real function with its file, at a location with its line.
      const add = decoded.function.find((f) => str(f.name) === 'add')!;
      t.is(str(add.filename), '/home/user/tau-example/matmult.c');
      t.true(decoded.location.some((l) => Number(l.line[0].functionId) === Number(add.id) && Number(l.line[0].line) === 14));
    }
  });

  test(`speedscope of ${v} has the file format's shape and weights sum to the profile's total`, (t) => {
    const profile = readTauProfileDir(ref(v));
    const s = JSON.parse(JSON.stringify(exportSpeedscope(profile)));
    t.is(s.$schema, 'https://www.speedscope.app/file-format-schema.json');
    t.true(Array.isArray(s.shared.frames) && s.shared.frames.every((f: { name: unknown }) => typeof f.name === 'string'));
    t.is(s.profiles.length, 1);
    const p = s.profiles[0];
    t.is(p.type, 'sampled');
    t.is(p.unit, 'microseconds');
    t.is(p.samples.length, p.weights.length);
    for (const stack of p.samples) for (const i of stack) t.true(Number.isInteger(i) && i >= 0 && i < s.shared.frames.length);
    const sum = p.weights.reduce((a: number, b: number) => a + b, 0);
    t.is(sum, expectedTotal(profile.threads[0][0].events));
    t.is(p.endValue - p.startValue, sum);
  });

  test(`collapsed stacks of ${v} sum to the profile's total`, (t) => {
    const profile = readTauProfileDir(ref(v));
    const text = exportCollapsed(profile);
    const lines = text.trimEnd().split('\n');
    let sum = 0;
    for (const l of lines) {
      const m = /^(.+) (\d+(?:\.\d+)?)$/.exec(l);
      t.truthy(m, l);
      sum += Number(m![2]);
    }
    t.is(sum, expectedTotal(profile.threads[0][0].events));
    if (v === 'hybrid_unwind') {
      // Timer, then the unwound callers and the sampled function, by function name.
      t.true(lines.some((l) => /^Iteration 0;([^;[]+;)+add \d+(\.\d+)?$/.test(l)), lines.filter((l) => l.startsWith('Iteration 0;')).slice(0, 5).join('\n'));
      t.false(lines.some((l) => /\[(SAMPLE|UNWIND|CONTEXT)\]/.test(l)));
    }
  });
}

test('speedscope: a file whose last text completes a 64 KB piece is written whole', (t) => {
  // The pieces are about 64 KB; the file's last text (its name, from the directory) once completed a
  // piece that was then dropped: the export came out cut, or empty. Directory names of these lengths
  // put the end on both sides of the boundary.
  const profile = readTauProfileDir(ref('hybrid_unwind'));
  const whole = [...speedscopePieces(profile)].join('').length;
  for (const extra of [0, 65_536 - whole - 40, 65_536 - whole, 65_536 - whole + 40, 70_000]) {
    const dir = 'd'.repeat(Math.max(1, profile.dir.length + extra));
    const text = [...speedscopePieces({ ...profile, dir })].join('');
    let s: SpeedscopeFile | undefined;
    t.notThrows(() => (s = JSON.parse(text) as SpeedscopeFile), `directory of ${dir.length} characters: ${text.length} characters written`);
    t.is(s?.name, `${dir} (TIME)`);
    t.is(s?.profiles.length, 1);
  }
});

test('exports of a two-thread OpenMP profile keep the threads apart', (t) => {
  const profile = readTauProfileDir(ref('openmp_ompt_full'));
  const s = exportSpeedscope(profile);
  t.deepEqual(s.profiles.map((p) => p.name), ['n,c,t 0,0,0 TIME', 'n,c,t 0,0,1 TIME']);
  const lines = exportCollapsed(profile).trimEnd().split('\n');
  t.true(lines.some((l) => l.startsWith('n,c,t 0,0,0;')));
  t.true(lines.some((l) => l.startsWith('n,c,t 0,0,1;')));
  t.true(lines.every((l) => /^n,c,t 0,0,[01];/.test(l)));
  const one = buildPprof(profile, { thread: '1' });
  t.true(one.sample.length > 0);
  t.true(one.sample.every((x) => one.stringTable.strings[Number(x.label[0].str)] === 'n,c,t 0,0,1'));
  const only = exportSpeedscope(profile, { thread: '0,0,1' });
  t.is(only.profiles.length, 1);
});

test('export selections the profile does not have are refused with a clear message', (t) => {
  const profile = readTauProfileDir(ref('openmp_ompt_full'));
  t.throws(() => exportCollapsed(profile, { thread: '7' }), { message: /--thread 7: no such thread in .*openmp_ompt_full \(threads: 0,0,0 0,0,1\)/ });
  t.throws(() => exportCollapsed(profile, { thread: 'x' }), { message: /--thread x: expected <node>,<context>,<thread> or a thread number/ });
  t.throws(() => exportCollapsed(profile, { metric: 'PAPI_TOT_CYC' }), { message: /--metric PAPI_TOT_CYC: not in .* \(metrics: TIME\)/ });
});

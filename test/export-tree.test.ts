/**
 * The exporters' tree in columns (src/export/export-tree.ts) against the viewer's event tree
 * (src/profile/event-tree.ts), whose rules it repeats without an object per node: walked the way the
 * exporters walk it, both give the same stacks (frames, values, calls, order) on every thread and
 * metric of TAU's reference profiles (event paths, phases, parameter profiles, depth-limited paths,
 * OpenMP threads, samples and unwound chains) and on a real program's profile with a stacks file.
 * And the export read thread by thread from the files (export-source.ts) writes the same bytes as the
 * export of the profile read whole; a file that goes bad after its first lines is told as the whole
 * reader tells it, and `hyprof export` leaves no half-written file behind.
 */
import test from 'ava';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { eventTree, selfValue, stackRoots, type TreeNode } from '../src/profile/event-tree.js';
import { sampledCode, stacksIn, threadTree, type ExportFrame } from '../src/export/export-common.js';
import { collapsedPieces } from '../src/export/export-collapsed.js';
import { exportPprof, pprofPieces } from '../src/export/export-pprof.js';
import { speedscopePieces } from '../src/export/export-speedscope.js';
import { openExportSource } from '../src/export/export-source.js';
import type { TauEvent, TauProfile, TauThreadProfile } from '../src/profile/tau-model.js';
import { parseThreadProfile, readTauProfileDir } from '../src/profile/tau-reader.js';
import { STACKS_FILE } from '../src/profile/stacks-file.js';
import { cliPath, compileC, hyprof, run, tauReferenceDir, tmpDir } from './helpers/native.js';

interface Walked {
  frames: ExportFrame[];
  value: number;
  calls: number;
}

/** A node as a frame, as the exporters made it from TreeNode objects. */
function frameOf(n: TreeNode): ExportFrame | null {
  switch (n.kind) {
    case 'timer':
      return { name: n.name, kind: 'timer' };
    case 'context': {
      const name = n.name.slice('[CONTEXT]'.length).trim();
      return n.parent && n.parent.name === name ? null : { name, kind: 'context' };
    }
    default: {
      const f = sampledCode(n.name);
      if (f && n.frame && n.frame[3] === '' && n.frame[1] !== '' && f.file !== undefined) f.startLine = n.frame[2];
      return f;
    }
  }
}

/** The stacks of the viewer's event tree: every node with a value of its own, depth first. */
function eventTreeStacks(t: TauThreadProfile): Walked[] {
  const out: Walked[] = [];
  const path: ExportFrame[] = [];
  const pending: Array<TreeNode | null> = [...stackRoots(eventTree(t.events, t.stacks))].reverse();
  while (pending.length > 0) {
    const n = pending.pop()!;
    if (n === null) {
      path.pop();
      continue;
    }
    const f = frameOf(n);
    if (f) {
      path.push(f);
      pending.push(null);
    }
    const v = selfValue(n);
    if (v > 0) out.push({ frames: [...path], value: v, calls: n.calls });
    for (let i = n.children.length - 1; i >= 0; i--) pending.push(n.children[i]);
  }
  return out;
}

function columnStacks(t: TauThreadProfile): Walked[] {
  const out: Walked[] = [];
  // Each stack is copied as it comes: the walk hands out the same object, valid until the next.
  for (const s of stacksIn(threadTree(t))) out.push({ frames: [...s.frames], value: s.value, calls: s.calls });
  return out;
}

function sameStacks(t: import('ava').ExecutionContext, p: TauProfile): number {
  let n = 0;
  p.threads.forEach((threads, m) => {
    for (const th of threads) {
      const want = eventTreeStacks(th);
      t.deepEqual(columnStacks(th), want, `${p.dir} metric ${p.metrics[m]} thread ${th.node},${th.context},${th.thread}`);
      n += want.length;
    }
  });
  return n;
}

const variants = existsSync(tauReferenceDir) ? readdirSync(tauReferenceDir).filter((v) => !v.startsWith('.')) : [];

test("the column tree gives the event tree's stacks on TAU's reference profiles", (t) => {
  t.true(variants.length >= 10, `reference profiles in ${tauReferenceDir}`);
  for (const v of variants) t.true(sameStacks(t, readTauProfileDir(join(tauReferenceDir, v))) > 0, v);
});

// A real program sampled 5000 calls deep, complete stacks on: its profile has a stacks file.
const deep = (async () => {
  const exe = compileC('sample_depth', ['sample_depth.c']);
  const dir = join(tmpDir('export-tree'), 'prof');
  const r = await run(process.execPath, [cliPath, 'run', '--dir', dir, '--', exe, 'deep'], { env: { HYPROF_UNWIND_DEPTH: '0' }, timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`hyprof run failed:\n${r.stderr}`);
  return dir;
})();

test("the column tree gives the event tree's stacks with a stacks file's complete stacks", async (t) => {
  const dir = await deep;
  t.true(readdirSync(dir).some((f) => STACKS_FILE.test(f)), 'the profile has a stacks file');
  const p = readTauProfileDir(dir);
  t.truthy(p.threads[0][0].stacks);
  t.true(sameStacks(t, p) > 0);
});

/** Every format from the files thread by thread, and from the profile read whole. */
function bothWays(t: import('ava').ExecutionContext, dir: string): void {
  const whole = readTauProfileDir(dir);
  const source = openExportSource(dir);
  t.is(source.profile.threads.flat().length, whole.threads.flat().length);
  t.true(source.profile.threads.flat().every((th) => th.events.length === 0), 'events are read when exported, not before');
  for (const sel of [{}, { thread: `${whole.threads[0][0].node},${whole.threads[0][0].context},${whole.threads[0][0].thread}` }]) {
    t.is([...collapsedPieces(source.profile, sel, source.eventsOf)].join(''), [...collapsedPieces(whole, sel)].join(''), `${dir} collapsed`);
    t.is([...speedscopePieces(source.profile, sel, '1', source.eventsOf)].join(''), [...speedscopePieces(whole, sel, '1')].join(''), `${dir} speedscope`);
    t.deepEqual(Buffer.concat([...pprofPieces(source.profile, sel, source.eventsOf)]), Buffer.concat([...pprofPieces(whole, sel)]), `${dir} pprof`);
  }
  t.deepEqual(gunzipSync(exportPprof(whole)), Buffer.concat([...pprofPieces(whole)]));
}

test('the export read thread by thread from the files equals the export of the profile read whole', async (t) => {
  for (const v of ['openmp_ompt_full', 'phase_hybrid_unwind', 'fnparam_hybrid_callpath_unwind', 'probes_callpath_d10']) bothWays(t, join(tauReferenceDir, v));
  bothWays(t, await deep);
});

/** A thread file broken in one way, and what the whole reader says of it. */
const BROKEN: Array<[string, (lines: string[]) => string[]]> = [
  ['an event line cut short', (l) => [...l.slice(0, 5), '"main" 1 2', ...l.slice(6)]],
  ['fewer event lines than announced', (l) => l.slice(0, 4)],
  ['a negative value', (l) => [...l.slice(0, 3), l[3].replace(/" (\d)/, '" -$1'), ...l.slice(4)]],
  ['no aggregates line', (l) => l.filter((x) => !/aggregates/.test(x))],
  ['a bad user event line', (l) => [...l, '1 userevents', '# eventname numevents max min mean sumsqr', '"x" 1 2']],
  ['text after the user events', (l) => [...l, '0 userevents', '# eventname numevents max min mean sumsqr', 'more']],
  ['a bad user events count', (l) => [...l, 'some userevents']],
];

/** Thread 0,0,0's events as an export reads them: its file read line by line when the export comes to it. */
function exportedEvents(dir: string): TauEvent[] {
  const source = openExportSource(dir);
  const out: TauEvent[] = [];
  source.eventsOf(source.profile.threads[0].find((x) => x.node === 0 && x.context === 0 && x.thread === 0)!, (e) => out.push(e));
  return out;
}

test('a thread file read line by line by the export fails as the whole reader fails, naming the file and line', (t) => {
  const src = join(tauReferenceDir, 'probes_callpath', 'profile.0.0.0');
  const lines = readFileSync(src, 'utf8').replace(/\n$/, '').split('\n');
  const ids = { node: 0, context: 0, thread: 0 };
  // The intact file reads the same both ways.
  t.deepEqual(exportedEvents(join(tauReferenceDir, 'probes_callpath')), parseThreadProfile(src, readFileSync(src, 'utf8'), ids).events);
  for (const [what, breakIt] of BROKEN) {
    const dir = tmpDir('export-broken');
    const file = join(dir, 'profile.0.0.0');
    const text = breakIt(lines).join('\n') + '\n';
    writeFileSync(file, text);
    const whole = t.throws(() => parseThreadProfile(file, text, ids), undefined, what);
    t.regex(whole!.message, /profile\.0\.0\.0:\d+: not a TAU profile: /, what);
    const streamed = t.throws(() => exportedEvents(dir), undefined, what);
    t.is(streamed!.message, whole!.message, what);
  }
  // A file gone between listing the threads and reading the events.
  const gone = tmpDir('export-gone');
  writeFileSync(join(gone, 'profile.0.0.0'), readFileSync(src));
  const source = openExportSource(gone);
  rmSync(join(gone, 'profile.0.0.0'));
  t.throws(() => source.eventsOf(source.profile.threads[0][0], () => {}), { message: /profile\.0\.0\.0: cannot read the profile file: / });
});

test('hyprof export of a profile whose thread file goes bad midway: the message, and no half-written output', async (t) => {
  const dir = join(tmpDir('export-midway'), 'prof');
  mkdirSync(dir);
  const ref = join(tauReferenceDir, 'openmp_ompt_full');
  for (const f of readdirSync(ref).filter((x) => x.startsWith('profile.'))) writeFileSync(join(dir, f), readFileSync(join(ref, f)));
  // The second thread's header is fine (the export starts), a line of its events is not.
  const second = join(dir, 'profile.0.0.1');
  const lines = readFileSync(second, 'utf8').split('\n');
  lines[4] = '"cut short" 1';
  writeFileSync(second, lines.join('\n'));
  for (const format of ['collapsed', 'speedscope', 'pprof']) {
    const out = join(dir, `..`, `out.${format}`);
    const r = await hyprof(['export', dir, '--format', format, '-o', out]);
    t.is(r.code, 2, format);
    t.regex(r.stderr, /profile\.0\.0\.1:5: not a TAU profile: expected an event line/, format);
    t.notRegex(r.stderr, /\n\s+at /, `${format}: no stack trace`);
    t.false(existsSync(out), `${format}: no half-written ${out}`);
    // Only a regular file is removed: a device the output went to stays (here it also fails to take
    // the bytes; either failure comes first).
    const dev = await hyprof(['export', dir, '--format', format, '-o', '/dev/full']);
    t.not(dev.code, 0, format);
    t.true(statSync('/dev/full').isCharacterDevice(), `${format}: /dev/full is still a device`);
  }
});

/**
 * The one invariant every profile hyprof writes must keep, checked the same way on every profile the
 * tests produce (helpers/native.ts runs it after each `hyprof run`, `hyprof resolve` and each linked
 * program that resolved its own profile; helpers/resolve.ts after in-process resolves):
 *
 * 1. TAU's own reader (ParaProf's, strict) accepts the directory (or its merged file, tauprofile.xml).
 * 2. Every event path `a => b => c` has its prefixes as entries of the same thread (`a => b`, `a`),
 *    every part of it has a flat entry, and no two entries of a thread are one name to TAU's readers
 *    (which collapse runs of spaces and trim).
 * 3. In the event-path tree of every thread, children never add up to more than their parent:
 *    a timer's sub-timers fit in its inclusive value; its sample nodes (`[CONTEXT]`, a parallel view
 *    of where its exclusive time went, docs/assembly.md) fit in its exclusive value; the nodes under a
 *    `[CONTEXT]` or `[UNWIND]` node fit in that node. A phase profile without event paths lists every
 *    event inside a phase under it, nested or not (TAU's format): there the events' exclusive values
 *    fit the phase. Rounding aside: the written numbers have 16 significant digits and the root line
 *    is rounded to whole units.
 * 4. Every export (collapsed, pprof, speedscope) of a thread adds up to the thread's root
 *    inclusive value, and no exported frame carries a `[SAMPLE]`, `[UNWIND]` or `[CONTEXT]` prefix.
 * 5. The viewer's tree (its root, under which everything hangs when there are event paths) and its
 *    flame graph of a thread show the same total.
 * 6. A stacks file (complete stacks, profile/stacks-file.ts) holds the same samples as the profile:
 *    per thread, metric and sample context, its nodes add up to the `[CONTEXT]` path entry's calls
 *    (samples) and inclusive value, and every context it names is an entry of the thread.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Profile } from 'pprof-format';
import { exportCollapsed } from '../../src/export/export-collapsed.js';
import { buildPprof } from '../../src/export/export-pprof.js';
import { exportSpeedscope } from '../../src/export/export-speedscope.js';
import { MERGED_FILE } from '../../src/profile/tau-merged-reader.js';
import { displayName, type TauEvent, type TauProfile, type TauThreadProfile } from '../../src/profile/tau-model.js';
import { readTauProfileDir } from '../../src/profile/tau-reader.js';
import { ProfileApi } from '../../src/view/api.js';
import { readWithTau, tauReaderComplaints } from './tau-reader.js';

/** The root every hyprof thread profile has. */
const ROOT = '.TAU application';
/** TAU's readers split event paths here (TAU writes two spaces before a [CONTEXT] part). */
const SPLIT = /\s+=>\s+/;
const SAMPLE_PREFIX = /^\[(SAMPLE|UNWIND|CONTEXT)\]/;

/** Allowed excess of children over a parent: the root line's rounding plus 16-digit arithmetic. */
function slack(value: number, terms: number): number {
  return 1 + 1e-9 * Math.abs(value) + 1e-9 * terms;
}

function where(t: TauThreadProfile, metric: string): string {
  return `thread ${t.node},${t.context},${t.thread} (${metric})`;
}

interface Node {
  name: string;
  entry?: TauEvent;
  children: Map<string, Node>;
}

/** Checks 2 and 3 on one thread. */
function checkPaths(t: TauThreadProfile, metric: string, problems: string[]): void {
  const at = where(t, metric);
  const byName = new Map<string, TauEvent>();
  for (const e of t.events) {
    const key = e.name.split(SPLIT).map(displayName).join(' => ');
    const other = byName.get(key);
    if (other) problems.push(`${at}: "${other.name}" and "${e.name}" are one name to TAU's readers`);
    byName.set(key, e);
  }
  const root: Node = { name: '', children: new Map() };
  for (const [key, e] of byName) {
    const parts = key.split(' => ');
    if (parts.length > 1) {
      for (const p of parts) if (!byName.has(p)) problems.push(`${at}: "${p}" (part of "${e.name}") has no flat entry`);
      for (let k = 2; k < parts.length; k++) {
        const prefix = parts.slice(0, k).join(' => ');
        if (!byName.has(prefix)) problems.push(`${at}: "${prefix}" (prefix of "${e.name}") has no entry`);
      }
    }
    let n = root;
    for (const p of parts) {
      let c = n.children.get(p);
      if (!c) n.children.set(p, (c = { name: p, children: new Map() }));
      n = c;
    }
    n.entry = e;
  }
  // A phase profile (phases, event paths off: `<enclosing phase> => <event>` as TAU writes it) lists
  // under each phase every event inside it, nested in each other or not: there, the children's
  // exclusive values (disjoint times) must fit the phase.
  const isPhase = (name: string) => /(^|\|)\s*TAU_PHASE\s*(\||$)/.test(byName.get(name)?.group ?? '');
  const timerPaths = [...byName.keys()].filter((k) => k.includes(' => ') && !SAMPLE_PREFIX.test(k.split(' => ').at(-1)!));
  const phaseProfile = timerPaths.length > 0 && timerPaths.every((k) => k.split(' => ').length === 2 && isPhase(k.split(' => ')[0]));
  // Flat entries are the tops of the trees paths start from; check each path tree from its top.
  const walk = (n: Node, path: string): void => {
    const kids = [...n.children.values()].filter((c) => c.entry);
    if (n.entry && kids.length > 0) {
      const e = n.entry;
      const isTimer = !SAMPLE_PREFIX.test(n.name);
      const timers = kids.filter((c) => !SAMPLE_PREFIX.test(c.name));
      const samples = kids.filter((c) => SAMPLE_PREFIX.test(c.name));
      const sum = (xs: Node[]) => xs.reduce((s, c) => s + c.entry!.incl, 0);
      if (isTimer) {
        const st = phaseProfile ? timers.reduce((s, c) => s + c.entry!.excl, 0) : sum(timers);
        if (st > e.incl + slack(e.incl, timers.length)) {
          problems.push(`${at}: the timers under "${path}" add up to ${st}${phaseProfile ? ' (exclusive)' : ''}, more than its inclusive ${e.incl}`);
        }
        const ss = sum(samples);
        if (ss > e.excl + slack(e.excl, samples.length)) {
          problems.push(`${at}: the samples under "${path}" add up to ${ss}, more than its exclusive ${e.excl}`);
        }
      } else {
        const s = sum(kids);
        if (s > e.incl + slack(e.incl, kids.length)) problems.push(`${at}: the nodes under "${path}" add up to ${s}, more than its ${e.incl}`);
      }
    }
    for (const c of n.children.values()) walk(c, path ? `${path} => ${c.name}` : c.name);
  };
  walk(root, '');
}

function near(a: number, b: number, tol: number): boolean {
  return Math.abs(a - b) <= tol;
}

/** Check 6 on one thread. */
function checkStacks(t: TauThreadProfile, metric: string, problems: string[]): void {
  const s = t.stacks;
  if (!s) return;
  const at = where(t, metric);
  const samples = new Array<number>(s.contexts.length).fill(0);
  const values = new Array<number>(s.contexts.length).fill(0);
  const top: number[] = [];
  s.parent.forEach((p, i) => {
    top[i] = p < 0 ? -p - 1 : top[p];
    samples[top[i]] += s.samples[i];
    values[top[i]] += s.values[i];
  });
  const byName = new Map(t.events.map((e) => [e.name, e]));
  s.contexts.forEach((c, k) => {
    const e = byName.get(c);
    if (!e) problems.push(`${at}: the stacks file names the context "${c}", which is no entry of the thread`);
    else {
      if (samples[k] !== e.calls) problems.push(`${at}: the stacks under "${c}" hold ${samples[k]} samples, its entry ${e.calls}`);
      if (!near(values[k], e.incl, slack(e.incl, s.parent.length))) problems.push(`${at}: the stacks under "${c}" add up to ${values[k]}, its entry to ${e.incl}`);
    }
  });
}

/** Checks 4 and 5 on one thread (index i of metric m). */
function checkConsumers(p: TauProfile, m: number, i: number, problems: string[]): void {
  const metric = p.metrics[m];
  const t = p.threads[m][i];
  const at = where(t, metric);
  const rootEntry = t.events.find((e) => e.name === ROOT);
  if (!rootEntry) {
    problems.push(`${at}: no "${ROOT}" entry`);
    return;
  }
  const total = rootEntry.incl;
  const sel = { thread: `${t.node},${t.context},${t.thread}`, metric };
  const report = (what: string, got: number, tol: number) => {
    if (!near(got, total, tol)) problems.push(`${at}: ${what} adds up to ${got}, the root's inclusive value is ${total}`);
  };
  const badFrames = (what: string, names: Iterable<string>) => {
    for (const n of names) {
      if (SAMPLE_PREFIX.test(n)) {
        problems.push(`${at}: ${what} has a frame named "${n}"`);
        return;
      }
    }
  };

  const collapsed = exportCollapsed(p, sel).split('\n').filter(Boolean);
  report('the collapsed export', collapsed.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0), slack(total, collapsed.length) + 0.001 * collapsed.length);
  badFrames('the collapsed export', collapsed.flatMap((l) => l.slice(0, l.lastIndexOf(' ')).split(';')));

  const pprof = Profile.decode(buildPprof(p, sel).encode());
  const scale = /TIME/i.test(metric) ? 1000 : 1;
  // the metric's own sample type (an async region's settle_time may follow it)
  const vi = pprof.sampleType.findIndex((v) => pprof.stringTable.strings[Number(v.type)].toLowerCase() === metric.toLowerCase());
  report('the pprof export', pprof.sample.reduce((s, x) => s + Number(x.value[vi]), 0) / scale, slack(total, pprof.sample.length) + pprof.sample.length / scale);
  badFrames('the pprof export', pprof.function.map((f) => pprof.stringTable.strings[Number(f.name)]));

  const ss = exportSpeedscope(p, sel);
  report('the speedscope export', ss.profiles[0].weights.reduce((s, w) => s + w, 0), slack(total, ss.profiles[0].weights.length));
  badFrames('the speedscope export', ss.shared.frames.map((f) => f.name));

  const api = new ProfileApi(p);
  const q = new URLSearchParams({ thread: String(i), metric: String(m) });
  // The tree: the root holds the thread's total; with event paths everything hangs under it (a flat
  // profile's tree is the list of its flat entries).
  const tree = api.tree(q) as { children: Array<{ name: string; incl: number }> };
  const top = tree.children.find((c) => c.name === ROOT);
  report("the viewer's tree root", top?.incl ?? 0, slack(total, 1));
  if (t.events.some((e) => SPLIT.test(e.name) && !SAMPLE_PREFIX.test(e.name.split(SPLIT).at(-1)!))) {
    const others = tree.children.filter((c) => c.name !== ROOT && c.incl > 0);
    if (others.length > 0) problems.push(`${at}: the viewer's tree has roots beside "${ROOT}": ${others.map((c) => c.name).slice(0, 5).join(', ')}`);
  }
  const flame = api.flame(new URLSearchParams({ thread: String(i), metric: String(m), min: '0' }));
  report("the viewer's flame graph", flame.value, slack(total, 1));
}

/** Every problem of the profile directory `dir` (none: it keeps the invariant). */
export function conformanceProblems(dir: string): string[] {
  const problems: string[] = [];
  // TAU's reader is given the merged file itself (it finds only profile.* files in a directory).
  const mergedOnly = !readdirSync(dir).some(isThreadProfile) && existsSync(join(dir, MERGED_FILE));
  const tau = readWithTau(mergedOnly ? join(dir, MERGED_FILE) : dir);
  if (!tau.ok) problems.push(`TAU's reader (strict) does not accept ${dir}:\n${tauReaderComplaints(tau)}`);
  // Each metric's directory alone too, as TAU's tools are pointed at one (pprof run inside MULTI__TIME).
  for (const sub of readdirSync(dir).filter((f) => f.startsWith('MULTI__') && statSync(join(dir, f)).isDirectory())) {
    const one = readWithTau(join(dir, sub));
    if (!one.ok) problems.push(`TAU's reader (strict) does not accept ${join(dir, sub)}:\n${tauReaderComplaints(one)}`);
  }
  let p: TauProfile;
  try {
    p = readTauProfileDir(dir);
  } catch (e) {
    return [...problems, `hyprof cannot read ${dir}: ${(e as Error).message}`];
  }
  p.metrics.forEach((metric, m) => {
    p.threads[m].forEach((t, i) => {
      checkPaths(t, metric, problems);
      checkStacks(t, metric, problems);
      checkConsumers(p, m, i, problems);
    });
  });
  return problems;
}

const checked = new Map<string, number>();

/** True when `dir` passed assertConformant (and nothing was written there since). */
export function wasChecked(dir: string): boolean {
  return checked.get(dir) === statSync(dir).mtimeMs;
}

/** A directory entry that is (or holds, MULTI__<metric>) profile.<n>.<c>.<t> files. */
const isThreadProfile = (f: string): boolean => /^profile\.\d+\.\d+\.\d+$/.test(f) || f.startsWith('MULTI__');

/** True when `dir` holds TAU profile files (or MULTI__ metric directories of them, or TAU's merged
 * file tauprofile.xml). */
export function holdsProfile(dir: string): boolean {
  try {
    return readdirSync(dir).some((f) => isThreadProfile(f) || f === MERGED_FILE);
  } catch {
    return false;
  }
}

/**
 * Throws (with every problem) unless `dir` keeps the invariant. A directory is checked once per
 * write: checking it again after nothing changed costs nothing.
 */
export function assertConformant(dir: string): void {
  const stamp = statSync(dir).mtimeMs;
  if (checked.get(dir) === stamp) return;
  const problems = conformanceProblems(dir);
  if (problems.length > 0) {
    const shown = problems.slice(0, 25).join('\n');
    const more = problems.length > 25 ? `\n... and ${problems.length - 25} more` : '';
    throw new Error(`profile ${dir} breaks the conformance invariant (test/helpers/conformance.ts):\n${shown}${more}`);
  }
  checked.set(dir, stamp);
}

/**
 * Real runs: test/native/assemble_matmult.c (the reference program's shape) compiled -O2 -g, run
 * under the runtime, its raw file read and resolved; names, groups and values checked against the
 * shapes of TAU's reference profiles (flat, callpath depth 2 and 10, parameters, phases, samples).
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../src/base/errors.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauEvent } from '../src/profile/tau-model.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import type { RawProcess } from '../src/samples/raw-model.js';
import { compileC, libPath, repoRoot, run, tmpDir, tauReferenceDir } from './helpers/native.js';
import { resolveChecked } from './helpers/resolve.js';

const haveRuntime = existsSync(libPath);
let exe: string | undefined;

function program(): string {
  exe ??= compileC('assemble_matmult', ['assemble_matmult.c'], { cflags: ['-O2', '-g'] });
  return exe;
}

async function measure(args: string[], env: Record<string, string>): Promise<{ raw: string; proc: RawProcess; dir: string }> {
  const dir = tmpDir('asm-real');
  const r = await run(program(), args, { cwd: dir, env: { HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: dir, HYPROF_DIR: dir, ...env } });
  if (r.code !== 0) throw new Error(`program failed (${r.code}): ${r.stderr}`);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  if (raws.length !== 1) throw new Error(`expected one raw file, found ${raws.join(', ')}`);
  const raw = join(dir, raws[0]);
  return { raw, proc: readRawFile(raw), dir };
}

async function resolved(args: string[], env: Record<string, string>) {
  const m = await measure(args, env);
  const out = join(m.dir, 'profile');
  const res = await resolveChecked([m.raw], { outDir: out });
  const th = readTauProfileDir(out).threads[0][0];
  const byName = new Map(th.events.map((e) => [e.name, e]));
  return { ...m, res, th, byName, ev: th.events };
}

const get = (m: Map<string, TauEvent>, name: string): TauEvent => {
  const e = m.get(name);
  if (!e) throw new Error(`no event "${name}"; have ${[...m.keys()].join(' | ')}`);
  return e;
};

/** Inclusive ns of the context of `event` whose parent context has event `parentEvent`. */
function rawIncl(p: RawProcess, event: string, parentEvent: string): number {
  const id = p.events.find((e) => e.name === event)!.id;
  const pid = p.events.find((e) => e.name === parentEvent)!.id;
  let total = 0;
  for (const s of p.threads[0].stats) {
    const c = p.contexts.get(s.context)!;
    if (c.event === id && p.contexts.get(c.parent)?.event === pid) total += s.incl[0];
  }
  return total;
}

const iterations = [0, 1, 2, 3, 4].map((i) => `Iteration ${i}`);

/** The groups in one of TAU's reference profiles (shared/reference/tau), when they are present. */
function referenceGroups(variant: string): Set<string> | null {
  const dir = join(tauReferenceDir, variant);
  if (!existsSync(dir)) return null;
  return new Set(readTauProfileDir(dir).threads[0][0].events.map((e) => e.group));
}

test('flat profile of a real run: TAU names, groups, parameters, recursion', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const { byName, ev, proc, th } = await resolved(['regions', '16'], { HYPROF_CALLPATH: '0' });
  t.is(ev[0].name, '.TAU application');
  t.is(ev[0].group, 'TAU_UTILITY');
  t.true(Number.isInteger(ev[0].incl) && Number.isInteger(ev[0].excl));
  t.false(ev.some((e) => e.name.includes('=>')));
  const main = get(byName, 'main');
  t.is(main.calls, 1);
  t.is(main.subrs, 6); // five iterations and recurse
  t.is(main.group, 'TAU_USER');
  for (const it of iterations) t.deepEqual([get(byName, it).calls, get(byName, it).subrs, get(byName, it).group], [1, 2, 'TAU_USER']);
  t.is(get(byName, 'matrixMultiply').calls, 10);
  for (const size of [16, 32]) {
    const p = get(byName, `matrixMultiply  [ <size> = <${size}> ]  `);
    t.is(p.calls, 5);
    t.is(p.group, 'TAU_PARAM | TAU_USER');
  }
  // Recursion: flat incl = the outermost call's incl only.
  const rec = get(byName, 'recurse');
  t.is(rec.calls, 4);
  t.is(rec.incl, rawIncl(proc, 'recurse', 'main') / 1000);
  t.true(main.incl <= ev[0].incl);
  const meta = new Map(th.metadata);
  t.is(meta.get('Metric Name'), 'TIME');
  t.is(meta.get('pid'), String(proc.info.pid));
  t.is(meta.get('tid'), String(proc.threads[0].tid));
  t.truthy(meta.get('hyprof Version'));
  t.deepEqual(th.userEvents.map((u) => [u.name, u.count, u.min, u.max, u.mean]), [['matrix size', 10, 16, 32, 24]]);
});

test('callpath depth 2 of a real run: a => b entries as TAU writes them', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const { byName, ev } = await resolved(['regions', '16'], { HYPROF_CALLPATH: '1', HYPROF_CALLPATH_DEPTH: '2' });
  const main = get(byName, 'main');
  t.deepEqual(get(byName, '.TAU application => main'), { ...main, name: '.TAU application => main', group: 'TAU_CALLPATH|TAU_USER' });
  for (const it of iterations) {
    const flat = get(byName, it);
    t.deepEqual(get(byName, `main => ${it}`), { ...flat, name: `main => ${it}`, group: 'TAU_CALLPATH|TAU_USER' });
    t.is(get(byName, `${it} => matrixMultiply`).calls, 2);
  }
  t.is(get(byName, 'main => recurse').calls, 1);
  t.is(get(byName, 'recurse => recurse').calls, 3);
  t.false(ev.some((e) => e.name.includes('=>') && e.name.includes('[ <size>')));
  const paths = ev.filter((e) => e.name.includes('=>'));
  t.true(paths.every((e) => e.group === 'TAU_CALLPATH|TAU_USER'));
  t.is(paths.length, 1 + 5 + 5 + 2);
});

test('callpath depth 10 of a real run: paths from the root', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const { byName } = await resolved(['regions', '16'], { HYPROF_CALLPATH: '1', HYPROF_CALLPATH_DEPTH: '10' });
  t.is(get(byName, '.TAU application => main => Iteration 3 => matrixMultiply').calls, 2);
  t.is(get(byName, '.TAU application => main => recurse => recurse => recurse => recurse').calls, 1);
});

test('phases of a real run: TAU_PHASE groups and phase => event entries', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const { byName, ev } = await resolved(['phases', '16'], { HYPROF_CALLPATH: '0' });
  t.is(ev[0].group, 'TAU_UTILITY|TAU_PHASE');
  t.is(get(byName, '.TAU application => main').group, 'TAU_CALLPATH|TAU_USER');
  for (const it of iterations) {
    t.is(get(byName, it).group, 'TAU_USER|TAU_PHASE');
    const p = get(byName, `.TAU application => ${it}`);
    t.deepEqual([p.calls, p.incl, p.group], [1, get(byName, it).incl, 'TAU_CALLPATH|TAU_USER']);
    t.is(get(byName, `${it} => matrixMultiply`).calls, 2);
  }
  t.is(get(byName, '.TAU application => recurse').calls, 4);
});

test('samples of a real run: CONTEXT, SAMPLE and UNWIND nodes resolve to source lines', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const { byName, ev, proc, res } = await resolved(['regions', '128'], {
    HYPROF_CALLPATH: '0',
    HYPROF_SAMPLING: '1',
    HYPROF_PERIOD_US: '1000',
  });
  const taken = proc.threads[0].samples.reduce((n, s) => n + s.count, 0);
  t.true(taken > 20, `${taken} samples`);
  t.is(res.samples, taken);
  const sum = (pred: (e: TauEvent) => boolean) => ev.filter(pred).reduce((n, e) => n + e.calls, 0);
  t.is(sum((e) => e.group === 'TAU_SAMPLE_CONTEXT'), taken);
  t.is(sum((e) => e.group === 'TAU_SAMPLE'), taken);
  t.is(sum((e) => e.group === 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH'), taken);
  // Samples are partitioned by parameter value: the context is the specialised timer, under its timer.
  const ctx = ev.find((e) => /^\[CONTEXT\] matrixMultiply  \[ <size> = <\d+> \]  $/.test(e.name));
  t.truthy(ctx);
  t.is(ctx!.excl, 0);
  t.truthy(ev.find((e) => /^matrixMultiply  => \[CONTEXT\] matrixMultiply  \[ <size> = <\d+> \]  $/.test(e.name)));
  const mult = ev.find((e) => /^\[SAMPLE\] multiply \[\{.*assemble_matmult\.c\} \{10\}\]$/.test(e.name));
  t.truthy(mult, 'samples in multiply() resolve to its line');
  t.true(ev.some((e) => e.group === 'TAU_UNWIND' && /^\[UNWIND\] .*assemble_matmult\.c\.10 \[@\] matrixMultiply \[\{.*assemble_matmult\.c\} \{19\}\]$/.test(e.name)));
  // Timers are not reduced by sample time.
  const mm = get(byName, 'matrixMultiply');
  const rawExcl = proc.threads[0].stats.list()
.filter((s) => proc.events[proc.contexts.get(s.context)!.event].name === 'matrixMultiply')
    .reduce((n, s) => n + s.excl[0], 0);
  t.is(mm.excl, rawExcl / 1000);
  t.false(ev.some((e) => e.name.includes('[SUMMARY]')));
  // Every group written is one TAU itself writes in the same configuration.
  const refGroups = referenceGroups('hybrid_unwind');
  if (refGroups) t.deepEqual([...new Set(ev.map((e) => e.group))].filter((g) => !refGroups.has(g)), []);
});

test('samples with callpaths and unwinding: names shaped like TAU reference hybrid_callpath_unwind', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const { ev } = await resolved(['regions', '128'], {
    HYPROF_CALLPATH: '1',
    HYPROF_CALLPATH_DEPTH: '2',
    HYPROF_SAMPLING: '1',
    HYPROF_UNWIND: '1',
  });
  const refGroups = referenceGroups('hybrid_callpath_unwind');
  if (refGroups) t.deepEqual([...new Set(ev.map((e) => e.group))].filter((g) => !refGroups.has(g)), []);
  const ctxPaths = ev.filter((e) => e.group === 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH');
  t.true(ctxPaths.length > 0);
  for (const e of ctxPaths) t.regex(e.name, /^(\S.* => )?\S.*  => \[CONTEXT\] \S.*$/);
  t.truthy(ev.find((e) => /^Iteration \d => matrixMultiply  => \[CONTEXT\] matrixMultiply  \[ <size> = <\d+> \]  $/.test(e.name)));
  const chains = ev.filter((e) => e.group === 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH');
  t.true(chains.length > 0);
  for (const e of chains) t.regex(e.name, /  => \[CONTEXT\] .+?  => \[UNWIND\] /);
});

test('a real raw file cut short or corrupted is rejected with its offset', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const { raw, dir } = await measure(['regions', '16'], {});
  const buf = readFileSync(raw);
  const cut = join(dir, 'cut.raw');
  writeFileSync(cut, buf.subarray(0, Math.floor(buf.length / 2)));
  const e1 = t.throws(() => readRawFile(cut), { instanceOf: UserError });
  t.regex(e1!.message, new RegExp(`^${cut.replace(/[.]/g, '\\.')}: offset \\d+: .*(file ends at ${Math.floor(buf.length / 2)})`));
  const flip = join(dir, 'flip.raw');
  const copy = Buffer.from(buf);
  copy[Math.floor(buf.length / 3)] ^= 0xff;
  writeFileSync(flip, copy);
  const e2 = t.throws(() => readRawFile(flip), { instanceOf: UserError });
  t.regex(e2!.message, /: offset \d+: /);
});

test('threads and a forked child: one file per thread, the child under its pid', async (t) => {
  if (!haveRuntime) return t.fail(`${libPath} is not built`);
  const exe2 = compileC('assemble_fork_threads', ['assemble_fork_threads.c'], { cflags: ['-O1', '-g'] });
  const dir = tmpDir('asm-fork');
  const r = await run(exe2, [], { cwd: dir, env: { HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: dir, HYPROF_DIR: dir, HYPROF_CALLPATH: '0' } });
  t.is(r.code, 0, r.stderr);
  const childPid = Number(r.stdout.trim());
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw')).map((f) => join(dir, f));
  t.is(raws.length, 2);
  const out = join(dir, 'profile');
  const res = await resolveChecked(raws, { outDir: out });
  t.is(res.processes, 2);
  t.deepEqual(readdirSync(out).sort(), ['profile.0.0.0', 'profile.0.0.1', `profile.0.${childPid}.0`].sort());
  const p = readTauProfileDir(out).threads[0];
  const names = (n: number, c: number, th: number) => p.find((x) => x.node === n && x.context === c && x.thread === th)!.events.map((e) => e.name);
  t.true(names(0, 0, 1).includes('worker task'));
  t.false(names(0, 0, 0).includes('worker task'));
  t.true(names(0, childPid, 0).includes('child work'));
  const worker = p.find((x) => x.thread === 1)!;
  t.is(new Map(worker.metadata).get('Thread Name'), 'worker');
});

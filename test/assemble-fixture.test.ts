/**
 * Assembly on exact, known raw input (written by test/raw-fixture.ts): names, groups and values as
 * TAU writes them for flat profiles, callpaths at depth 2 and 10, parameters, phases, recursion and
 * sample nodes. Real runs of the native runtime are covered by assemble-real.test.ts.
 */
import test from 'ava';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../src/base/errors.js';
import { assembleProcess } from '../src/resolve/assemble.js';
import { resolveRawFiles } from '../src/resolve/resolve.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauEvent } from '../src/profile/tau-model.js';
import { parseRaw } from '../src/samples/raw-reader.js';
import type { Resolution } from '../src/symbolize/frames.js';
import { tmpDir } from './helpers/native.js';
import { resolveChecked } from './helpers/resolve.js';
import { encodeRaw, type Fixture } from './raw-fixture.js';

const R = 0x1n, M = 0x2n, I = 0x3n, T = 0x4n, P = 0x5n, N = 0x6n;

function matmult(opts: { phase?: boolean } = {}): Fixture {
  return {
    attributes: [['Hostname', 'h'], ['HYPROF_CALLPATH', 'off'], ['HYPROF_CALLPATH_DEPTH', '2']],
    events: [
      { kind: 3, name: '.TAU application', group: 'TAU_UTILITY' },
      { name: 'main' },
      opts.phase ? { kind: 1, name: 'Iteration 0', group: 'TAU_USER|TAU_PHASE' } : { name: 'Iteration 0' },
      { name: 'matrixMultiply' },
      { kind: 2, base: 3, name: 'matrixMultiply  [ <size> = <128> ]  ', group: 'TAU_PARAM | TAU_USER' },
      { name: 'inner' },
    ],
    // The runtime's layout: a parameter context is a sibling of its timer's context (same parent),
    // and what runs inside the specialised timer hangs below the parameter context.
    contexts: [
      { context: R, parent: 0n, event: 0 },
      { context: M, parent: R, event: 1 },
      { context: I, parent: M, event: 2 },
      { context: T, parent: I, event: 3 },
      { context: P, parent: I, event: 4 },
      { context: N, parent: P, event: 5 },
    ],
    threads: [
      {
        index: 0,
        tid: 777,
        stats: [
          { context: R, calls: 1, childCalls: 1, incl: [10_000_400], excl: [1_400] },
          { context: M, calls: 1, childCalls: 1, incl: [9_999_000], excl: [999_000] },
          { context: I, calls: 1, childCalls: 3, incl: [9_000_000], excl: [1_000_000] },
          { context: T, calls: 3, childCalls: 3, incl: [8_000_000], excl: [5_000_000] },
          { context: P, calls: 3, childCalls: 3, incl: [8_000_000], excl: [5_000_000] },
          { context: N, calls: 3, incl: [3_000_000], excl: [3_000_000] },
        ],
      },
    ],
  };
}

const noSymbols = (pc: bigint): Resolution => ({ resolved: false, module: 'UNKNOWN', address: pc });

function assemble(f: Fixture, opts: { callpath?: boolean; callpathDepth?: number; keepAddresses?: boolean; resolve?: (pc: bigint, r: boolean) => Resolution } = {}) {
  const proc = parseRaw('fixture.raw', encodeRaw(f));
  return assembleProcess(proc, { resolve: opts.resolve ?? noSymbols, ...opts });
}

function line(events: TauEvent[], name: string): [number, number, number, number, string] | undefined {
  const e = events.find((x) => x.name === name);
  return e ? [e.calls, e.subrs, e.excl, e.incl, e.group] : undefined;
}

test('flat profile: names, groups, µs values, parameters, no paths when callpaths are off', (t) => {
  const a = assemble(matmult());
  t.is(a.threads.length, 1);
  const ev = a.threads[0][0].events;
  t.is(ev[0].name, '.TAU application');
  t.deepEqual(line(ev, '.TAU application'), [1, 1, 1, 10000, 'TAU_UTILITY']);
  t.deepEqual(line(ev, 'main'), [1, 1, 999, 9999, 'TAU_USER']);
  t.deepEqual(line(ev, 'Iteration 0'), [1, 3, 1000, 9000, 'TAU_USER']);
  t.deepEqual(line(ev, 'matrixMultiply'), [3, 3, 5000, 8000, 'TAU_USER']);
  t.deepEqual(line(ev, 'matrixMultiply  [ <size> = <128> ]  '), [3, 3, 5000, 8000, 'TAU_PARAM | TAU_USER']);
  t.deepEqual(line(ev, 'inner'), [3, 0, 3000, 3000, 'TAU_USER']);
  t.is(ev.length, 6);
  t.false(ev.some((e) => e.name.includes('=>')));
});

test('the root line is integral even when the µs value is not', (t) => {
  const f = matmult();
  f.threads[0].stats[0].excl = [1_600];
  f.threads[0].stats[0].incl = [10_000_700];
  const ev = assemble(f).threads[0][0].events;
  t.deepEqual(line(ev, '.TAU application'), [1, 1, 2, 10001, 'TAU_UTILITY']);
  t.deepEqual(line(ev, 'main'), [1, 1, 999, 9999, 'TAU_USER']);
});

test('callpath depth 2: a => b entries, none for parameters, leaf group', (t) => {
  const ev = assemble(matmult(), { callpath: true, callpathDepth: 2 }).threads[0][0].events;
  t.deepEqual(line(ev, '.TAU application => main'), [1, 1, 999, 9999, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, 'main => Iteration 0'), [1, 3, 1000, 9000, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, 'Iteration 0 => matrixMultiply'), [3, 3, 5000, 8000, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, 'matrixMultiply => inner'), [3, 0, 3000, 3000, 'TAU_CALLPATH|TAU_USER']);
  t.is(ev.filter((e) => e.name.includes('=>')).length, 4);
  t.false(ev.some((e) => e.name.includes('=>') && e.name.includes('[ <size>')));
  // Each path entry follows its leaf's flat entry, as TAU writes them.
  const names = ev.map((e) => e.name);
  t.is(names.indexOf('main => Iteration 0'), names.indexOf('Iteration 0') + 1);
});

test('callpath depth 10 (from the run settings): full paths from the root', (t) => {
  const f = matmult();
  f.attributes = [['TAU_CALLPATH', 'on'], ['TAU_CALLPATH_DEPTH', '10']];
  const ev = assemble(f).threads[0][0].events;
  t.deepEqual(line(ev, '.TAU application => main => Iteration 0'), [1, 3, 1000, 9000, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, '.TAU application => main => Iteration 0 => matrixMultiply => inner'), [3, 0, 3000, 3000, 'TAU_CALLPATH|TAU_USER']);
});

test('phases: root and phase groups, <enclosing phase> => <event> entries with callpaths off', (t) => {
  const ev = assemble(matmult({ phase: true })).threads[0][0].events;
  t.deepEqual(line(ev, '.TAU application'), [1, 1, 1, 10000, 'TAU_UTILITY|TAU_PHASE']);
  t.deepEqual(line(ev, 'Iteration 0'), [1, 3, 1000, 9000, 'TAU_USER|TAU_PHASE']);
  t.deepEqual(line(ev, '.TAU application => main'), [1, 1, 999, 9999, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, '.TAU application => Iteration 0'), [1, 3, 1000, 9000, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, 'Iteration 0 => matrixMultiply'), [3, 3, 5000, 8000, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, 'Iteration 0 => inner'), [3, 0, 3000, 3000, 'TAU_CALLPATH|TAU_USER']);
  t.is(ev.filter((e) => e.name.includes('=>')).length, 4);
});

test('recursion is not counted twice (flat and path entries)', (t) => {
  const A = 0x11n, B = 0x12n, C = 0x13n;
  const f: Fixture = {
    events: [{ kind: 3, name: '.TAU application', group: 'TAU_UTILITY' }, { name: 'main' }, { name: 'f' }],
    contexts: [
      { context: R, parent: 0n, event: 0 },
      { context: M, parent: R, event: 1 },
      { context: A, parent: M, event: 2 },
      { context: B, parent: A, event: 2 },
      { context: C, parent: B, event: 2 },
    ],
    threads: [
      {
        index: 0,
        tid: 1,
        stats: [
          { context: R, calls: 1, childCalls: 1, incl: [1_000_000], excl: [0] },
          { context: M, calls: 1, childCalls: 1, incl: [1_000_000], excl: [100_000] },
          { context: A, calls: 1, childCalls: 1, incl: [900_000], excl: [300_000] },
          { context: B, calls: 1, childCalls: 1, incl: [600_000], excl: [300_000] },
          { context: C, calls: 1, incl: [300_000], excl: [300_000] },
        ],
      },
    ],
  };
  const ev = assemble(f, { callpath: true, callpathDepth: 2 }).threads[0][0].events;
  t.deepEqual(line(ev, 'f'), [3, 2, 900, 900, 'TAU_USER']);
  t.deepEqual(line(ev, 'main => f'), [1, 1, 300, 900, 'TAU_CALLPATH|TAU_USER']);
  t.deepEqual(line(ev, 'f => f'), [2, 1, 600, 600, 'TAU_CALLPATH|TAU_USER']);
});

function withSamples(f: Fixture, unwind: boolean): Fixture {
  f.sampling = { unwind, depth: 10 };
  f.maps = [];
  f.threads[0].samples = [
    { context: P, count: 3, values: [2_400_000], pcs: [0x100n, 0x200n] },
    { context: P, count: 2, values: [2_000_000], pcs: [0x100n, 0x200n] },
    { context: N, count: 1, values: [1_000_000], pcs: [0x300n, 0x400n] },
  ];
  return f;
}

const fakeSymbols = (pc: bigint, isReturn: boolean): Resolution => {
  if (pc === 0x100n && !isReturn) return { resolved: true, frames: [{ function: 'add', file: 'm.c', line: 14 }] };
  if (pc === 0x200n && isReturn) {
    // An inlined call site: two frames for one return address, innermost first.
    return { resolved: true, frames: [{ function: 'mul', file: 'm.c', line: 20 }, { function: 'matrixMultiply', file: 'm.c', line: 28 }] };
  }
  return { resolved: false, module: '/lib/libc.so.6', address: pc };
};

test('sample nodes without unwinding: CONTEXT and SAMPLE entries, timers untouched', (t) => {
  const a = assemble(withSamples(matmult(), false), { resolve: fakeSymbols, keepAddresses: true });
  const ev = a.threads[0][0].events;
  t.is(a.samples, 6);
  // Samples are partitioned by parameter value: the specialised context's [CONTEXT] node hangs under
  // its timer (never under a second copy of the timer).
  t.deepEqual(line(ev, '[CONTEXT] matrixMultiply  [ <size> = <128> ]  '), [5, 0, 0, 4400, 'TAU_SAMPLE_CONTEXT']);
  t.is(line(ev, '[CONTEXT] matrixMultiply'), undefined);
  t.deepEqual(line(ev, 'matrixMultiply  => [CONTEXT] matrixMultiply  [ <size> = <128> ]  '), [5, 0, 0, 4400, 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH']);
  t.false(ev.some((e) => e.name.startsWith('matrixMultiply  [ <size> = <128> ]  =>')));
  t.deepEqual(line(ev, '[SAMPLE] add [{m.c} {14}]'), [5, 0, 4400, 4400, 'TAU_SAMPLE']);
  t.deepEqual(line(ev, 'matrixMultiply  => [CONTEXT] matrixMultiply  [ <size> = <128> ]  => [SAMPLE] add [{m.c} {14}]'), [5, 0, 4400, 4400, 'TAU_SAMPLE|TAU_CALLPATH']);
  t.deepEqual(line(ev, '[CONTEXT] inner'), [1, 0, 0, 1000, 'TAU_SAMPLE_CONTEXT']);
  t.deepEqual(line(ev, 'inner  => [CONTEXT] inner'), [1, 0, 0, 1000, 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH']);
  t.deepEqual(line(ev, '[SAMPLE] UNRESOLVED /lib/libc.so.6 ADDR 0x300'), [1, 0, 1000, 1000, 'TAU_SAMPLE']);
  t.false(ev.some((e) => e.name.includes('[UNWIND]')));
  t.false(ev.some((e) => e.name.includes('[SUMMARY]')));
  t.deepEqual(line(ev, 'matrixMultiply'), [3, 3, 5000, 8000, 'TAU_USER']);
  t.is(ev[0].name, '.TAU application');
});

test('sample nodes with unwinding and callpaths: UNWIND chains, prefixes, inlined frames', (t) => {
  const ev = assemble(withSamples(matmult(), true), { resolve: fakeSymbols, callpath: true, callpathDepth: 2 }).threads[0][0].events;
  const ctx = 'Iteration 0 => matrixMultiply  => [CONTEXT] matrixMultiply  [ <size> = <128> ]';
  t.deepEqual(line(ev, `${ctx}  `), [5, 0, 0, 4400, 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH']);
  const u1 = '[UNWIND] m.c.20 [@] matrixMultiply [{m.c} {28}]';
  const u2 = '[UNWIND] m.c.14 [@] mul [{m.c} {20}]';
  t.deepEqual(line(ev, u1), [5, 0, 0, 4400, 'TAU_UNWIND']);
  t.deepEqual(line(ev, u2), [5, 0, 0, 4400, 'TAU_UNWIND']);
  t.deepEqual(line(ev, `${ctx}  => ${u1}`), [5, 0, 0, 4400, 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH']);
  t.deepEqual(line(ev, `${ctx}  => ${u1} => ${u2}`), [5, 0, 0, 4400, 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH']);
  t.deepEqual(line(ev, `${ctx}  => ${u1} => ${u2} => [SAMPLE] add [{m.c} {14}]`), [5, 0, 4400, 4400, 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH']);
  // An unresolved caller and callee, addresses not kept; inner's path names its timer, not the
  // specialisation it ran in.
  const inner = 'matrixMultiply => inner  => [CONTEXT] inner';
  t.deepEqual(line(ev, `${inner}  => [UNWIND] UNRESOLVED [@] UNRESOLVED /lib/libc.so.6 => [SAMPLE] UNRESOLVED /lib/libc.so.6`), [1, 0, 1000, 1000, 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH']);
});

test('a rare chain cut shorter than its stack keeps its stack whole in the stacks file, though no stack is deeper than the chains', (t) => {
  const f = withSamples(matmult(), true);
  f.sampling = { unwind: true, depth: 0 }; // complete stacks (HYPROF_UNWIND_DEPTH=0): the chains keep TAU's 10 frames
  // 1,000 samples in add() called from mul(), 2 in add() called from elsewhere (0x500): under 0.5 %
  // of the samples, that chain is cut to its leaf in the TAU profile; every stack is 2-3 frames, far
  // from the chain depth of 10.
  f.threads[0].samples = [
    { context: P, count: 1000, values: [4_000_000], pcs: [0x100n, 0x200n] },
    { context: P, count: 2, values: [8_000], pcs: [0x100n, 0x500n] },
  ];
  const a = assemble(f, { resolve: fakeSymbols, callpath: true, callpathDepth: 2 });
  const meta = new Map(a.threads[0][0].metadata);
  t.is(meta.get('hyprof samples in shortened chains'), '2');
  t.false(a.threads[0][0].events.some((e) => e.name.includes('ADDR 0x500') || e.name.includes('[UNWIND] m.c.14 [@] UNRESOLVED')), 'the rare chain is cut in the profile');
  const stacks = a.stacks;
  if (!stacks) return t.fail('no stacks file: the rare chain\'s caller is kept nowhere');
  const th = stacks.threads.find((x) => x.thread === 0)!;
  const name = (i: number) => stacks.frames[th.frame[i]][0];
  // the two samples end at add() under the unresolved caller, as they were unwound
  const ends = th.samples.flatMap((n, i) => (n > 0 ? [[n, name(i), th.parent[i] >= 0 ? name(th.parent[i]) : '']] : []));
  t.deepEqual(ends.filter(([, , caller]) => String(caller).startsWith('UNRESOLVED')), [[2, 'add', 'UNRESOLVED /lib/libc.so.6']]);
  t.is(th.samples.reduce((x, y) => x + y, 0), 1002);
});

test('samples never add up to more than their context exclusive time: they are scaled down to it', (t) => {
  const f = withSamples(matmult(), false);
  // 6 ms of samples in the specialised context, which ran 5 ms exclusive; 1 ms in its timer outside
  // the specialisation, which has no exclusive time left (the specialisation covers all of it).
  f.threads[0].samples = [
    { context: P, count: 6, values: [6_000_000], pcs: [0x100n] },
    { context: T, count: 1, values: [1_000_000], pcs: [0x100n] },
  ];
  const ev = assemble(f, { resolve: fakeSymbols }).threads[0][0].events;
  t.deepEqual(line(ev, '[CONTEXT] matrixMultiply  [ <size> = <128> ]  '), [6, 0, 0, 5000, 'TAU_SAMPLE_CONTEXT']);
  t.deepEqual(line(ev, '[CONTEXT] matrixMultiply'), [1, 0, 0, 0, 'TAU_SAMPLE_CONTEXT']);
  t.deepEqual(line(ev, '[SAMPLE] add [{m.c} {14}]'), [7, 0, 5000, 5000, 'TAU_SAMPLE']);
  // Timers are never changed by samples.
  t.deepEqual(line(ev, 'matrixMultiply'), [3, 3, 5000, 8000, 'TAU_USER']);
});

test('metadata, user events, open timers, drops and warnings', (t) => {
  const f = matmult();
  f.userEvents = [[0, 'message "size"']];
  f.threads[0].user = [{ event: 0, count: 4, min: 1, max: 7, sum: 12, sumsqr: 60 }];
  f.threads[0].open = [M];
  f.threads[0].drops = [['in_tool', 3]];
  f.threads[0].warnings = ['stop of "x" while "y" runs'];
  f.threads[0].name = 'worker';
  const a = assemble(f);
  const th = a.threads[0][0];
  const meta = new Map(th.metadata);
  t.is(th.metadata[0][0], 'Metric Name');
  t.is(meta.get('Metric Name'), 'TIME');
  t.is(meta.get('Hostname'), 'h');
  t.is(meta.get('pid'), '4242');
  t.is(meta.get('tid'), '777');
  t.is(meta.get('Starting Timestamp'), '1700000000000000');
  t.is(meta.get('Ending Timestamp'), '1700000002000000');
  t.regex(meta.get('hyprof Version') ?? '', /^\d+\.\d+\.\d+/);
  t.is(meta.get('Thread Name'), 'worker');
  t.is(meta.get('hyprof timers closed at exit'), 'main');
  t.is(meta.get('hyprof dropped in_tool'), '3');
  t.is(meta.get('hyprof warning 1'), 'stop of "x" while "y" runs');
  t.deepEqual(th.userEvents, [{ name: "message 'size'", count: 4, max: 7, min: 1, mean: 3, sumsqr: 60 }]);
  t.deepEqual(a.drops, { in_tool: 3 });
  t.deepEqual(a.warnings, ['fixture.raw: thread 0: stop of "x" while "y" runs']);
});

test('file numbering: node, and context 0 / pid for forked and run descendants', (t) => {
  const f = matmult();
  f.node = 3;
  f.flags = 16; // node set
  t.deepEqual([assemble(f).node, assemble(f).context], [3, 0]);
  const child = matmult();
  child.flags = 1; // forked child
  child.pid = 5151;
  t.is(assemble(child).context, 5151);
  const lone = matmult();
  t.is(assemble(lone).context, 0);
});

test('resolveRawFiles writes a readable profile directory and reports totals', async (t) => {
  const dir = tmpDir('resolve');
  const root = join(dir, 'root.raw');
  const kid = join(dir, 'kid.raw');
  const r = matmult();
  r.flags = 8;
  r.pid = 100;
  const k = withSamples(matmult(), false);
  k.flags = 1;
  k.pid = 101;
  k.threads[0].drops = [['table_full', 2]];
  writeFileSync(root, encodeRaw(r));
  writeFileSync(kid, encodeRaw(k));
  const out = join(dir, 'out');
  const progress: string[] = [];
  const res = await resolveChecked([root, kid], { outDir: out, onProgress: (_d, _t, what) => progress.push(what) });
  t.deepEqual(readdirSync(out).sort(), ['profile.0.0.0', 'profile.0.101.0']);
  t.is(res.processes, 2);
  t.is(res.threads, 2);
  t.is(res.samples, 6);
  t.deepEqual(res.drops, { table_full: 2 });
  t.is(res.files.length, 2);
  t.true(progress.length > 0);
  const back = readTauProfileDir(out);
  t.deepEqual(back.threads[0].map((x) => `${x.node}.${x.context}.${x.thread}`), ['0.0.0', '0.101.0']);
  t.deepEqual(line(back.threads[0][0].events, 'main'), [1, 1, 999, 9999, 'TAU_USER']);
});

test('resolveRawFiles: colliding processes and corrupt files fail before anything is written', async (t) => {
  const dir = tmpDir('resolve-bad');
  const a = join(dir, 'a.raw');
  const b = join(dir, 'b.raw');
  writeFileSync(a, encodeRaw(matmult()));
  const other = matmult();
  other.pid = 999;
  writeFileSync(b, encodeRaw(other));
  const out = join(dir, 'out');
  const err = await t.throwsAsync(resolveRawFiles([a, b], { outDir: out }), { instanceOf: UserError });
  t.is(err?.message, `${a} and ${b} would both write profile.0.0.* (node 0, context 0): resolve them into different directories`);
  t.false(existsSync(out));

  const bad = join(dir, 'bad.raw');
  writeFileSync(bad, encodeRaw(matmult()).subarray(0, 50));
  const err2 = await t.throwsAsync(resolveRawFiles([a, bad], { outDir: out }), { instanceOf: UserError });
  t.regex(err2!.message, new RegExp(`^${bad.replace(/[.]/g, '\\.')}: offset \\d+: `));
  t.false(existsSync(out));
  await t.throwsAsync(resolveRawFiles([], { outDir: out }), { message: 'no raw measurement files to resolve' });
});

test('several metrics: one MULTI__ directory each, counters not scaled', async (t) => {
  const f = matmult();
  f.metrics = ['TIME', 'PAPI_TOT_CYC'];
  f.flags = 4; // written by hyprof_flush
  for (const s of f.threads[0].stats) {
    s.incl = [s.incl[0], s.incl[0] * 2];
    s.excl = [s.excl[0], s.excl[0] * 2];
  }
  const dir = tmpDir('multi');
  const raw = join(dir, 'm.raw');
  writeFileSync(raw, encodeRaw(f));
  const out = join(dir, 'out');
  await resolveChecked([raw], { outDir: out });
  t.deepEqual(readdirSync(out).sort(), ['MULTI__PAPI_TOT_CYC', 'MULTI__TIME']);
  const p = readTauProfileDir(out);
  const cyc = p.threads[p.metrics.indexOf('PAPI_TOT_CYC')][0];
  t.deepEqual(line(cyc.events, 'main'), [1, 1, 1_998_000, 19_998_000, 'TAU_USER']);
  t.is(new Map(cyc.metadata).get('Metric Name'), 'PAPI_TOT_CYC');
  t.is(new Map(cyc.metadata).get('hyprof Written'), 'by hyprof_flush() while the process was still running');
  const time = p.threads[p.metrics.indexOf('TIME')][0];
  t.deepEqual(line(time.events, 'main'), [1, 1, 999, 9999, 'TAU_USER']);
});

/**
 * The event-path tree, flame widths and thread statistics the viewer and the exporters share,
 * checked on TAU's own reference profiles against the numbers in their files.
 */
import test from 'ava';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauEvent } from '../src/profile/tau-model.js';
import { aggregateEvents } from '../src/view/aggregate.js';
import { flameGraph, flameWidths } from '../src/view/flame.js';
import { eventTree, selfValue, sourceOf, splitPath } from '../src/profile/event-tree.js';
import { repoRoot, tauReferenceDir } from './helpers/native.js';

const ref = (v: string): string => join(tauReferenceDir, v);
const event = (events: TauEvent[], name: string): TauEvent => {
  const e = events.find((x) => x.name === name);
  if (!e) throw new Error(`no event ${name}`);
  return e;
};

test('path names split as TAU writes them, two spaces before [CONTEXT] included', (t) => {
  t.deepEqual(splitPath('main => Iteration 0  => [CONTEXT]  Iteration 0  => [SAMPLE] add [{m.c} {14}]'), [
    'main',
    'Iteration 0',
    '[CONTEXT] Iteration 0',
    '[SAMPLE] add [{m.c} {14}]',
  ]);
  t.deepEqual(sourceOf('[SAMPLE] add [{/a/matmult.c} {14}]'), { file: '/a/matmult.c', line: 14 });
  t.deepEqual(sourceOf('OpenMP_Work_Loop f [{/a/omp.c} {16, 0}]'), { file: '/a/omp.c', line: 16 });
  t.is(sourceOf('[SAMPLE] UNRESOLVED /usr/lib/libc.so.6'), undefined);
});

test('depth-2 event paths are hung under the one place their root occurs', (t) => {
  const events = readTauProfileDir(ref('hybrid_callpath_unwind')).threads[0][0].events;
  const tree = eventTree(events);
  t.deepEqual(
    tree.roots.map((r) => r.name).filter((n) => !n.includes('[')),
    ['.TAU application'],
  );
  const it0 = tree.byPath.get('.TAU application => main => Iteration 0')!;
  t.is(it0.incl, event(events, 'main => Iteration 0').incl);
  const ctx = tree.byPath.get('.TAU application => main => Iteration 0 => [CONTEXT] Iteration 0')!;
  t.is(ctx.kind, 'context');
  t.is(ctx.incl, event(events, 'main => Iteration 0  => [CONTEXT]  Iteration 0').incl);
  t.is(ctx.calls, 428);
  t.true(ctx.children.length > 0);
  t.true(ctx.children.every((c) => c.kind === 'unwind' || c.kind === 'sample'));
  // The samples of a context add up to the context's own entry.
  t.is(ctx.children.reduce((s, c) => s + c.incl, 0), ctx.incl);
  // The timer keeps what its samples do not explain.
  t.is(selfValue(it0), it0.excl - ctx.incl);
  // Below the unwound frames sit the sampled lines.
  const leaves = tree.nodes.filter((n) => n.children.length === 0 && n.path.includes('[CONTEXT] Iteration 0'));
  t.true(leaves.every((n) => n.kind === 'sample'));
});

test('without event paths, contexts still unfold under their timer', (t) => {
  const events = readTauProfileDir(ref('hybrid_unwind')).threads[0][0].events;
  const tree = eventTree(events);
  const it0 = tree.byPath.get('Iteration 0')!;
  t.is(it0.excl, event(events, 'Iteration 0').excl);
  t.deepEqual(it0.children.map((c) => c.name), ['[CONTEXT] Iteration 0']);
  t.is(it0.children[0].incl, 501144);
  t.true(tree.byPath.has('.TAU application'));
  t.is(tree.byPath.get('.TAU application')!.children.length, 0);
});

test('a flat profile is a list of roots, and flame widths add up to the root', (t) => {
  const events = readTauProfileDir(ref('probes')).threads[0][0].events;
  const tree = eventTree(events);
  // Parameter profiles repeat their timer's time: they are in the table, never a second tree root.
  t.is(tree.roots.length, events.filter((e) => !e.group.includes('TAU_PARAM')).length);
  t.true(tree.roots.every((r) => r.children.length === 0));
  const flame = flameGraph(tree, { minFraction: 0 })!;
  // Parameter profiles repeat their timer's time and are left out of the sum.
  t.is(flame.value, event(events, '.TAU application').incl);
  t.is(flame.children.length, 7);
  // Frames narrower than the cut (here .TAU application's and main's own microseconds) are dropped.
  t.is(flameGraph(tree)!.children.length, 5);
});

test('flame widths nest: each node is at least as wide as its children', (t) => {
  const tree = eventTree(readTauProfileDir(ref('hybrid_callpath_unwind')).threads[0][0].events);
  const w = flameWidths(tree);
  for (const n of tree.nodes) {
    const kids = n.children.reduce((s, c) => s + w.get(c)!, 0);
    t.true(w.get(n)! >= kids, n.path);
  }
  const f = flameGraph(tree, { root: '.TAU application => main => Iteration 0' })!;
  t.is(f.name, 'Iteration 0');
  // The timer's own [CONTEXT] is no frame (as in the exports): its sampled code hangs under the timer, with its path.
  t.false(f.children.some((c) => c.name === '[CONTEXT] Iteration 0'));
  t.true(f.children.some((c) => c.path?.startsWith('.TAU application => main => Iteration 0 => [CONTEXT] Iteration 0 => ')));
  t.true(f.children.filter((c) => c.kind !== 'timer').every((c) => c.role === 'code' && !c.label.startsWith('[')));
  t.is(flameGraph(tree, { root: 'nowhere' }), undefined);
});

test('thread statistics: mean and std count absent threads as 0, min and max only where present', (t) => {
  const threads = readTauProfileDir(ref('openmp_ompt_full')).threads[0];
  t.is(threads.length, 2);
  const [a, b] = threads.map((th) => event(th.events, '.TAU application'));
  const get = (stat: 'mean' | 'min' | 'max' | 'std', name: string): TauEvent => event(aggregateEvents(threads, stat), name);
  t.is(get('mean', '.TAU application').incl, (a.incl + b.incl) / 2);
  t.is(get('min', '.TAU application').incl, Math.min(a.incl, b.incl));
  t.is(get('max', '.TAU application').incl, Math.max(a.incl, b.incl));
  t.true(Math.abs(get('std', '.TAU application').incl - Math.abs(a.incl - b.incl) / 2) < 1e-6 * a.incl);
  const masterOnly = threads[0].events.find((e) => !threads[1].events.some((x) => x.name === e.name))!;
  t.truthy(masterOnly);
  t.is(get('mean', masterOnly.name).incl, masterOnly.incl / 2);
  t.is(get('min', masterOnly.name).incl, masterOnly.incl);
});

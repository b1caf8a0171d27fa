/**
 * The stack tree of the stacks file (src/output/stacks-file.ts): identical stacks are one node, and a
 * thread with more nodes than the bound folds its rarest stacks into their caller under one counted
 * marker frame, with every sample and value kept.
 */
import test from 'ava';
import { FrameTable, MERGED_FRAME, StackTree } from '../src/output/stacks-file.js';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

test('identical stacks and prefixes are one node each', (t) => {
  const frames = new FrameTable();
  const [a, b, c] = ['a', 'b', 'c'].map((f) => frames.id([f, 'x.js', 1, '']));
  t.is(frames.id(['a', 'x.js', 1, '']), a);
  const tree = new StackTree(1);
  tree.add('ctx', [a, b], 2, [20]);
  tree.add('ctx', [a, b], 1, [10]);
  tree.add('ctx', [a, c], 1, [5]);
  tree.add('other', [a], 1, [1]);
  const d = tree.data();
  t.deepEqual(d.contexts, ['ctx', 'other']);
  t.deepEqual(d.parent, [-1, 0, 0, -2]);
  t.deepEqual(d.frame, [a, b, c, a]);
  t.deepEqual(d.samples, [0, 3, 1, 1]);
  t.deepEqual(d.values, [[0, 30, 5, 1]]);
});

test('beyond the bound, the rarest stacks fold into their caller under a counted marker', (t) => {
  const frames = new FrameTable();
  const root = frames.id(['main', 'm.js', 1, '']);
  const tree = new StackTree(2);
  // one hot stack and 100 rare ones, each one sample, under the same caller
  tree.add('ctx', [root, frames.id(['hot', 'm.js', 2, ''])], 50, [500, 5]);
  for (let i = 0; i < 100; i++) tree.add('ctx', [root, frames.id([`rare${i}`, 'm.js', 10 + i, '']), frames.id(['leaf', 'm.js', 999, ''])], 1, [10, 1]);
  const marker = frames.id([MERGED_FRAME, '', 0, '']);
  const before = tree.data();
  t.is(before.parent.length, 202);
  const { tree: b, merged } = tree.bound(20, marker);
  t.true(b.parent.length <= 20, `${b.parent.length} nodes`);
  t.is(merged, 202 - (b.parent.length - 1)); // every node not kept, the marker aside
  t.is(sum(b.samples), 150);
  t.deepEqual(b.values.map(sum), [1500, 105]);
  // the hot stack is kept whole; the marker hangs under main and holds what was folded
  const hot = b.frame.findIndex((f) => frames.frames[f][0] === 'hot');
  t.is(b.samples[hot], 50);
  const m = b.frame.indexOf(marker);
  t.is(b.parent[m], 0);
  t.is(b.samples[m] + sum(b.samples.filter((_, i) => i !== m && i !== hot)), 100);
  // parents still come before their children
  b.parent.forEach((p, i) => t.true(p < i));
  // a tree within the bound is left as it is
  t.deepEqual(tree.bound(1000, marker), { tree: before, merged: 0 });
});

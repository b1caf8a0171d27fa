/**
 * The stack tree of the stacks file (src/profile/stacks-file.ts): identical stacks are one node, and a
 * thread with more nodes than the bound folds its rarest stacks into their caller under one counted
 * marker frame, with every sample and value kept. A damaged stacks file is refused by its readers,
 * naming the file and what is wrong, for each kind of damage. The file is written gzip-compressed and
 * read back whole; an older hyprof's plain JSON reads alike; a file that unpacks past the bound, or
 * two files of one process, are refused.
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { UserError } from '../src/base/errors.js';
import { FrameTable, MERGED_FRAME, readStacksFiles, StackTree, writeStacksFile, type StacksFile } from '../src/profile/stacks-file.js';
import { tmpDir } from './helpers/native.js';

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

test('frame ids past the numeric child key (2^24) are still one node per parent and frame', (t) => {
  // The tree finds a child by one number of (parent, frame) while the id fits, by a string past it:
  // both kinds side by side, and ids that would collide if the number wrapped (2^24 + 5 and 5).
  const big = 2 ** 24 + 5;
  const tree = new StackTree(1);
  tree.add('ctx', [big, 5], 1, [1]);
  tree.add('ctx', [5, big], 1, [2]);
  tree.add('ctx', [big, 5], 2, [4]);
  tree.add('ctx', [5, 5], 1, [8]);
  const d = tree.data();
  t.deepEqual(d.parent, [-1, 0, -1, 2, 2]);
  t.deepEqual(d.frame, [big, 5, 5, big, 5]);
  t.deepEqual(d.samples, [0, 3, 0, 1, 1]);
  t.deepEqual(d.values, [[0, 5, 0, 2, 8]]);
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
  t.deepEqual(tree.bound(1000, marker), { tree: before, merged: 0, mergedSamples: 0 });
});

// ---- a damaged stacks file: named, with what is wrong ----

const NAME = 'stacks.0.1.json';

/** A whole stacks file of node 0, context 1: two nodes under one context. */
function whole(): Record<string, unknown> & { frames: unknown[][]; threads: Array<Record<string, unknown>> } {
  return {
    format: 'hyprof-stacks',
    version: 1,
    node: 0,
    context: 1,
    metrics: ['TIME'],
    frames: [
      ['main', 'm.c', 3, '/bin/m'],
      ['leaf', 'm.c', 9, '/bin/m'],
    ],
    threads: [{ thread: 0, contexts: ['[CONTEXT] .TAU application'], parent: [-1, 0], frame: [0, 1], samples: [0, 2], values: [[0, 20]], merged: 0 }],
  };
}

/** Read a profile directory holding `file` as its stacks file; the message of the refusal, or null. */
function refusal(file: unknown, name = NAME): string | null {
  const dir = tmpDir('stacks-bad');
  writeFileSync(join(dir, name), typeof file === 'string' ? file : JSON.stringify(file));
  try {
    readStacksFiles(dir);
    return null;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    const prefix = `${join(dir, name)}: not a hyprof stacks file (`;
    const m = (e as Error).message;
    if (!m.startsWith(prefix) || !m.endsWith('); remove it or resolve the profile again')) return `unexpected form: ${m}`;
    return m.slice(prefix.length, -'); remove it or resolve the profile again'.length);
  }
}

test('a whole stacks file is read', (t) => {
  t.is(refusal(whole()), null);
});

test('each kind of damage to a stacks file is refused, naming the file and what is wrong', (t) => {
  const cases: Array<[string, (f: ReturnType<typeof whole>) => unknown, string]> = [
    ['no format', (f) => ({ ...f, format: 'speedscope' }), 'no "format": "hyprof-stacks"'],
    ['not an object', () => 7, 'no "format": "hyprof-stacks"'],
    ['a later version', (f) => ({ ...f, version: 2 }), 'version 2, this hyprof reads version 1'],
    ['another process', (f) => ({ ...f, context: 0 }), 'node 0 and context 0, its name says 0 and 1'],
    ['no threads', (f) => ({ ...f, threads: undefined }), 'metrics, frames or threads missing'],
    ['a metric not named', (f) => ({ ...f, metrics: [3] }), 'a metric name is not a string'],
    ['a frame of three parts', (f) => ({ ...f, frames: [['main', 'm.c', 3], f.frames[1]] }), 'a frame is not [function, file, line, object]'],
    ['a frame without its object', (f) => ({ ...f, frames: [['main', 'm.c', 3, null], f.frames[1]] }), 'a frame is not [function, file, line, object]'],
    ['a thread without its number', (f) => ({ ...f, threads: [{ ...f.threads[0], thread: 'main' }] }), 'a thread lacks thread, contexts or parent'],
    ['a context not named', (f) => ({ ...f, threads: [{ ...f.threads[0], contexts: [null] }] }), 'thread 0: a context name is not a string'],
    ['no merged count', (f) => ({ ...f, threads: [{ ...f.threads[0], merged: undefined }] }), 'thread 0: merged is undefined, not a count'],
    ['a short samples list', (f) => ({ ...f, threads: [{ ...f.threads[0], samples: [0] }] }), 'thread 0: parent, frame, samples and values differ in length'],
    ['values of another metric count', (f) => ({ ...f, threads: [{ ...f.threads[0], values: [[0, 20], [0, 1]] }] }), 'thread 0: parent, frame, samples and values differ in length'],
    ['a frame index past the table', (f) => ({ ...f, threads: [{ ...f.threads[0], frame: [0, 2] }] }), 'thread 0: node 1 has frame 2'],
    ['a parent after its child', (f) => ({ ...f, threads: [{ ...f.threads[0], parent: [-1, 1] }] }), 'thread 0: node 1 has parent 1'],
    ['a context past the list', (f) => ({ ...f, threads: [{ ...f.threads[0], parent: [-2, 0] }] }), 'thread 0: node 0 has parent -2'],
    ['a sample count that is text', (f) => ({ ...f, threads: [{ ...f.threads[0], samples: [0, '2'] }] }), 'thread 0: node 1 has "2" samples'],
    ['a value written as null (NaN)', (f) => ({ ...f, threads: [{ ...f.threads[0], values: [[0, null]] }] }), 'thread 0: node 1 has the TIME value null'],
  ];
  for (const [what, damage, message] of cases) t.is(refusal(damage(whole())), message, what);
  t.regex(refusal('{"format": "hyprof-stacks", "vers') ?? '', /JSON/);
});

// ---- the file on disk: gzip, an older plain file, a bomb, two files of one process ----

test('a stacks file is written gzip-compressed and read back whole; an older plain .json reads alike', (t) => {
  const dir = tmpDir('stacks-gz');
  const path = writeStacksFile(dir, whole() as unknown as StacksFile);
  t.is(readdirSync(dir).join(), 'stacks.0.1.json.gz');
  t.deepEqual([...readFileSync(path).subarray(0, 2)], [0x1f, 0x8b], 'gzip magic');
  t.deepEqual(readStacksFiles(dir), [whole()]);
  const old = tmpDir('stacks-plain');
  writeFileSync(join(old, NAME), JSON.stringify(whole()));
  t.deepEqual(readStacksFiles(old), [whole()]);
});

test('a .gz stacks file that is not gzip, or that unpacks past 500 MiB, is refused before it is used', (t) => {
  t.regex(refusal('{"format": "hyprof-stacks"}', `${NAME}.gz`) ?? '', /^not gzip: /);
  // 501 gzip members of 1 MiB of spaces each: 0.5 MB on disk, 501 MiB unpacked
  const member = gzipSync(Buffer.alloc(1024 * 1024, 0x20));
  const dir = tmpDir('stacks-bomb');
  writeFileSync(join(dir, `${NAME}.gz`), Buffer.concat(Array.from({ length: 501 }, () => member)));
  const e = t.throws(() => readStacksFiles(dir), { instanceOf: UserError });
  t.is(e?.message, `${join(dir, `${NAME}.gz`)}: not a hyprof stacks file (it unpacks to more than 500 MiB); remove it or resolve the profile again`);
});

test('a stacks file that cannot be read (a directory of that name) is refused in one line, naming it', (t) => {
  const dir = tmpDir('stacks-unreadable');
  mkdirSync(join(dir, `${NAME}.gz`));
  const e = t.throws(() => readStacksFiles(dir), { instanceOf: UserError });
  t.regex(e?.message ?? '', new RegExp(`^${join(dir, NAME).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\.gz: not a hyprof stacks file \\(EISDIR`));
});

test('two stacks files of one process (plain and gzip) are refused: either would count its samples twice', (t) => {
  const dir = tmpDir('stacks-two');
  writeFileSync(join(dir, NAME), JSON.stringify(whole()));
  writeStacksFile(dir, whole() as unknown as StacksFile);
  const e = t.throws(() => readStacksFiles(dir), { instanceOf: UserError });
  t.is(e?.message, `${join(dir, `${NAME}.gz`)}: a second stacks file of node 0, context 1 beside ${NAME}; remove one or resolve the profile again`);
});

/**
 * The numbering of images replaced by exec (src/resolve/exec-images.ts) on summaries of raw files:
 * the last image of a (host, pid) keeps its numbering, earlier flagged ones take the contexts after
 * the highest of their node, in an order that depends only on the files.
 */
import test from 'ava';
import { INFO_EXEC_REPLACED, INFO_FORKED_CHILD, INFO_RUN_ROOT } from '../src/samples/raw-model.js';
import { replacedImages, type ImageSummary } from '../src/resolve/exec-images.js';

function image(file: string, pid: number, startNs: bigint, flags: number, host = 'a', node = 0): ImageSummary {
  return { file, info: { node, flags, pid, startNs, attributes: [['Hostname', host], ['Executable', `/bin/${file}`]] } };
}

test('earlier images take the contexts after the highest of their node, beside a forked child', (t) => {
  const procs = [
    image('root-new', 100, 30n, INFO_RUN_ROOT),
    image('root-old', 100, 10n, INFO_RUN_ROOT | INFO_EXEC_REPLACED),
    image('root-older', 100, 5n, INFO_RUN_ROOT | INFO_EXEC_REPLACED),
    image('child', 250, 20n, INFO_FORKED_CHILD),
  ];
  t.deepEqual(replacedImages(procs, true), [
    { file: 'root-older', node: 0, context: 251, executable: '/bin/root-older' },
    { file: 'root-old', node: 0, context: 252, executable: '/bin/root-old' },
  ]);
  // The order of the files given does not matter.
  t.deepEqual(replacedImages([...procs].reverse(), true), replacedImages(procs, true));
});

test('the last image keeps its numbering even when flagged (the new program was not measured)', (t) => {
  t.deepEqual(replacedImages([image('only', 7, 1n, INFO_RUN_ROOT | INFO_EXEC_REPLACED)], true), []);
});

test('the same pid on another host, or an unflagged earlier process of that pid, is not an image', (t) => {
  const procs = [
    image('here', 42, 1n, INFO_EXEC_REPLACED, 'a'),
    image('there', 42, 2n, 0, 'b'),
    image('reused', 43, 1n, 0, 'a'),
    image('later', 43, 9n, 0, 'a'),
  ];
  t.deepEqual(replacedImages(procs, false), []);
});

test('contexts are counted per node', (t) => {
  const procs = [
    image('r1-old', 5, 1n, INFO_EXEC_REPLACED, 'a', 1),
    image('r1-new', 5, 2n, 0, 'a', 1),
    image('r0', 6, 1n, 0, 'a', 0),
  ];
  t.deepEqual(replacedImages(procs, false), [{ file: 'r1-old', node: 1, context: 1, executable: '/bin/r1-old' }]);
});

/**
 * Dependencies point one way (docs/design-notes.md, "Layers"): read every `#include` of native/ and
 * every relative `import` of src/, and fail on an edge up a layer, between two native modules, or on
 * any cycle between folders or between the files of a folder, naming the file and line. The checker itself is shown to fail on small
 * graphs and file trees that break each rule.
 */
import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkLayering, fileCycles, folderCycles, nativeEdges, projectLayering, srcEdges, type Edge } from './helpers/layering.js';
import { repoRoot, tmpDir } from './helpers/native.js';

test('native/: core at the bottom, modules on it and not on each other, no include cycle of folders or files', (t) => {
  const edges = nativeEdges(repoRoot);
  // the scan sees the real tree: the modules include the core, the addon includes the core's ext.h
  t.true(edges.some((e) => e.from === 'native/sample' && e.to === 'native/core'), 'no sample → core include found');
  t.true(edges.some((e) => e.from === 'native/addon' && e.to === 'native/core'), 'no addon → core include found');
  t.deepEqual(checkLayering(edges, projectLayering), []);
});

test('native/core includes nothing but itself and the public API', (t) => {
  const out = nativeEdges(repoRoot).filter((e) => e.from === 'native/core' && e.to !== 'native/core' && e.to !== 'native/include');
  t.deepEqual(out.map((e) => `${e.file}:${e.line}: ${e.text}`), []);
});

test('src/: cli → view / report / export → trace → resolve → profile / analysis → symbolize → samples → events, base below all, no import cycle of folders or files', (t) => {
  const edges = srcEdges(repoRoot);
  t.true(edges.some((e) => e.from === 'src/cli' && e.to === 'src/report'), 'no cli → report import found');
  t.true(edges.some((e) => e.from === 'src/samples' && e.to === 'src/base'), 'no samples → base import found');
  // imports are resolved to the source file they name (NodeNext writes x.js for x.ts)
  t.true(edges.some((e) => e.file === 'src/report/report-data.ts' && e.target === 'src/report/report-tree.ts'), 'no report-data → report-tree import found');
  t.deepEqual(checkLayering(edges, projectLayering), []);
});

test('nothing below the command imports src/cli', (t) => {
  const up = srcEdges(repoRoot).filter((e) => e.to === 'src/cli' && e.from !== 'src/cli');
  t.deepEqual(up.map((e) => `${e.file}:${e.line}`), []);
});

// ---- the checker can fail ----

const edge = (file: string, line: number, toFolder: string, target = `${toFolder}/used.ts`): Edge => ({
  file,
  line,
  text: `uses ${target}`,
  from: dirname(file),
  to: toFolder,
  target,
});

/** An edge from one file to another of the same folder. */
const fileEdge = (file: string, line: number, target: string): Edge => edge(file, line, dirname(target), target);

test('checker: a cycle between folders is reported with a file and line for each step', (t) => {
  const edges = [
    edge('src/export/export-common.ts', 9, 'src/view'),
    edge('src/view/tree.ts', 7, 'src/export'),
    edge('src/view/api.ts', 3, 'src/base'),
  ];
  const cycles = folderCycles(edges);
  t.is(cycles.length, 1);
  t.deepEqual(cycles[0]!.map((e) => e.from).sort(), ['src/export', 'src/view']);
  const problems = checkLayering(edges, projectLayering);
  t.is(problems.length, 1);
  t.regex(problems[0]!, /cycle between folders: src\/export → src\/view → src\/export/);
  t.regex(problems[0]!, /src\/export\/export-common\.ts:9/);
  t.regex(problems[0]!, /src\/view\/tree\.ts:7/);
});

test('checker: a longer cycle through three folders is found', (t) => {
  const edges = [
    edge('native/a/x.c', 1, 'native/b'),
    edge('native/b/y.c', 2, 'native/c'),
    edge('native/c/z.c', 3, 'native/a'),
    edge('native/c/w.c', 4, 'native/core'),
  ];
  const cycles = folderCycles(edges);
  t.is(cycles.length, 1);
  t.is(cycles[0]!.length, 3);
  t.deepEqual(cycles[0]!.map((e) => `${e.file}:${e.line}`), ['native/a/x.c:1', 'native/b/y.c:2', 'native/c/z.c:3']);
});

test('checker: a cycle between the files of one folder names each file and line', (t) => {
  const edges = [
    fileEdge('src/report/report-data.ts', 7, 'src/report/report-tree.ts'),
    fileEdge('src/report/report-tree.ts', 12, 'src/report/report-text.ts'),
    fileEdge('src/report/report-text.ts', 3, 'src/report/report-data.ts'),
    fileEdge('src/report/report-text.ts', 4, 'src/report/report-format.ts'),
    fileEdge('src/report/report-format.ts', 2, 'src/report/term-colour.ts'),
    edge('src/report/report-data.ts', 5, 'src/profile', 'src/profile/tau-model.ts'),
  ];
  const cycles = fileCycles(edges);
  t.is(cycles.length, 1);
  t.deepEqual(cycles[0]!.map((e) => `${e.file}:${e.line}`), ['src/report/report-data.ts:7', 'src/report/report-tree.ts:12', 'src/report/report-text.ts:3']);
  const problems = checkLayering(edges, projectLayering);
  t.is(problems.length, 1, problems.join('\n'));
  t.regex(problems[0]!, /^cycle between files: src\/report\/report-data\.ts → src\/report\/report-tree\.ts → src\/report\/report-text\.ts → src\/report\/report-data\.ts\n/);
  t.regex(problems[0]!, /\n  src\/report\/report-tree\.ts:12: uses src\/report\/report-text\.ts/);
  // the same files without the edge that closes the loop are clean, and so is a file using itself
  t.deepEqual(checkLayering([...edges.filter((e) => e.line !== 3), fileEdge('src/report/diff.ts', 1, 'src/report/diff.ts')], projectLayering), []);
});

test('checker: two files that use each other across folders are one folder cycle, reported once', (t) => {
  const edges = [edge('src/report/a.ts', 1, 'src/export', 'src/export/b.ts'), edge('src/export/b.ts', 2, 'src/report', 'src/report/a.ts')];
  t.deepEqual(fileCycles(edges), []);
  const problems = checkLayering(edges, projectLayering);
  t.is(problems.length, 1, problems.join('\n'));
  t.regex(problems[0]!, /^cycle between folders: src\/export → src\/report → src\/export/);
});

test('checker: an edge up a layer names the file, the line and both layers', (t) => {
  const problems = checkLayering([edge('native/core/thread.c', 11, 'native/sample')], projectLayering);
  t.is(problems.length, 1);
  t.regex(problems[0]!, /^native\/core\/thread\.c:11: /);
  t.regex(problems[0]!, /native\/core \(core\) may not use native\/sample \(module\), a higher layer/);
  const src = checkLayering([edge('src/samples/raw-reader.ts', 4, 'src/cli')], projectLayering);
  t.is(src.length, 1);
  t.regex(src[0]!, /src\/samples\/raw-reader\.ts:4: .*\n.*src\/samples \(samples\) may not use src\/cli \(cli\)/);
});

test('checker: one module including another is refused, even one way', (t) => {
  const problems = checkLayering([edge('native/sample/handler.c', 27, 'native/ompt')], projectLayering);
  t.is(problems.length, 1);
  t.regex(problems[0]!, /native\/sample\/handler\.c:27: .*\n.*modules meet only in the layer below/);
});

test('checker: a folder in no layer is reported; peers of one layer may use each other one way', (t) => {
  t.regex(checkLayering([edge('src/newthing/a.ts', 2, 'src/base')], projectLayering)[0]!, /src\/newthing is in no layer/);
  t.deepEqual(checkLayering([edge('src/resolve/resolve.ts', 10, 'src/analysis')], projectLayering), []);
  t.deepEqual(checkLayering([edge('native/mpi/wrap.c', 5, 'native/core')], projectLayering), []);
});

test('checker on a file tree: includes and imports are read and resolved as the compiler and Node do', (t) => {
  const root = tmpDir('layering');
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  put('native/include/api.h', '/* public */\n');
  put('native/core/a.h', '#include "api.h"\n');
  put('native/core/a.c', '#include <stdio.h>\n#include "a.h"\n\n#include "../mod/m.h"\n');
  put('native/mod/m.h', '#include "../core/a.h"\n');
  put('native/addon/x.cc', '#include "core/a.h"\n#include "mod/m.h"\n');
  put('src/base/errors.ts', 'export class E {}\n');
  put('src/samples/r.ts', "import { E } from '../base/errors.js';\nimport type {\n  X,\n} from '../cli/main.js';\n");
  put('src/cli/main.ts', "export type X = 1;\nconst m = await import('../samples/r.js');\n");

  const nat = nativeEdges(root);
  t.deepEqual(
    nat.map((e) => `${e.file}:${e.line} ${e.from} -> ${e.to}`),
    [
      'native/addon/x.cc:1 native/addon -> native/core',
      'native/addon/x.cc:2 native/addon -> native/mod',
      'native/core/a.c:2 native/core -> native/core',
      'native/core/a.c:4 native/core -> native/mod',
      'native/core/a.h:1 native/core -> native/include',
      'native/mod/m.h:1 native/mod -> native/core',
    ],
  );
  const natProblems = checkLayering(nat, projectLayering);
  t.is(natProblems.length, 2, natProblems.join('\n'));
  t.true(natProblems.some((p) => p.startsWith('native/core/a.c:4: #include "../mod/m.h"')));
  t.true(natProblems.some((p) => /cycle between folders: native\/core → native\/mod → native\/core/.test(p)));

  const src = srcEdges(root);
  t.deepEqual(
    src.map((e) => `${e.file}:${e.line} ${e.from} -> ${e.to}`),
    ['src/cli/main.ts:2 src/cli -> src/samples', 'src/samples/r.ts:1 src/samples -> src/base', 'src/samples/r.ts:4 src/samples -> src/cli'],
  );
  const srcProblems = checkLayering(src, projectLayering);
  t.is(srcProblems.length, 2, srcProblems.join('\n'));
  t.true(srcProblems.some((p) => p.startsWith("src/samples/r.ts:4: } from '../cli/main.js';")));
  t.true(srcProblems.some((p) => /cycle between folders: src\/cli → src\/samples → src\/cli/.test(p)));
});

test('checker on a file tree: two files of a folder importing each other (a type import too) fail, naming both lines', (t) => {
  const root = tmpDir('layering-files');
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  put('src/profile/reader.ts', "import { MERGED } from './merged.js';\nexport const read = () => MERGED;\n");
  put('src/profile/merged.ts', "// the merged format\nimport type { read } from './reader.js';\nexport const MERGED = 'm';\n");
  put('src/profile/model.ts', "import { read } from './reader.js';\n");
  const edges = srcEdges(root);
  t.deepEqual(
    edges.map((e) => `${e.file}:${e.line} -> ${e.target}`),
    ['src/profile/merged.ts:2 -> src/profile/reader.ts', 'src/profile/model.ts:1 -> src/profile/reader.ts', 'src/profile/reader.ts:1 -> src/profile/merged.ts'],
  );
  const problems = checkLayering(edges, projectLayering);
  t.deepEqual(problems, [
    "cycle between files: src/profile/merged.ts → src/profile/reader.ts → src/profile/merged.ts\n" +
      "  src/profile/merged.ts:2: import type { read } from './reader.js';\n" +
      "  src/profile/reader.ts:1: import { MERGED } from './merged.js';",
  ]);
  // broken the way the project breaks such a pair: what both need in a file of its own
  put('src/profile/merged-name.ts', "export const MERGED = 'm';\n");
  put('src/profile/merged.ts', "import type { read } from './reader.js';\nexport { MERGED } from './merged-name.js';\n");
  put('src/profile/reader.ts', "import { MERGED } from './merged-name.js';\nexport const read = () => MERGED;\n");
  t.deepEqual(checkLayering(srcEdges(root), projectLayering), []);
});

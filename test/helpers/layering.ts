/**
 * The dependency rule of the project, checked on the sources: every `#include` in native/ and every
 * relative `import` in src/ is an edge from the including file's folder to the included file's
 * folder. An edge may point down or sideways, never up, and the folders may form no cycle; inside
 * a folder, the files may form no cycle either (one of two files that use each other holds what
 * both need, or a third file below both does).
 *
 *   src/     cli (and index.ts) → view / report / export → trace → resolve → profile / analysis → symbolize
 *            → samples → events; base below all
 *   native/  addon → modules.c (the module list) → the modules (every other folder) → core; include/
 *            (the public API) below all. Modules meet only in the core: none includes another.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * One dependency: `file` (relative to the tree's root, e.g. native/core/init.c) at `line` uses the
 * file `target`; `from` and `to` are their folders.
 */
export interface Edge {
  file: string;
  line: number;
  text: string;
  from: string;
  to: string;
  target: string;
}

/** A layer: its rank (higher may use lower) and whether its folders may use each other. */
export interface Layer {
  name: string;
  rank: number;
  /** Folders of this layer may not use one another (native modules). */
  isolated?: boolean;
}

/** Folder (relative to the tree's root) → its layer; undefined for a folder in no layer. */
export type Layering = (folder: string) => Layer | undefined;

const SRC_LAYERS: Record<string, Layer> = {
  'src/base': { name: 'base', rank: 0 },
  'src/events': { name: 'events', rank: 1 },
  'src/samples': { name: 'samples', rank: 2 },
  'src/symbolize': { name: 'symbolize', rank: 3 },
  'src/analysis': { name: 'analysis', rank: 4 },
  'src/profile': { name: 'profile', rank: 4 },
  'src/resolve': { name: 'resolve', rank: 5 },
  // Traces (OTF2) as lanes, messages, collectives and tasks: read by report, export and view.
  'src/trace': { name: 'trace', rank: 5.5 },
  'src/report': { name: 'report', rank: 6 },
  'src/export': { name: 'export', rank: 6 },
  'src/view': { name: 'view', rank: 6 },
  // hyprof run: launching the measured program and resolving what it wrote, beside report, export, view.
  'src/run': { name: 'run', rank: 6 },
  'src/cli': { name: 'cli', rank: 7 },
  src: { name: 'the package entry (src/index.ts)', rank: 7 },
};

/** The project's layers. Any native folder not named here is a module. */
export const projectLayering: Layering = (folder) => {
  if (folder.startsWith('src')) return SRC_LAYERS[folder];
  if (folder === 'native/include') return { name: 'public API', rank: 0 };
  if (folder === 'native/core') return { name: 'core', rank: 1 };
  if (folder === 'native') return { name: 'module list (native/modules.c)', rank: 3 };
  if (folder === 'native/addon') return { name: 'Node addon', rank: 4 };
  if (folder.startsWith('native/')) return { name: 'module', rank: 2, isolated: true };
  return undefined;
};

function walk(dir: string, exts: string[], out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, exts, out);
    else if (exts.some((e) => name.endsWith(e))) out.push(p);
  }
  return out;
}

const rel = (root: string, p: string): string => relative(root, p).split(sep).join('/');

/**
 * The include edges of native/: `#include "x"` resolved as the compiler does (the including file's
 * folder, then binding.gyp's include_dirs native/include and native), `#include <x>` against the
 * include dirs only. Includes that resolve to no file of native/ (system headers) are no edges.
 */
export function nativeEdges(root: string): Edge[] {
  const nativeDir = join(root, 'native');
  const includeDirs = [join(nativeDir, 'include'), nativeDir];
  const edges: Edge[] = [];
  for (const file of walk(nativeDir, ['.c', '.h', '.cc', '.hpp'])) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((text, i) => {
      const m = /^\s*#\s*include\s*(["<])([^">]+)[">]/.exec(text);
      if (!m) return;
      const dirs = m[1] === '"' ? [dirname(file), ...includeDirs] : includeDirs;
      const target = dirs.map((d) => resolve(d, m[2]!)).find((p) => existsSync(p) && p.startsWith(nativeDir + sep));
      if (!target) return;
      edges.push({ file: rel(root, file), line: i + 1, text: text.trim(), from: rel(root, dirname(file)), to: rel(root, dirname(target)), target: rel(root, target) });
    });
  }
  return edges;
}

/** The source file a relative specifier names: `x.js` is `x.ts` (`.cjs` `.cts`, `.mjs` `.mts`) where that exists. */
function sourceOf(target: string): string {
  const ts = target.replace(/\.(c|m)?js$/, (_, k: string | undefined) => `.${k ?? ''}ts`);
  return ts !== target && existsSync(ts) ? ts : target;
}

/**
 * The import edges of src/: static `import … from '…'`, `export … from '…'` and dynamic
 * `import('…')` with a relative specifier (packages are no edges). A specifier may end in .js for
 * a .ts source, as NodeNext resolution writes it.
 */
export function srcEdges(root: string): Edge[] {
  const srcDir = join(root, 'src');
  const edges: Edge[] = [];
  for (const file of walk(srcDir, ['.ts'])) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((text, i) => {
      const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
      for (const spec of specs) {
        const target = sourceOf(resolve(dirname(file), spec));
        edges.push({ file: rel(root, file), line: i + 1, text: text.trim(), from: rel(root, dirname(file)), to: rel(root, dirname(target)), target: rel(root, target) });
      }
    });
  }
  return edges;
}

const where = (e: Edge): string => `${e.file}:${e.line}: ${e.text}`;

/**
 * Every breach of the layering in `edges`, one message each, naming the file and line: an edge up
 * (or between two isolated folders of one layer), an edge from or to a folder in no layer, every
 * cycle between folders, and every cycle between the files of one folder, with one file:line per
 * step. (A cycle of files in several folders is a cycle of those folders, reported as such.) Empty
 * when the graph is clean.
 */
export function checkLayering(edges: Edge[], layering: Layering): string[] {
  const problems: string[] = [];
  const between = edges.filter((e) => e.from !== e.to);
  for (const e of between) {
    const a = layering(e.from);
    const b = layering(e.to);
    if (!a || !b) {
      problems.push(`${where(e)}\n  ${!a ? e.from : e.to} is in no layer: place it in test/helpers/layering.ts (the order is in docs/design-notes.md)`);
    } else if (a.rank < b.rank) {
      problems.push(`${where(e)}\n  ${e.from} (${a.name}) may not use ${e.to} (${b.name}), a higher layer`);
    } else if (a.rank === b.rank && a.isolated && b.isolated) {
      problems.push(`${where(e)}\n  ${e.from} and ${e.to} are both ${a.name}s: modules meet only in the layer below, never use each other`);
    }
  }
  for (const cycle of folderCycles(between)) {
    problems.push(`cycle between folders: ${[...cycle.map((e) => e.from), cycle[0]!.from].join(' → ')}\n${cycle.map((e) => `  ${where(e)}`).join('\n')}`);
  }
  for (const cycle of fileCycles(edges)) {
    problems.push(`cycle between files: ${[...cycle.map((e) => e.file), cycle[0]!.file].join(' → ')}\n${cycle.map((e) => `  ${where(e)}`).join('\n')}`);
  }
  return problems;
}

/** One cycle (as the edges that make it, one per step) for every strongly connected set of folders. */
export function folderCycles(edges: Edge[]): Edge[][] {
  return cycles(edges, (e) => e.from, (e) => e.to);
}

/** One cycle for every strongly connected set of files of one folder (imports within the folder). */
export function fileCycles(edges: Edge[]): Edge[][] {
  return cycles(
    edges.filter((e) => e.from === e.to && e.file !== e.target),
    (e) => e.file,
    (e) => e.target,
  );
}

/** One cycle (the edges that make it, one per step) for every strongly connected set of nodes. */
function cycles(edges: Edge[], fromOf: (e: Edge) => string, toOf: (e: Edge) => string): Edge[][] {
  const out = new Map<string, Map<string, Edge>>();
  for (const e of edges) {
    const [from, to] = [fromOf(e), toOf(e)];
    if (!out.has(from)) out.set(from, new Map());
    if (!out.has(to)) out.set(to, new Map());
    if (!out.get(from)!.has(to)) out.get(from)!.set(to, e);
  }
  // Tarjan's strongly connected components
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v)!.keys()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) components.push(c);
    }
  };
  for (const v of [...out.keys()].sort()) if (!index.has(v)) visit(v);
  // in each component, the shortest way from its first node back to itself (breadth first)
  return components.map((c) => {
    const inC = new Set(c);
    const start = [...c].sort()[0]!;
    const via = new Map<string, Edge>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      for (const [w, e] of out.get(v)!) {
        if (!inC.has(w) || via.has(w)) continue;
        via.set(w, e);
        if (w === start) queue.length = 0;
        else queue.push(w);
      }
    }
    const cycle: Edge[] = [];
    for (let v = start; ; ) {
      const e = via.get(v)!;
      cycle.unshift(e);
      v = fromOf(e);
      if (v === start) break;
    }
    return cycle;
  });
}

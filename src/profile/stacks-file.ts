/**
 * `stacks.<node>.<context>.json.gz` beside a profile: the complete sampled stacks of one process, which
 * TAU's format cannot hold compactly (every prefix of an `[UNWIND]` chain is an entry whose name is
 * the whole path, so its size grows with the square of the depth). The TAU profile keeps chains of
 * the innermost frames (TAU_EBS_UNWIND_DEPTH); this file keeps every frame, as a frame table and a
 * stack tree per thread (docs/assembly.md, "Complete stacks"). It is hyprof's, not TAU's: hyprof's
 * own readers (viewer, report, exports) use it when it is there, TAU's tools never see it.
 * The JSON is gzip-compressed (a fifth to a sixth of its bytes: frame names repeat the same C++
 * namespaces and paths); an older hyprof's uncompressed `stacks.<node>.<context>.json` reads alike.
 *
 * Layout (version 1):
 *   { "format": "hyprof-stacks", "version": 1, "node": N, "context": C, "metrics": [name...],
 *     "frames": [[function, file, line, object]...],
 *     "threads": [{ "thread": T, "contexts": [name...], "parent": [..], "frame": [..],
 *                   "samples": [..], "values": [[..] per metric], "merged": M }] }
 * Node i of a thread's tree is frame `frame[i]` called from node `parent[i]`, or, when `parent[i]`
 * is negative, right under the sample context `contexts[-parent[i] - 1]` (the name of that
 * context's `[CONTEXT]` path entry in the TAU profile). `samples[i]` and `values[m][i]` are what
 * samples whose innermost frame is node i add (values in the profile's unit: TIME in microseconds).
 * A parent always comes before its children. `merged` counts the nodes folded into their caller
 * when a thread had more nodes than the bound (under a node of frame `MERGED_FRAME`).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { UserError } from '../base/errors.js';
import type { TauProfile, TauThreadProfile, ThreadStackView } from './tau-model.js';

/** A stacks file's name: gzip-compressed as hyprof writes it, or plain JSON as an older one did. */
export const STACKS_FILE = /^stacks\.(\d+)\.(\d+)\.json(\.gz)?$/;
export const stacksFileName = (node: number, context: number): string => `stacks.${node}.${context}.json.gz`;

/** The most a compressed stacks file may unpack to: beyond, it is refused before it takes the memory
 * (a few kilobytes of gzip can unpack to gigabytes), as a plain file of that size could not be read
 * into one string either (V8's strings end at 2^29 characters). */
const MAX_UNPACKED = 500 * 1024 * 1024;

/** The frame that stands for the deeper frames of stacks folded into their caller. */
export const MERGED_FRAME = '(deeper stacks merged)';

/** A frame: function, source file ('' when none), line (0 when none), object file ('' for JIT code). */
export type StackFrame = [string, string, number, string];

export interface ThreadStacks {
  thread: number;
  contexts: string[];
  parent: number[];
  frame: number[];
  samples: number[];
  values: number[][];
  merged: number;
}

export interface StacksFile {
  format: 'hyprof-stacks';
  version: 1;
  node: number;
  context: number;
  metrics: string[];
  frames: StackFrame[];
  threads: ThreadStacks[];
}

/** Frames of one process, each (function, file, line, object) once. */
export class FrameTable {
  readonly frames: StackFrame[] = [];
  private readonly index = new Map<string, number>();

  id(f: StackFrame): number {
    const key = f.join('\u0000');
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.frames.length;
      this.frames.push(f);
      this.index.set(key, i);
    }
    return i;
  }
}

/** The stack tree of one thread being built: identical stacks (and prefixes) are one node. */
export class StackTree {
  readonly contexts: string[] = [];
  readonly parent: number[] = [];
  readonly frame: number[] = [];
  readonly samples: number[] = [];
  readonly values: number[][];
  private readonly contextIndex = new Map<string, number>();
  /** Child node by (parent, frame) as one number (childKey); by string for ids beyond its range. */
  private readonly child = new Map<number, number>();
  private readonly childByText = new Map<string, number>();

  constructor(nMetrics: number) {
    this.values = Array.from({ length: nMetrics }, () => []);
  }

  private node(parent: number, frame: number): number {
    // A number, not a string made and hashed per frame of every sample: exact while the frame id is
    // under 2^24 and the parent between -2^28 and 2^28 (always, in practice), which keeps the key
    // under 2^53; past that, a string.
    const fits = frame < 2 ** 24 && parent < 2 ** 28 && parent > -(2 ** 28);
    const key = fits ? (parent + 2 ** 28) * 2 ** 24 + frame : `${parent}:${frame}`;
    const map = (fits ? this.child : this.childByText) as Map<number | string, number>;
    let i = map.get(key);
    if (i === undefined) {
      i = this.parent.length;
      this.parent.push(parent);
      this.frame.push(frame);
      this.samples.push(0);
      for (const v of this.values) v.push(0);
      map.set(key, i);
    }
    return i;
  }

  /** A sample of `count` with `values` in context `context` whose frames are `frames`, outermost first. */
  add(context: string, frames: number[], count: number, values: number[]): void {
    let c = this.contextIndex.get(context);
    if (c === undefined) {
      c = this.contexts.length;
      this.contexts.push(context);
      this.contextIndex.set(context, c);
    }
    let at = -1 - c;
    for (const f of frames) at = this.node(at, f);
    this.samples[at] += count;
    values.forEach((v, m) => (this.values[m][at] += v));
  }

  /**
   * Bound the number of nodes to `max` (at least the contexts' count): the nodes with the fewest
   * samples (inclusive) are folded into their nearest kept caller, as one `mergedFrame` child of it,
   * until the tree fits. Returns the tree, the number of nodes folded and the samples whose innermost
   * frame was in a folded node (both 0 when it fit), so that the caller can say what was merged.
   */
  bound(max: number, mergedFrame: number): { tree: ThreadStacksData; merged: number; mergedSamples: number } {
    const n = this.parent.length;
    if (n <= max) return { tree: this.data(), merged: 0, mergedSamples: 0 };
    // Inclusive samples per node (children come after their parent: one backward pass).
    const incl = this.samples.slice();
    for (let i = n - 1; i >= 0; i--) if (this.parent[i] >= 0) incl[this.parent[i]] += incl[i];
    // Keep the `max` nodes of most inclusive samples; a kept node's parent is kept (its inclusive
    // count is at least as large, and ties go to the earlier index, which the parent is).
    const order = [...Array(n).keys()].sort((a, b) => incl[b] - incl[a] || a - b);
    // Any prefix of `order` is closed under parents. The kept nodes and the marker nodes (one per
    // kept node or context with a folded child) must fit: the largest such prefix, by bisection.
    const keepFirst = (k: number): Uint8Array => {
      const keep = new Uint8Array(n);
      for (let j = 0; j < k; j++) keep[order[j]] = 1;
      return keep;
    };
    const markers = (keep: Uint8Array): number => {
      const at = new Set<number>();
      for (let i = 0; i < n; i++) if (!keep[i] && (this.parent[i] < 0 || keep[this.parent[i]])) at.add(this.parent[i]);
      return at.size;
    };
    let lo = 0;
    let hi = Math.min(n, max);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (mid + markers(keepFirst(mid)) <= max) lo = mid;
      else hi = mid - 1;
    }
    const keep = keepFirst(lo);
    const out = new StackTree(this.values.length);
    out.contexts.push(...this.contexts);
    const map = new Int32Array(n);
    let merged = 0;
    let mergedSamples = 0;
    for (let i = 0; i < n; i++) {
      const p = this.parent[i];
      const at = p < 0 ? p : map[p];
      if (keep[i]) map[i] = out.node(at, this.frame[i]);
      else {
        // An unkept node's own samples go to its nearest kept ancestor's merged child.
        map[i] = p >= 0 && !keep[p] ? map[p] : out.node(at, mergedFrame);
        merged++;
        mergedSamples += this.samples[i];
      }
      out.samples[map[i]] += this.samples[i];
      this.values.forEach((v, m) => (out.values[m][map[i]] += v[i]));
    }
    return { tree: out.data(), merged, mergedSamples };
  }

  data(): ThreadStacksData {
    return { contexts: this.contexts, parent: this.parent, frame: this.frame, samples: this.samples, values: this.values };
  }
}

export type ThreadStacksData = Omit<ThreadStacks, 'thread' | 'merged'>;

/** Write a process's stacks into `dir` (the profile's temporary directory); returns the file's path. */
export function writeStacksFile(dir: string, s: StacksFile): string {
  const path = join(dir, stacksFileName(s.node, s.context));
  writeFileSync(path, gzipSync(JSON.stringify(s) + '\n'));
  return path;
}

function bad(path: string, what: string): never {
  throw new UserError(`${path}: not a hyprof stacks file (${what}); remove it or resolve the profile again`);
}

/** Check the shape of a parsed stacks file, so readers can trust its indices and numbers. */
function checked(path: string, name: string, s: unknown): StacksFile {
  const f = s as StacksFile;
  if (!f || f.format !== 'hyprof-stacks') bad(path, 'no "format": "hyprof-stacks"');
  if (f.version !== 1) bad(path, `version ${String(f.version)}, this hyprof reads version 1`);
  // The file's name says whose stacks it holds; a file that says otherwise would go unmatched, unsaid.
  const [, node, context] = STACKS_FILE.exec(name)!;
  if (f.node !== Number(node) || f.context !== Number(context)) bad(path, `node ${String(f.node)} and context ${String(f.context)}, its name says ${node} and ${context}`);
  if (!Array.isArray(f.metrics) || !Array.isArray(f.frames) || !Array.isArray(f.threads)) bad(path, 'metrics, frames or threads missing');
  if (f.metrics.some((m) => typeof m !== 'string')) bad(path, 'a metric name is not a string');
  for (const fr of f.frames) {
    if (!Array.isArray(fr) || fr.length !== 4 || typeof fr[0] !== 'string' || typeof fr[1] !== 'string' || typeof fr[2] !== 'number' || typeof fr[3] !== 'string') {
      bad(path, 'a frame is not [function, file, line, object]');
    }
  }
  const finite = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  for (const t of f.threads) {
    const n = t?.parent?.length;
    if (!Number.isInteger(t?.thread) || !Array.isArray(t.contexts) || !Array.isArray(t.parent)) bad(path, 'a thread lacks thread, contexts or parent');
    if (t.contexts.some((c) => typeof c !== 'string')) bad(path, `thread ${t.thread}: a context name is not a string`);
    if (!Number.isInteger(t.merged) || t.merged < 0) bad(path, `thread ${t.thread}: merged is ${String(t.merged)}, not a count`);
    if (t.frame?.length !== n || t.samples?.length !== n || t.values?.length !== f.metrics.length || t.values.some((v) => v?.length !== n)) {
      bad(path, `thread ${t.thread}: parent, frame, samples and values differ in length`);
    }
    for (let i = 0; i < n; i++) {
      const p = t.parent[i];
      if (!Number.isInteger(p) || p >= i || (p < 0 && -p - 1 >= t.contexts.length)) bad(path, `thread ${t.thread}: node ${i} has parent ${p}`);
      if (!Number.isInteger(t.frame[i]) || t.frame[i] < 0 || t.frame[i] >= f.frames.length) bad(path, `thread ${t.thread}: node ${i} has frame ${t.frame[i]}`);
      if (!Number.isInteger(t.samples[i]) || t.samples[i] < 0) bad(path, `thread ${t.thread}: node ${i} has ${JSON.stringify(t.samples[i])} samples`);
      const m = t.values.findIndex((v) => !finite(v[i]));
      if (m >= 0) bad(path, `thread ${t.thread}: node ${i} has the ${f.metrics[m]} value ${JSON.stringify(t.values[m][i])}`);
    }
  }
  return f;
}

/**
 * The names of the stacks files of a profile directory, sorted (none: an older profile, or one
 * without deep stacks). Two files for one process (`.json` and `.json.gz`: a directory an older
 * hyprof and this one both wrote into by hand) are refused: either would count its samples twice.
 */
export function stacksFileNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    .filter((x) => STACKS_FILE.test(x))
    .sort();
  const seen = new Map<string, string>();
  for (const name of names) {
    const [, node, context] = STACKS_FILE.exec(name)!;
    const other = seen.get(`${node}.${context}`);
    if (other) throw new UserError(`${join(dir, name)}: a second stacks file of node ${node}, context ${context} beside ${other}; remove one or resolve the profile again`);
    seen.set(`${node}.${context}`, name);
  }
  return names;
}

/** A stacks file's text: unpacked when its name says gzip. */
function stacksText(path: string, name: string): string {
  const bytes = readFileSync(path);
  if (!name.endsWith('.gz')) return bytes.toString('utf8');
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED }).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') bad(path, `it unpacks to more than ${MAX_UNPACKED / 1024 / 1024} MiB`);
    bad(path, `not gzip: ${(e as Error).message}`);
  }
}

/** One stacks file of a profile directory by its name (stacksFileName), read and checked. */
export function readStacksFile(dir: string, name: string): StacksFile {
  const path = join(dir, name);
  let parsed: unknown;
  try {
    parsed = JSON.parse(stacksText(path, name));
  } catch (e) {
    if (e instanceof UserError) throw e; // the gzip layer's refusal, already worded
    bad(path, (e as Error).message);
  }
  return checked(path, name, parsed);
}

/** The stacks files of a profile directory (none: an older profile, or one without deep stacks). */
export function readStacksFiles(dir: string): StacksFile[] {
  return stacksFileNames(dir).map((name) => readStacksFile(dir, name));
}

/** Thread `t`'s stacks for its metric from its process's stacks file `f`, when the file has them. */
export function stacksOf(f: StacksFile, t: Pick<TauThreadProfile, 'thread' | 'metric'>): ThreadStackView | undefined {
  const mi = f.metrics.indexOf(t.metric);
  const s = f.threads.find((x) => x.thread === t.thread);
  if (!s || mi < 0) return undefined;
  return { frames: f.frames, contexts: s.contexts, parent: s.parent, frame: s.frame, samples: s.samples, values: s.values[mi], merged: s.merged };
}

/**
 * Give every thread of `profile` its stacks from the directory's stacks files (the metric's values,
 * matched by node, context, thread and metric name). Threads without stacks keep their [UNWIND]
 * chains only.
 */
export function attachStacks(profile: TauProfile): void {
  const files = readStacksFiles(profile.dir);
  if (files.length === 0) return;
  const byProcess = new Map(files.map((f) => [`${f.node}.${f.context}`, f]));
  profile.metrics.forEach((metric, m) => {
    for (const t of profile.threads[m]) {
      const f = byProcess.get(`${t.node}.${t.context}`);
      const stacks = f && stacksOf(f, { thread: t.thread, metric });
      if (stacks) t.stacks = stacks;
    }
  });
}

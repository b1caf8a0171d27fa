/**
 * One raw process (+ its symbols) → its TAU thread profiles, one set per metric, with TAU's names,
 * groups and value semantics (shared/TAU-FORMAT.md, the reference profiles):
 *
 * - flat entries: calls, subrs and excl summed over every context of the event; incl summed only over
 *   contexts with no ancestor of the same event, so recursion is not counted twice;
 * - event paths `a => b => c` (last `depth` events) when callpaths are on, merged per name with the
 *   same recursion rule; parameter specialisations get no path entries (as in TAU);
 * - with phases and callpaths off, `<innermost enclosing phase> => <event>` entries;
 * - sample nodes (assemble-samples.ts);
 * - TIME converted from nanoseconds to microseconds; the root line rounded to integers.
 *
 * File numbering: node = the process's node (MPI rank); context = 0 for the root process of a run,
 * a process that set its node or called MPI_Init, or a lone process; the process id for forked
 * children, for the other processes of a `hyprof run` (exec'd descendants) and for processes that
 * only inherited a rank from an MPI launcher; thread = the thread's index. A process that replaced
 * its program by exec has one raw file per image (same host and pid): the last image is numbered as
 * above, each earlier one gets a context of its own after the highest its node uses in the resolve
 * (exec-images.ts), so images never collide.
 */
import {
  EventKind,
  INFO_FORKED_CHILD,
  INFO_MPI_RANK,
  INFO_NODE_SET,
  INFO_RANK_FROM_ENV,
  INFO_RUN_ROOT,
  type RawProcess,
  type RawThread,
} from '../samples/raw-model.js';
import type { Resolution } from '../symbolize/frames.js';
import { ContextTree, PATH_SPLIT } from './assemble-tree.js';
import { threadValues, type ThreadValues } from './assemble-values.js';
import { userEventName } from './event-names.js';
import { EntryTable } from './assemble-table.js';
import { addSamples } from './assemble-samples.js';
import { threadMetadata } from './assemble-meta.js';
import { withGpu } from './assemble-gpu.js';
import type { ModuleCollector } from '../profile/modules-file.js';
import type { TauThreadProfile, TauUserEvent, ThreadToWrite } from '../profile/tau-model.js';
import { FrameTable, MERGED_FRAME, StackTree, type StacksFile } from '../profile/stacks-file.js';

export interface AssembleOptions {
  /** Event paths on/off; default: the run's HYPROF_CALLPATH / TAU_CALLPATH setting, else on. */
  callpath?: boolean;
  /** Events per path, counted from the leaf; default: the run's setting, else 100. */
  callpathDepth?: number;
  /** Append ` ADDR 0x<address>` to unresolved samples (TAU_EBS_KEEP_UNRESOLVED_ADDR). */
  keepAddresses?: boolean;
  /** The source frames of a sampled address (Symbolizer.resolve bound to this process). */
  resolve: (pc: bigint, isReturn: boolean) => Resolution;
  /** True when another process of the same resolve is a `hyprof run` root (see numbering above). */
  underRun?: boolean;
  /** The context of an image replaced by exec that another image of its process follows (exec-images.ts). */
  context?: number;
  /** Told the object file of every sampled function (modules.json). */
  modules?: ModuleCollector;
  /**
   * The caller uses the process no more after the assembly: each thread's timer statistics (the
   * largest part of a raw process) are dropped as soon as the thread's values are made from them.
   */
  dropStatistics?: boolean;
  /** Stack-tree nodes a thread keeps in the stacks file (default MAX_STACK_NODES). */
  maxStackNodes?: number;
}

export interface AssembledProcess {
  /** threads[metric] = this process's thread profiles for that metric. */
  threads: TauThreadProfile[][];
  metrics: string[];
  node: number;
  context: number;
  samples: number;
  drops: Record<string, number>;
  warnings: string[];
  /** What resolve says on stderr about this process's output (a stacks file bound reached). */
  notes: string[];
  /** The complete sampled stacks (stacks-file.ts), when some were deeper than the [UNWIND] chains. */
  stacks?: StacksFile;
}

function attr(p: RawProcess, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const hit = p.info.attributes.find(([key]) => key === k);
    if (hit) return hit[1];
  }
  return undefined;
}

function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  const s = v.trim().toLowerCase();
  if (['1', 'on', 'true', 'yes'].includes(s)) return true;
  if (['0', 'off', 'false', 'no'].includes(s)) return false;
  return undefined;
}

export function callpathSettings(p: RawProcess, opts: Pick<AssembleOptions, 'callpath' | 'callpathDepth'>): { on: boolean; depth: number } {
  const on = opts.callpath ?? parseBool(attr(p, 'HYPROF_CALLPATH', 'TAU_CALLPATH')) ?? true;
  const fromFile = Number(attr(p, 'HYPROF_CALLPATH_DEPTH', 'TAU_CALLPATH_DEPTH'));
  const depth = opts.callpathDepth ?? (Number.isInteger(fromFile) && fromFile > 0 ? fromFile : 100);
  return { on, depth: Math.max(1, depth) };
}

/**
 * A process owns context 0 of its node when it chose its node (hyprof_set_node), called MPI_Init
 * (node = its rank), is the root of a `hyprof run`, or is a lone process. A process that merely
 * inherited a rank from the launcher's environment without calling MPI_Init (a program a rank
 * started, a wrapper script) writes as context = its pid, so it never collides with the rank itself.
 */
export function fileNumbering(p: { info: Pick<RawProcess['info'], 'node' | 'flags' | 'pid'> }, underRun: boolean): { node: number; context: number } {
  const node = Math.max(0, p.info.node);
  const f = p.info.flags;
  const lone = (f & INFO_FORKED_CHILD) === 0 && !underRun && (f & INFO_RANK_FROM_ENV) === 0;
  const own = (f & INFO_NODE_SET) !== 0 || (f & INFO_MPI_RANK) !== 0 || (f & INFO_RUN_ROOT) !== 0 || lone;
  return { node, context: own ? 0 : p.info.pid };
}

/** Divisor: ns → µs for time metrics; counters stay as counted. (Dividing, not multiplying by
 * 0.001, keeps whole nanoseconds exact in the printed microseconds.) */
export function metricDivisor(metric: string): number {
  return /(^|_)TIME$/.test(metric) ? 1000 : 1;
}

/**
 * Assemble every thread of the process. With `onThread`, each thread's profile of each metric is
 * handed over as soon as it is made and not kept (`threads` stays empty): the resolve writes it and
 * drops it, so a process of many threads, or a thread of millions of entries, is never held twice.
 */
export function assembleProcess(proc: RawProcess, opts: AssembleOptions, onThread?: (metric: number, t: ThreadToWrite) => void): AssembledProcess {
  // GPU records become threads and [GPU] children of their launches (assemble-gpu.ts).
  proc = withGpu(proc);
  const tree = new ContextTree(proc);
  const cp = callpathSettings(proc, opts);
  const numbered = fileNumbering(proc, opts.underRun ?? false);
  const node = numbered.node;
  const context = opts.context ?? numbered.context;
  const metrics = proc.info.metrics;
  const threads: TauThreadProfile[][] = metrics.map(() => []);
  const drops: Record<string, number> = {};
  const warnings: string[] = [];
  let samples = 0;
  const chainDepth = unwindChainDepth(proc);
  // Complete stacks, kept for the stacks file when some stack is deeper than its chain.
  const frameTable = new FrameTable();
  const stackTrees: Array<[number, StackTree]> = [];
  let deeper = false;

  for (const t of proc.threads) {
    const stackTree = new StackTree(metrics.length);
    const made = threadTable(proc, tree, t, cp, opts, { chainDepth, frames: frameTable, tree: stackTree });
    const added = made.added;
    samples += added.samples;
    // A rare chain cut shorter than TAU's depth loses frames too: only the stacks file keeps them.
    deeper ||= added.deeper || added.shortened > 0;
    if (stackTree.parent.length > 0) stackTrees.push([t.index, stackTree]);
    // Chains cut to TAU's depth say so, and how many samples a rarer, shorter chain holds.
    const chainMeta: Array<[string, string]> = Number.isFinite(chainDepth) && added.samples > 0
      ? [['hyprof unwind chain depth', String(chainDepth)], ['hyprof samples in shortened chains', String(added.shortened)]]
      : [];
    // The path names are in the table now; the next thread names its own.
    tree.forgetPaths();
    for (const [reason, n] of t.drops) drops[reason] = (drops[reason] ?? 0) + n;
    for (const w of t.warnings) warnings.push(`${proc.file}: thread ${t.index}: ${w}`);
    const userEvents = userEventsOf(proc, t);
    metrics.forEach((metric, m) => {
      const ids = { node, context, thread: t.index, metric, userEvents, metadata: [...threadMetadata(proc, t, metric, tree), ...chainMeta] };
      // Handed over, the events are made one at a time as they are written.
      if (onThread) onThread(m, { ...ids, events: made.table.eventList(m, metricDivisor(metric), true) });
      else threads[m].push({ ...ids, events: made.table.events(m, metricDivisor(metric), true) });
    });
  }
  // What the stacks file could not hold whole is said by resolve (notes), not only kept in the file.
  const notes: string[] = [];
  const stacks = deeper
    ? stacksFile(node, context, metrics, frameTable, stackTrees, (thread, text) => notes.push(`${proc.file}: thread ${thread}: ${text}`), opts.maxStackNodes)
    : undefined;
  return { threads, metrics, node, context, samples, drops, warnings, notes, ...(stacks ? { stacks } : {}) };
}

/**
 * Frames an [UNWIND] chain of the TAU profile keeps: all when the run bounded its unwinding itself
 * (a depth N > 0: the chains hold what it unwound, inlined frames included, as before), else
 * DEFAULT_CHAIN_DEPTH, the innermost frames of the complete stacks (depth 0, "auto", the default
 * in Node processes).
 */
export function unwindChainDepth(proc: RawProcess): number {
  const d = proc.sampling?.unwindDepth ?? 0;
  return d > 0 ? Infinity : DEFAULT_CHAIN_DEPTH;
}

/** The TAU profile's chain depth when the stacks are complete: TAU's own default (TAU_EBS_UNWIND_DEPTH). */
export const DEFAULT_CHAIN_DEPTH = 10;

/**
 * Stack-tree nodes a thread keeps in the stacks file; beyond, the rarest stacks fold into their caller.
 * The tree is a trie of the distinct stacks over a frame table, as a `.cpuprofile` is, so it grows with
 * the distinct stacks, not with the samples: an ordinary run stays far below this bound (a 36-second
 * run of the TypeScript compiler made about 100,000 nodes). A node takes about 30 bytes of the file
 * (against about 150 in a `.cpuprofile`), so the bound only keeps a pathological run (generated code,
 * unbounded recursion through distinct frames) from writing hundreds of megabytes; reaching it is said,
 * with the share of the samples it merged.
 */
export const MAX_STACK_NODES = 2_000_000;

function stacksFile(
  node: number,
  context: number,
  metrics: string[],
  frames: FrameTable,
  trees: Array<[number, StackTree]>,
  warn: (thread: number, text: string) => void,
  maxNodes = MAX_STACK_NODES,
): StacksFile {
  const mergedFrame = frames.id([MERGED_FRAME, '', 0, '']);
  const threads = trees.map(([thread, tree]) => {
    const { tree: t, merged, mergedSamples } = tree.bound(maxNodes, mergedFrame);
    if (merged > 0) {
      const total = t.samples.reduce((a, x) => a + x, 0);
      warn(
        thread,
        `the stacks file keeps at most ${maxNodes} stack nodes a thread: ${merged} nodes of the rarest stacks, ` +
          `${((100 * mergedSamples) / Math.max(1, total)).toFixed(1)} % of the thread's samples, are merged into '${MERGED_FRAME}'`,
      );
    }
    const values = t.values.map((v, m) => {
      const d = metricDivisor(metrics[m]);
      return v.map((x) => x / d);
    });
    return { thread, ...t, values, merged };
  });
  return { format: 'hyprof-stacks', version: 1, node, context, metrics, frames: frames.frames, threads };
}

/** One thread's entries (timers, then samples); the values they come from are dropped on return. */
function threadTable(
  proc: RawProcess,
  tree: ContextTree,
  t: RawThread,
  cp: { on: boolean; depth: number },
  opts: AssembleOptions,
  stacks: { chainDepth: number; frames: FrameTable; tree: StackTree },
): { table: EntryTable; added: ReturnType<typeof addSamples> } {
  const table = new EntryTable(proc.info.metrics.length, (r) => tree.pathText(r), (ev) => tree.name(ev));
  const values = threadValues(proc, tree, t, opts.dropStatistics);
  addTimers(proc, tree, values, table, cp);
  // A sample context hangs under its timer's path; a parameter specialisation keeps its own
  // [CONTEXT] node there, so samples stay partitioned by value (docs/assembly.md).
  const contextPath = (c: bigint): string => {
    const r = tree.row(c);
    if (cp.on) return tree.pathName(r, cp.depth);
    if (tree.hasPhases) return tree.phasePathName(r) ?? tree.name(tree.base(tree.event(r)));
    return tree.name(tree.base(tree.event(r)));
  };
  const added = addSamples(proc, tree, t.samples, table, {
    contextPath,
    keepAddresses: opts.keepAddresses ?? false,
    unwind: proc.sampling?.unwind ?? t.samples.some((s) => s.pcs.length > 1),
    resolve: opts.resolve,
    scale: (c) => values.sampleScale.get(tree.row(c)),
    modules: opts.modules,
    chainDepth: stacks.chainDepth,
    stacks: { frames: stacks.frames, tree: stacks.tree },
  });
  table.pruneDerived(PATH_SPLIT);
  return { table, added };
}

function addTimers(proc: RawProcess, tree: ContextTree, values: ThreadValues, table: EntryTable, cp: { on: boolean; depth: number }): void {
  const nm = proc.info.metrics.length;
  const { order, row, calls, subrs, excl, incl, derived } = values;
  // Path entries are held by path class (no name string per context) when every path of the thread
  // is within the depth and names cannot collide (ContextTree.classifiable).
  let deepest = 0;
  for (let i = 0; i < order.length; i++) deepest = Math.max(deepest, tree.pathLength(row[order[i]]));
  const byClass = cp.on && cp.depth > 1 && deepest <= cp.depth && tree.classifiable();
  // Room for every entry the timers can make (a flat entry per event, a path entry per context) at once.
  const seen = new Uint8Array(proc.events.length);
  let events = 0;
  for (let i = 0; i < order.length; i++) {
    const ev = tree.event(row[order[i]]);
    if (seen[ev] === 0) events++;
    seen[ev] = 1;
  }
  table.reserve(events + (cp.on || tree.hasPhases ? order.length : 0));
  for (let i = 0; i < order.length; i++) {
    const v = order[i];
    const r = row[v];
    const ev = tree.event(r);
    const kind = proc.events[ev].kind;
    const isParam = kind === EventKind.PARAM;
    const baseEv = tree.base(ev);
    const at = v * nm;
    const isDerived = derived[v] === 1;
    // Recursion: an ancestor of the same event already holds this context's inclusive value.
    const nested = tree.hasAncestor(r, (a) => (isParam ? tree.event(a) === ev : tree.base(tree.event(a)) === ev));
    const flatOrder = kind === EventKind.ROOT ? -1 : ev;
    if (byClass) table.addNamed(tree.nameId(ev), ev, tree.group(ev), flatOrder, calls[v], subrs[v], excl, nested ? null : incl, isDerived, at);
    else table.add(tree.name(ev), tree.group(ev), flatOrder, calls[v], subrs[v], excl, nested ? null : incl, isDerived, at);
    if (isParam || kind === EventKind.ROOT) continue;

    if (byClass) {
      // Paths no longer than the depth, named by their events alone: one class, one name; an
      // ancestor's path is shorter, so never the same name (no recursion to subtract).
      if (tree.pathLength(r) > 1) table.addPath(tree.pathClass(r), r, tree.pathGroup(baseEv), baseEv, calls[v], subrs[v], excl, incl, isDerived, at);
      continue;
    }
    let pathName: string | null = null;
    let sameAs: ((a: number) => string | null) | null = null;
    if (cp.on) {
      if (tree.pathLength(r) > 1 && cp.depth > 1) {
        pathName = tree.pathName(r, cp.depth);
        sameAs = (a) => tree.pathName(a, cp.depth);
      }
    } else if (tree.hasPhases) {
      pathName = tree.phasePathName(r);
      sameAs = (a) => tree.phasePathName(a);
    }
    if (pathName === null || sameAs === null) continue;
    const name = pathName;
    const key = sameAs;
    const pathNested = tree.hasAncestor(r, (a) => key(a) === name);
    table.add(name, tree.pathGroup(baseEv), baseEv, calls[v], subrs[v], excl, pathNested ? null : incl, isDerived, at);
  }
}

function userEventsOf(proc: RawProcess, t: RawThread): TauUserEvent[] {
  return t.userStats
    .filter((u) => u.count > 0)
    .map((u) => ({
      name: userEventName(proc.userEvents.get(u.userEvent) ?? `user event ${u.userEvent}`),
      count: u.count,
      max: u.max,
      min: u.min,
      mean: u.sum / u.count,
      sumsqr: u.sumsqr,
    }));
}

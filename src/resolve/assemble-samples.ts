/**
 * Sample nodes of a hybrid profile (shared/TAU-FORMAT.md, "Sample nodes"): for each context with
 * samples a `[CONTEXT]` node, the `[SAMPLE]` leaves merged per (function, file, line) and, with
 * unwinding, the `[UNWIND]` chain from the outermost unwound frame down to the sample, every prefix an
 * entry of its own. Sample time is a parallel view: timers are not reduced by it.
 *
 * Naming follows TAU-FORMAT.md where TAU 2.35's own output is inconsistent: `[CONTEXT] <name>` with
 * one space (TAU writes two when callpaths are on), and every unwound frame as
 * `[UNWIND] <callee file>.<callee line> [@] <caller> [{<file>} {<call-site line>}]`
 * (TAU sometimes writes the caller alone, or brackets the callee location).
 */
import type { RawProcess, RawSample } from '../samples/raw-model.js';
import type { Resolution } from '../symbolize/frames.js';
import { isRuntimeModule } from '../symbolize/own-modules.js';
import { ContextTree, PATH_JOIN } from './assemble-tree.js';
import type { EntryTable } from './assemble-table.js';
import type { ModuleCollector } from '../profile/modules-file.js';
import { safeName } from './event-names.js';
import { builtinsOfJsCaller, v8GroupEntry, v8GroupFold } from './v8-groups.js';
import { FrameTable, type StackFrame, type StackTree } from '../profile/stacks-file.js';

/**
 * A chain (of its innermost frames) with fewer of the thread's samples than this share is cut shorter.
 * TAU's format writes every prefix of a chain as an entry named by the whole path, so the chains'
 * bytes grow with depth × name length per distinct chain: at 0.05 % (about every chain of two samples
 * in a 3,000-sample run) the chains of a linter's run were 5.9 MB of a 6.6 MB profile, against a
 * 1.8 MB `.cpuprofile`; at 0.5 % its profile is 0.7 MB. Only ParaProf's and `report --callpath`'s
 * chain views see the difference: the complete stacks are in the stacks file, which the viewer, the
 * function report and the exports read (bench/RESULTS.md, "Node programs").
 */
export const RARE_CHAIN_SHARE = 0.005;

/** TAU puts two spaces before the `=>` that follows a context path and a [CONTEXT] node. */
const CONTEXT_JOIN = '  => ';

type Frame = ({ ok: true; function: string; file: string; line: number } | { ok: false; module: string; address: bigint }) & {
  /** The object file (absent for JIT code and unknown addresses). */
  object?: string;
  /** Its index in the stacks file's frame table, once it has one (PcFrames). */
  id?: number;
};

export interface SampleOptions {
  /** How a context's path is named: by callpath (depth), by enclosing phase, or by itself. */
  contextPath: (context: bigint) => string;
  keepAddresses: boolean;
  /** Write [UNWIND] chains (the raw file's sampling configuration had unwinding on). */
  unwind: boolean;
  resolve: (pc: bigint, isReturn: boolean) => Resolution;
  /** Per-metric factor for a context's sample values (assemble-values.ts); absent: 1. */
  scale?: (context: bigint) => number[] | undefined;
  /** Told the object file of every named frame (modules.json, for exporters). */
  modules?: ModuleCollector;
  /** Frames an [UNWIND] chain keeps, the sample's own included (the innermost ones; TAU_EBS_UNWIND_DEPTH). */
  chainDepth: number;
  /** Where the complete stacks go (stacks-file.ts), when they are kept. */
  stacks?: { frames: FrameTable; tree: StackTree };
}

/** An OpenMP runtime: LLVM's libomp (also in libgomp's place), Intel's libiomp5, GNU libgomp. */
export function isOpenmpRuntime(path: string | undefined): boolean {
  const base = path?.slice(path.lastIndexOf('/') + 1) ?? '';
  return /^lib(omp|iomp5|gomp)\.so(\.|$)/.test(base);
}

/**
 * The frames of one program counter of a record (`isReturn`: a caller's, looked up inside its call),
 * innermost first; inlined functions are frames of their own; none for hyprof's own code (below).
 * The object file of every named frame is told to opts.modules.
 */
function framesOfPc(pc: bigint, isReturn: boolean, opts: SampleOptions): Frame[] {
  const out: Frame[] = [];
  const res = opts.resolve(pc, isReturn);
  if (isRuntimeModule(res.module)) return out;
  if (res.resolved) {
    for (const f of res.frames) {
      out.push({ ok: true, ...f, object: res.module });
      if (res.module) opts.modules?.note(safeName(f.function), safeName(f.file), res.module, res.buildId ?? '');
    }
  } else {
    out.push({ ok: false, module: res.module, address: res.address, object: res.module });
    if (res.module.startsWith('/')) opts.modules?.module(res.module, res.buildId ?? '');
  }
  return out;
}

/**
 * The frames of each program counter, made once per thread: a Node thread's records are a few
 * thousand distinct stacks of tens of frames over a few thousand distinct addresses, so naming
 * frames per record did the same work about 25 times over. The frames are shared between records
 * (never changed: framesOf copies them into each record's list), and each remembers its id in the
 * stacks file's frame table (`id`, set on first use, in the order the frames are first used).
 */
class PcFrames {
  private readonly inner = new Map<bigint, Frame[]>();
  private readonly callers = new Map<bigint, Frame[]>();
  constructor(private readonly opts: SampleOptions) {}

  get(pc: bigint, isReturn: boolean): Frame[] {
    const known = isReturn ? this.callers : this.inner;
    let f = known.get(pc);
    if (!f) known.set(pc, (f = framesOfPc(pc, isReturn, this.opts)));
    return f;
  }
}

/**
 * The frames of one record, innermost first; inlined functions are frames of their own. Frames of
 * hyprof's own code (an interposed pthread_create or sigprocmask the program called, a trampoline)
 * are left out: the runtime never appears in a user's profile, and its time is the caller's.
 */
function framesOf(r: RawSample, opts: SampleOptions, pcFrames: PcFrames): Frame[] {
  const out: Frame[] = [];
  const pcs = opts.unwind ? r.pcs : r.pcs.slice(0, 1);
  pcs.forEach((pc, i) => {
    for (const f of pcFrames.get(pc, i > 0)) out.push(f);
  });
  // A worker thread's stack starts in the OpenMP runtime (its thread loop, the call into the outlined
  // region): the program's chain starts at its own code, as on the master (docs/assembly.md).
  while (out.length > 1 && isOpenmpRuntime(out[out.length - 1].object)) out.pop();
  // V8's garbage collector or compiler at work: one named frame under the code that led there; a
  // compilation the chain shows a JavaScript function asking for is that function's (v8-groups.ts).
  const v8 = v8GroupEntry(
    out.map((f) => (f.ok ? f.function : null)),
    (i) => isJsFrame(out[i]),
  );
  if (v8) {
    const fold = v8GroupFold(v8);
    out.splice(0, fold.drop, ...(fold.named ? [{ ok: true as const, function: v8.group, file: '', line: 0 }] : []));
  }
  // Builtins a JavaScript function ran (loads, calls): that function's own time.
  else out.splice(0, builtinsOfJsCaller(out.map((f) => (f.ok ? f.function : null)), (i) => isJsFrame(out[i])));
  if (out.length === 0) out.push({ ok: false, module: 'UNKNOWN', address: 0n });
  return opts.unwind ? out : out.slice(0, 1);
}

/** A JavaScript function named by a perf map: no object file, a source file (perf-map.ts). */
function isJsFrame(f: Frame): boolean {
  return f.ok && f.object === undefined && f.file !== '';
}

export function unresolved(f: { module: string; address: bigint }, keep: boolean): string {
  return `UNRESOLVED ${f.module}${keep ? ` ADDR 0x${f.address.toString(16)}` : ''}`;
}

/** A frame by function and location; a placeholder (`<OpenMP barrier wait>`, `(garbage collector)`)
 * has no location. */
function where(f: Frame & { ok: true }): string {
  if (!f.file && f.line === 0 && (f.function.startsWith('<') || f.function.startsWith('('))) return f.function;
  return `${f.function} [{${f.file}} {${f.line}}]`;
}

export function sampleName(f: Frame, keep: boolean): string {
  return safeName(`[SAMPLE] ${f.ok ? where(f) : unresolved(f, keep)}`);
}

/** An unwound caller frame, named by where its callee was and where the call is. */
export function unwindName(caller: Frame, callee: Frame, keep: boolean): string {
  const calleeLoc = callee.ok ? (callee.file ? `${callee.file}.${callee.line}` : callee.function) : 'UNRESOLVED';
  return safeName(`[UNWIND] ${calleeLoc} [@] ${caller.ok ? where(caller) : unresolved(caller, keep)}`);
}

/** A frame as the stacks file holds it: named as in the TAU profile, split into its parts. */
function stackFrame(f: Frame, keep: boolean): StackFrame {
  if (!f.ok) return [safeName(unresolved(f, keep)), '', 0, f.object ?? ''];
  return [safeName(f.function), safeName(f.file), f.line, f.object ?? ''];
}

/**
 * Add the sample nodes of one thread to `table`; returns the samples added, whether any stack was
 * deeper than the [UNWIND] chains keep, and the samples whose rare chain was cut shorter still (for
 * either, only the stacks file holds the stack whole).
 */
export function addSamples(
  proc: RawProcess,
  tree: ContextTree,
  samples: RawSample[],
  table: EntryTable,
  opts: SampleOptions,
): { samples: number; deeper: boolean; shortened: number } {
  let total = 0;
  let deeper = false;
  let shortened = 0;
  const zero = new Array(proc.info.metrics.length).fill(0);
  const frameTable = opts.stacks?.frames ?? new FrameTable();
  const pcFrames = new PcFrames(opts);
  // Pass 1: every record's context and complete stack (innermost first), and the samples of each
  // chain of its innermost 1..chainDepth frames, to shorten rare chains in pass 2.
  const records: Array<{ r: RawSample; ctxPath: string; stack: Frame[]; values: number[]; nodes: ChainNode[] }> = [];
  // The chains of each context path as a trie of frame ids: nodes[d] of a record is the node of its
  // innermost d frames, holding the samples of every record that starts with them (numbers looked
  // up per frame, not a string key per depth hashed whole).
  const roots = new Map<string, ChainNode>();
  // Each context's path, made once: a thread's records share a few contexts.
  const ctxPaths = new Map<bigint, string>();
  for (const r of samples) {
    if (r.count === 0) continue;
    total += r.count;
    const f = opts.scale?.(r.context);
    const values = f ? r.values.map((v, m) => v * f[m]) : r.values;
    // The specialised name under its timer's path: samples of "matrixMultiply  [ <size> = <512> ]  "
    // stay apart per size, as a [CONTEXT] child of matrixMultiply.
    // Trailing spaces of a name ("...]  ") are not doubled before the joining "  => ".
    let ctxPath = ctxPaths.get(r.context);
    if (ctxPath === undefined) {
      const ctxName = tree.name(tree.event(tree.row(r.context)));
      ctxPaths.set(r.context, (ctxPath = `${opts.contextPath(r.context).trimEnd()}${CONTEXT_JOIN}[CONTEXT] ${ctxName}`));
    }
    const stack = framesOf(r, opts, pcFrames);
    const ids = stack.map((fr) => (fr.id ??= frameTable.id(stackFrame(fr, opts.keepAddresses))));
    if (opts.stacks) opts.stacks.tree.add(ctxPath, ids.slice().reverse(), r.count, values);
    if (stack.length > opts.chainDepth) deeper = true;
    let node: ChainNode | undefined = roots.get(ctxPath);
    if (!node) roots.set(ctxPath, (node = newChainNode()));
    const nodes: ChainNode[] = [node];
    // At least the sample's own frame: every chain holds it (chainEntries).
    const max = Math.min(Math.max(opts.chainDepth, 1), ids.length);
    for (let d = 1; d <= max; d++) {
      let next: ChainNode | undefined = node.next.get(ids[d - 1]);
      if (!next) node.next.set(ids[d - 1], (next = newChainNode()));
      next.count += r.count;
      nodes.push((node = next));
    }
    records.push({ r, ctxPath, stack, values, nodes });
  }
  // A chain cut to TAU's depth is extended outward only while it holds RARE_CHAIN_SHARE of the
  // thread's samples: rarer chains keep fewer frames (what a flame graph would not draw), so the
  // number of entries stays bounded; each such sample is counted (docs/assembly.md).
  const minSamples = total * RARE_CHAIN_SHARE;

  // Pass 2: the TAU entries. Records repeat the same chains (a Node thread's tens of thousands of
  // records hold a few thousand), and naming a chain's entries is string work per frame: each
  // distinct chain's entries are named once, and each record adds its values to them by number, in
  // record order as before (so every sum is made in the same order and the profile is unchanged).
  for (const { r, ctxPath, stack, values, nodes } of records) {
    // The chain is known by its context and its innermost chainDepth frames: their trie node.
    const last = nodes[nodes.length - 1];
    const chain = (last.chain ??= chainEntries(ctxPath, stack, nodes, table, opts, minSamples));
    if (chain.cut) shortened += r.count;
    const { entries, own } = chain;
    for (let k = 0; k < entries.length; k++) table.addAt(entries[k], r.count, 0, own[k] ? values : zero, values);
  }
  return { samples: total, deeper, shortened };
}

/** A node of a context's trie of chains (addSamples): the samples of the chains through it. */
interface ChainNode {
  count: number;
  next: Map<number, ChainNode>;
  /** The entries of the chain that ends here (a record's whole chain), once made. */
  chain?: Chain;
}

function newChainNode(): ChainNode {
  return { count: 0, next: new Map() };
}

/** The TAU entries a record of one chain adds to (addSamples, pass 2), in the order they are added. */
interface Chain {
  entries: number[];
  /** Per entry: the sample is its own (exclusive) value, not only its inclusive one. */
  own: boolean[];
  /** The chain was cut shorter than TAU's depth (rare: RARE_CHAIN_SHARE). */
  cut: boolean;
}

/** The entries of the chain of a record with context path `ctxPath` and frames `stack`. */
function chainEntries(
  ctxPath: string,
  stack: Frame[],
  nodes: ChainNode[],
  table: EntryTable,
  opts: SampleOptions,
  minSamples: number,
): Chain {
  const chain: Chain = { entries: [], own: [], cut: false };
  const add = (name: string, group: string, own: boolean): void => {
    chain.entries.push(table.entryOf(name, group, Infinity));
    chain.own.push(own);
  };
  const ctxNode = ctxPath.slice(ctxPath.lastIndexOf('[CONTEXT] '));
  add(ctxNode, 'TAU_SAMPLE_CONTEXT', false);
  add(ctxPath, 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH', false);

  // TAU's chains: the innermost frames only (TAU_EBS_UNWIND_DEPTH), merged per identical chain.
  let depth = Math.min(stack.length, opts.chainDepth);
  if (Number.isFinite(opts.chainDepth)) {
    let d = 1;
    while (d < depth && nodes[d + 1].count >= minSamples) d++;
    chain.cut = d < depth;
    depth = d;
  }
  const frames = stack.slice(0, Math.max(1, depth));
  const leaf = sampleName(frames[0], opts.keepAddresses);
  add(leaf, 'TAU_SAMPLE', true);

  // Unwound callers, outermost first.
  const unwinds: string[] = [];
  for (let j = frames.length - 1; j >= 1; j--) unwinds.push(unwindName(frames[j], frames[j - 1], opts.keepAddresses));
  let path = `${ctxPath.trimEnd()}${CONTEXT_JOIN}`;
  const seen = new Set<string>();
  unwinds.forEach((u, i) => {
    path += i === 0 ? u : `${PATH_JOIN}${u}`;
    add(path, 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH', false);
    // A frame twice in one chain (recursion) counts once in its flat entry.
    if (!seen.has(u)) {
      seen.add(u);
      add(u, 'TAU_UNWIND', false);
    }
  });
  const leafPath = unwinds.length > 0 ? `${path}${PATH_JOIN}${leaf}` : `${path}${leaf}`;
  add(leafPath, unwinds.length > 0 ? 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH' : 'TAU_SAMPLE|TAU_CALLPATH', true);
  return chain;
}

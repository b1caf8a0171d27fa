/**
 * What every exporter shares: choosing the metric and threads, and walking a thread's event tree
 * into stacks. A stack's frames are the timer path (phases, parameter values), then the sampled code:
 * the unwound callers and the sampled function, named by function with their source lines (no TAU
 * `[CONTEXT]` / `[UNWIND]` / `[SAMPLE]` prefixes), so the hybrid structure survives in tools that
 * only know call stacks. Each stack carries the value no deeper frame explains (event-tree.ts
 * selfValue), so stacks sum to the thread's total without counting a sample twice.
 */
import { UserError } from '../base/errors.js';
import { selfValue, stackRoots, eventTree, type EventTree, type TreeNode } from './event-tree.js';
import { displayName, namedThreadLabel, type TauProfile, type TauThreadProfile } from './tau-model.js';

export const EXPORT_FORMATS = ['pprof', 'speedscope', 'collapsed'] as const;

/**
 * Formats hyprof no longer writes, with the reason and what to use instead. Chrome's trace format
 * is a timeline: a TAU profile holds totals per event and calling context, not when each call
 * started, so any timeline written from it would be invented.
 */
export const DROPPED_FORMATS: Record<string, string> = {
  chrome:
    'a Chrome trace is a timeline, and a profile holds totals per event and calling context, not when each call ran ' +
    '(the runtime keeps no instance times), so its times would be invented; use --format speedscope ' +
    "(speedscope's left-heavy and sandwich views of the same stacks) or --format pprof",
};
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportSelection {
  /** `node,context,thread`, or a thread number (when only one node/context has it). */
  thread?: string;
  /** Metric name; default the first. */
  metric?: string;
}

export interface Selected {
  metric: string;
  metricIndex: number;
  threads: TauThreadProfile[];
}

export function selectThreads(profile: TauProfile, sel: ExportSelection): Selected {
  let metricIndex = 0;
  if (sel.metric !== undefined) {
    metricIndex = profile.metrics.indexOf(sel.metric);
    if (metricIndex < 0) {
      throw new UserError(`--metric ${sel.metric}: not in ${profile.dir} (metrics: ${profile.metrics.join(', ')})`);
    }
  }
  let threads = profile.threads[metricIndex];
  if (sel.thread !== undefined) {
    const m = /^(?:(\d+),(\d+),)?(\d+)$/.exec(sel.thread.trim());
    if (!m) throw new UserError(`--thread ${sel.thread}: expected <node>,<context>,<thread> or a thread number`);
    const want = threads.filter(
      (t) => t.thread === +m[3] && (m[1] === undefined || (t.node === +m[1] && t.context === +m[2])),
    );
    if (want.length !== 1) {
      const have = threads.slice(0, 20).map((t) => `${t.node},${t.context},${t.thread}`).join(' ');
      const more = threads.length > 20 ? ' …' : '';
      throw new UserError(
        want.length === 0
          ? `--thread ${sel.thread}: no such thread in ${profile.dir} (threads: ${have}${more})`
          : `--thread ${sel.thread}: several nodes have this thread; give <node>,<context>,<thread>`,
      );
    }
    threads = want;
  }
  return { metric: profile.metrics[metricIndex], metricIndex, threads };
}

/** A frame as exporters write it: timers by name, sampled code by function and source line. */
export interface ExportFrame {
  /** Timer name, parameter specialisation, or function (`UNRESOLVED <module>` when unknown). */
  name: string;
  /** Source position of sampled code (not of timers). */
  file?: string;
  line?: number;
  /** The line the function starts at, when known: JavaScript functions, which V8 names by it. */
  startLine?: number;
  kind: 'timer' | 'context' | 'code';
}

export interface Stack {
  /** Root first. */
  frames: ExportFrame[];
  /** Value no deeper frame explains. */
  value: number;
  calls: number;
}

/** `f [{file} {line}]` → its parts (TAU's way of writing a source position). */
function codeFrame(text: string): ExportFrame {
  const m = /^(.*?) \[\{([^{}]*)\} \{(\d+)(?:, *\d+)?\}\]\s*$/.exec(text);
  if (!m) return { name: displayName(text), kind: 'code' };
  return { name: displayName(m[1]), file: m[2], line: Number(m[3]), kind: 'code' };
}

/**
 * The code a sample node names: `[SAMPLE] f [{file} {line}]` is function f at that line;
 * `[UNWIND] <callee> [@] g [{file} {line}]` is its caller g at the call site. Null for other names.
 */
export function sampledCode(name: string): ExportFrame | null {
  const n = name.trim();
  if (n.startsWith('[SAMPLE]')) return codeFrame(n.slice(8).trim());
  if (n.startsWith('[UNWIND]')) {
    const text = n.slice(8).trim();
    const at = text.lastIndexOf(' [@] ');
    return codeFrame(at >= 0 ? text.slice(at + 5) : text);
  }
  return null;
}

/**
 * A tree node as an export frame, or null when it adds nothing: `[SAMPLE] f [{file} {line}]` is
 * function f at that line; `[UNWIND] <callee> [@] g [{file} {line}]` is its caller g at the call
 * site; `[CONTEXT] t` under timer t is t itself (left out), a parameter specialisation
 * `[CONTEXT] t [ <p> = <v> ]` is a frame of its own, so the value stays visible.
 */
export function exportFrame(n: TreeNode): ExportFrame | null {
  const strip = (prefix: string) => n.name.slice(prefix.length).trim();
  switch (n.kind) {
    case 'timer':
      return { name: n.name, kind: 'timer' };
    case 'context': {
      const name = strip('[CONTEXT]');
      return n.parent && n.parent.name === name ? null : { name, kind: 'context' };
    }
    case 'sample':
    case 'unwind': {
      const f = sampledCode(n.name);
      // A frame of a complete stack: JIT code (no object file) is named by its function's first line.
      if (f && n.frame && n.frame[3] === '' && n.frame[1] !== '' && f.file !== undefined) f.startLine = n.frame[2];
      return f;
    }
  }
}

/** Every node with a value of its own, as a stack; deterministic order (tree order). */
export function stacksOf(tree: EventTree): Stack[] {
  const out: Stack[] = [];
  for (const s of stacksIn(tree)) out.push({ frames: [...s.frames], value: s.value, calls: s.calls });
  return out;
}

const LEAVE = null;

/**
 * Every node with a value of its own, in tree order, one at a time: `frames` is the walk's own path,
 * valid until the next stack is asked for (copy what is kept), so a tree of millions of nodes is
 * exported without a stack object per node. An explicit stack, not recursion: paths may be deeper
 * than the call stack allows.
 */
export function* stacksIn(tree: EventTree): Generator<{ frames: readonly ExportFrame[]; value: number; calls: number }> {
  const path: ExportFrame[] = [];
  // Nodes to enter, and LEAVE where the frame pushed on entering a node is popped again.
  const pending: Array<TreeNode | typeof LEAVE> = [];
  const roots = stackRoots(tree);
  for (let i = roots.length - 1; i >= 0; i--) pending.push(roots[i]);
  while (pending.length > 0) {
    const n = pending.pop()!;
    if (n === LEAVE) {
      path.pop();
      continue;
    }
    const f = exportFrame(n);
    if (f) {
      path.push(f);
      pending.push(LEAVE);
    }
    const v = selfValue(n);
    if (v > 0) yield { frames: path, value: v, calls: n.calls };
    for (let i = n.children.length - 1; i >= 0; i--) pending.push(n.children[i]);
  }
}

export function threadTree(t: TauThreadProfile): EventTree {
  return eventTree(t.events, t.stacks);
}

export function threadName(t: TauThreadProfile): string {
  return namedThreadLabel(t);
}

/** Time metrics hold microseconds; anything else is a count. */
export function isTimeMetric(metric: string): boolean {
  return /TIME/i.test(metric);
}

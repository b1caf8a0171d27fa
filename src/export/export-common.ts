/**
 * What every exporter shares: choosing the metric and threads, and walking a thread's event tree
 * into stacks. A stack's frames are the timer path (phases, parameter values), then the sampled code:
 * the unwound callers and the sampled function, named by function with their source lines (no TAU
 * `[CONTEXT]` / `[UNWIND]` / `[SAMPLE]` prefixes), so the hybrid structure survives in tools that
 * only know call stacks. Each stack carries the value no deeper frame explains (event-tree.ts
 * selfValue), so stacks sum to the thread's total without counting a sample twice. The tree is
 * export-tree.ts's columns, built as the thread's events are read, so a thread of millions of
 * contexts is exported without an object per event, per node or per stack.
 */
import { UserError } from '../base/errors.js';
import { isParamEvent } from '../profile/event-tree.js';
import { exportTree, KINDS, type ExportTree } from './export-tree.js';
import { displayName, namedThreadLabel, type TauEvent, type TauProfile, type TauThreadProfile } from '../profile/tau-model.js';

const KIND_TIMER = KINDS.indexOf('timer');

export const EXPORT_FORMATS = ['pprof', 'speedscope', 'collapsed'] as const;

/**
 * Why a format is refused for a profile alone. Chrome's trace format is a timeline: a TAU profile
 * holds totals per event and calling context, not when each call started, so any timeline written
 * from it would be invented; it is written from the run's trace (export-chrome.ts) when there is one.
 */
export const DROPPED_FORMATS: Record<string, string> = {
  chrome:
    'a Chrome trace is a timeline, and a profile holds totals per event and calling context, not when each call ran, ' +
    'so its times would be invented; record a trace (HYPROF_TRACE=1, docs/trace.md), or use --format speedscope ' +
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
export function exportFrame(tree: ExportTree, n: number): ExportFrame | null {
  const name = tree.names[n];
  switch (KINDS[tree.kind[n]]) {
    case 'timer':
      return { name, kind: 'timer' };
    case 'context': {
      const own = name.slice('[CONTEXT]'.length).trim();
      const p = tree.parent[n];
      return p >= 0 && tree.names[p] === own ? null : { name: own, kind: 'context' };
    }
    default: {
      const f = sampledCode(name);
      // A frame of a complete stack: JIT code (no object file) is named by its function's first line.
      const fr = tree.frame[n] >= 0 ? tree.frames[tree.frame[n]] : undefined;
      if (f && fr && fr[3] === '' && fr[1] !== '' && f.file !== undefined) f.startLine = fr[2];
      return f;
    }
  }
}

/** A stack as the walk hands it out; `frames` is valid until the next one is asked for. */
export interface WalkedStack {
  /** Root first: the walk's own path (copy what is kept). */
  frames: readonly ExportFrame[];
  /** Value no deeper frame explains. */
  value: number;
  calls: number;
  /** frames[0 .. fresh) are the frames of the stack before this one (what was worked out for them holds). */
  fresh: number;
}

const LEAVE = -1;

/**
 * Every node with a value of its own, in tree order (children by inclusive value), one at a time,
 * without a stack object per node. An explicit stack, not recursion: paths may be deeper than the
 * call stack allows. The value a node keeps is the part no child accounts for: a timer's children
 * are timers (inside its inclusive time) and [CONTEXT] nodes (its samples, inside its exclusive
 * time), so the timer keeps what its samples do not explain; sample nodes keep their own value
 * (event-tree.ts selfValue).
 */
export function* stacksIn(tree: ExportTree): Generator<WalkedStack> {
  const path: ExportFrame[] = [];
  const out: WalkedStack = { frames: path, value: 0, calls: 0, fresh: 0 };
  let low = 0;
  // Nodes to enter, and LEAVE where the frame pushed on entering a node is popped again.
  const pending: number[] = [];
  const roots = tree.sortedRoots().filter((r) => !isParamEvent(tree.groupOf(r)));
  for (let i = roots.length - 1; i >= 0; i--) pending.push(roots[i]);
  while (pending.length > 0) {
    const n = pending.pop()!;
    if (n === LEAVE) {
      path.pop();
      if (path.length < low) low = path.length;
      continue;
    }
    const f = exportFrame(tree, n);
    if (f) {
      path.push(f);
      pending.push(LEAVE);
    }
    const children = tree.sortedChildren(n);
    let v: number;
    if (tree.kind[n] === KIND_TIMER) {
      let sampled = 0;
      for (const c of children) if (tree.kind[c] !== KIND_TIMER) sampled += tree.incl[c];
      v = Math.max(0, tree.excl[n] - sampled);
    } else {
      let below = 0;
      for (const c of children) below += tree.incl[c];
      v = Math.max(0, tree.incl[n] - below);
    }
    if (v > 0) {
      out.value = v;
      out.calls = tree.calls[n];
      out.fresh = low;
      yield out;
      low = path.length;
    }
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
}

/** The thread's tree, from its events as `eventsOf` gives them (read from its file as they are needed, or in memory). */
export function threadTree(t: TauThreadProfile, eventsOf: EventsOf = inMemory): ExportTree {
  return exportTree((visit) => eventsOf(t, visit), t.stacks);
}

/**
 * Hands a thread's events to `visit` in file order: from the profile in memory, or read from its file
 * line by line as the export comes to it (export-source.ts).
 */
export type EventsOf = (t: TauThreadProfile, visit: (e: TauEvent) => void) => void;

const inMemory: EventsOf = (t, visit) => t.events.forEach((e) => visit(e));

export function threadName(t: TauThreadProfile): string {
  return namedThreadLabel(t);
}

/** Time metrics hold microseconds; anything else is a count. */
export function isTimeMetric(metric: string): boolean {
  return /TIME/i.test(metric);
}

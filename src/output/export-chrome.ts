/**
 * Chrome trace event JSON (chrome://tracing, Perfetto): one complete ("X") event per tree node,
 * pid = node, tid = thread. A profile has no timeline, so each node lasts its flame-graph width (its
 * own unexplained value plus its children's widths, event-tree.ts) and children are laid out one after
 * the other from their parent's start: every event nests inside its parent and a thread's events add
 * up to its total, as in the other exports.
 */
import type { TreeNode } from './event-tree.js';
import { flameWidths, stackRoots } from './event-tree.js';
import type { TauProfile } from './tau-model.js';
import { exportFrame, selectThreads, threadName, threadTree, type ExportSelection } from './export-common.js';

export interface ChromeEvent {
  name: string;
  cat: string;
  ph: 'X' | 'M';
  ts?: number;
  dur?: number;
  pid: number;
  tid: number;
  args: Record<string, unknown>;
}

export function exportChrome(profile: TauProfile, sel: ExportSelection = {}): { traceEvents: ChromeEvent[]; displayTimeUnit: 'ms'; otherData: Record<string, string> } {
  const { metric, threads } = selectThreads(profile, sel);
  const traceEvents: ChromeEvent[] = [];
  for (const t of threads) {
    const pid = t.node;
    const tid = t.context * 1_000_000 + t.thread;
    traceEvents.push({ name: 'thread_name', cat: '__metadata', ph: 'M', pid, tid, args: { name: threadName(t) } });
    const tree = threadTree(t);
    const widths = flameWidths(tree);
    const emit = (n: TreeNode, ts: number, dur: number): void => {
      const f = exportFrame(n);
      // A node that adds no frame ([CONTEXT] t under t) lays its children out in its own span.
      if (f) {
        traceEvents.push({
          name: f.name,
          cat: n.kind === 'timer' ? n.group || 'TAU' : n.kind,
          ph: 'X',
          ts,
          dur,
          pid,
          tid,
          args: { calls: n.calls, subrs: n.subrs, excl: n.excl, incl: n.incl, [metric]: n.incl, ...(f.file !== undefined ? { file: f.file, line: f.line } : {}) },
        });
      }
      let at = ts;
      for (const c of n.children) {
        const d = widths.get(c) ?? 0;
        emit(c, at, d);
        at += d;
      }
    };
    let at = 0;
    for (const r of stackRoots(tree)) {
      const d = widths.get(r) ?? 0;
      emit(r, at, d);
      at += d;
    }
  }
  return { traceEvents, displayTimeUnit: 'ms', otherData: { source: profile.dir, metric } };
}

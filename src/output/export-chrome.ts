/**
 * Chrome trace event JSON (chrome://tracing, Perfetto): one complete ("X") event per tree node,
 * pid = node, tid = thread. A profile has no timeline, so each node lasts its inclusive value and
 * children are laid out one after the other from their parent's start; when children (a timer's
 * samples beside its sub-timers) add up to more than the parent, they are scaled to fit so that
 * every event nests inside its parent.
 */
import type { TreeNode } from './event-tree.js';
import { stackRoots } from './event-tree.js';
import type { TauProfile } from './tau-model.js';
import { selectThreads, threadName, threadTree, type ExportSelection } from './export-common.js';

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
    const emit = (n: TreeNode, ts: number, dur: number): void => {
      traceEvents.push({
        name: n.name,
        cat: n.kind === 'timer' ? n.group || 'TAU' : n.kind,
        ph: 'X',
        ts,
        dur,
        pid,
        tid,
        args: { calls: n.calls, subrs: n.subrs, excl: n.excl, incl: n.incl, [metric]: n.incl },
      });
      const sum = n.children.reduce((s, c) => s + c.incl, 0);
      const scale = sum > dur && sum > 0 ? dur / sum : 1;
      let at = ts;
      for (const c of n.children) {
        const d = c.incl * scale;
        emit(c, at, d);
        at += d;
      }
    };
    let at = 0;
    for (const r of stackRoots(threadTree(t))) {
      emit(r, at, r.incl);
      at += r.incl;
    }
  }
  return { traceEvents, displayTimeUnit: 'ms', otherData: { source: profile.dir, metric } };
}

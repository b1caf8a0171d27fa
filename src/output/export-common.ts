/**
 * What every exporter shares: choosing the metric and threads, and walking a thread's event tree
 * into stacks. A stack's frames are the timer path, then `[CONTEXT] x`, `[UNWIND] …` and
 * `[SAMPLE] …` frames, so the hybrid structure survives in tools that only know call stacks. Each
 * stack carries the value no deeper frame explains (event-tree.ts selfValue), so stacks sum to the
 * thread's total without counting a sample twice.
 */
import { UserError } from '../base/errors.js';
import { selfValue, stackRoots, eventTree, type EventTree, type TreeNode } from './event-tree.js';
import { threadLabel, type TauProfile, type TauThreadProfile } from './tau-model.js';

export const EXPORT_FORMATS = ['pprof', 'speedscope', 'chrome', 'collapsed'] as const;
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

export interface Stack {
  /** Root first. */
  frames: TreeNode[];
  /** Value no deeper frame explains. */
  value: number;
  calls: number;
}

/** Every node with a value of its own, as a stack; deterministic order (tree order). */
export function stacksOf(tree: EventTree): Stack[] {
  const out: Stack[] = [];
  const path: TreeNode[] = [];
  const walk = (n: TreeNode): void => {
    path.push(n);
    const v = selfValue(n);
    if (v > 0) out.push({ frames: [...path], value: v, calls: n.calls });
    for (const c of n.children) walk(c);
    path.pop();
  };
  for (const r of stackRoots(tree)) walk(r);
  return out;
}

export function threadTree(t: TauThreadProfile): EventTree {
  return eventTree(t.events);
}

export function threadName(t: TauThreadProfile): string {
  return threadLabel(t);
}

/** Time metrics hold microseconds; anything else is a count. */
export function isTimeMetric(metric: string): boolean {
  return /TIME/i.test(metric);
}

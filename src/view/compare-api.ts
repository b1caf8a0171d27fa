/**
 * The viewer's compare mode: run A (the baseline) beside run B. The differences per event, sampled
 * function and line (report/diff.ts, as `hyprof diff`), and a differential flame graph: the frames
 * and widths of one run, each frame carrying its value in the other run so the page colours it by
 * the change.
 */
import { UserError } from '../base/errors.js';
import { buildDiff } from '../report/diff.js';
import { parseThreadSelector } from '../report/report-data.js';
import { flameWidths, stackRoots } from '../profile/event-tree.js';
import type { TauProfile } from '../profile/tau-model.js';
import { ApiError, ProfileApi, type Query } from './api.js';
import type { Stat } from './aggregate.js';
import { flameGraph, type FlameNode } from './flame.js';

export interface DiffFlameNode extends FlameNode {
  /** Width of the same path in the other run (0 when it has none). */
  other: number;
  children: DiffFlameNode[];
}

export class CompareApi {
  constructor(
    readonly a: ProfileApi,
    readonly b: ProfileApi,
  ) {}

  private metric(q: Query): string {
    const name = this.a.metricName(q);
    if (!this.b.profile.metrics.includes(name)) {
      throw new ApiError(400, `metric ${name} is not in ${this.b.profile.dir} (it has ${this.b.profile.metrics.join(', ')})`);
    }
    return name;
  }

  summary(): unknown {
    const p = this.b.profile;
    return { dir: p.dir, metrics: p.metrics, threadCount: p.threads[0].length, common: this.a.profile.metrics.filter((m) => p.metrics.includes(m)) };
  }

  /** Thread `i` of run A as n,c,t, the key both runs share (their indices may differ). */
  private nct(metric: string, i: number): string {
    const t = this.a.profile.threads[this.a.profile.metrics.indexOf(metric)][i];
    return `${t.node},${t.context},${t.thread}`;
  }

  /** The index in `run` of the thread n,c,t `key`, or undefined when the run has none. */
  private indexIn(run: ProfileApi, metric: string, key: string): number | undefined {
    const i = run.profile.threads[run.profile.metrics.indexOf(metric)].findIndex((t) => `${t.node},${t.context},${t.thread}` === key);
    return i < 0 ? undefined : i;
  }

  /** The comparison of `hyprof diff` for the mean thread or one thread (by A's index; B's same n,c,t). */
  diff(q: Query): unknown {
    const metric = this.metric(q);
    const thread = this.a.threadOf(q);
    if (thread !== 'mean' && typeof thread !== 'number') throw new ApiError(400, `the comparison is of the mean or one thread, not the ${thread}`);
    let sel = parseThreadSelector('mean');
    if (typeof thread === 'number') {
      const key = this.nct(metric, thread);
      if (this.indexIn(this.b, metric, key) === undefined) throw new ApiError(404, `thread n,c,t ${key} is not in ${this.b.profile.dir}`);
      sel = parseThreadSelector(key);
    }
    try {
      return buildDiff(this.a.profile, this.b.profile, { metric, thread: sel });
    } catch (e) {
      if (e instanceof UserError) throw new ApiError(404, e.message);
      throw e;
    }
  }

  /**
   * Flame graph of run `width` (b by default) for the thread or statistic, each frame with `other`:
   * its width in the other run, so colour shows the change.
   */
  flame(q: Query): DiffFlameNode {
    const metric = this.metric(q);
    const thread = this.a.threadOf(q);
    const widthRun = q.get('width') === 'a' ? 'a' : 'b';
    const [main, other] = widthRun === 'a' ? [this.a, this.b] : [this.b, this.a];
    // One thread is the same n,c,t in both runs, whatever its index in each.
    const key = typeof thread === 'number' ? this.nct(metric, thread) : undefined;
    const threadIn = (run: ProfileApi) => (key === undefined ? (thread as Stat) : this.indexIn(run, metric, key));
    const mainThread = threadIn(main);
    if (mainThread === undefined) throw new ApiError(404, `thread n,c,t ${key} is not in ${main.profile.dir}`);
    const tree = main.treeFor(metric, mainThread);
    if (!tree) throw new ApiError(404, `metric ${metric} is not in ${main.profile.dir}`);
    const otherThread = threadIn(other);
    const otherTree = otherThread === undefined ? undefined : other.treeFor(metric, otherThread);
    const minFraction = Number(q.get('min') ?? '0.0005');
    const f = flameGraph(tree, { minFraction: minFraction >= 0 && minFraction < 1 ? minFraction : 0.0005, maxNodes: 5000 });
    if (!f) throw new ApiError(404, 'no flame graph');
    const ow = otherTree ? flameWidths(otherTree) : new Map();
    const otherTotal = otherTree ? stackRoots(otherTree).reduce((s, r) => s + (ow.get(r) ?? 0), 0) : 0;
    // Frames of complete stacks come without their path: it is their parent's and their name.
    const annotate = (n: FlameNode, above: string): DiffFlameNode => {
      const path = n.path ?? `${above} => ${n.name}`;
      const on = path === '' ? undefined : otherTree?.byPath.get(path);
      return { ...n, other: path === '' ? otherTotal : on ? (ow.get(on) ?? 0) : 0, children: n.children.map((c) => annotate(c, path)) };
    };
    return { ...annotate(f, ''), widthFrom: widthRun } as DiffFlameNode;
  }
}

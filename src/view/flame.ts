/**
 * Flame graph data from the event tree: a node's width is its own unexplained value plus its
 * children's widths (profile/event-tree.ts selfValue), so samples nest inside the timer they were
 * taken in.
 * The server prunes what would be narrower than a pixel and bounds the node count, so a profile
 * with 100,000 events still sends a small answer.
 */
import { flameWidths, selfValue, stackRoots, type EventTree, type NodeKind, type TreeNode } from '../profile/event-tree.js';
import { frameLabel, type FrameRole } from './labels.js';

export { flameWidths };

export interface FlameNode {
  /** TAU's node name (the tooltip and the details line show it). */
  name: string;
  /** What the frame reads: the function name, or the timer / phase / parameter value (labels.ts). */
  label: string;
  role: FrameRole;
  /** Source position of sampled code. */
  file?: string;
  line?: number;
  /** Left out for the frames of complete stacks (a stacks file): their paths grow with their depth,
   * and the page builds them from the parent's path and the name. */
  path?: string;
  kind: NodeKind;
  /** Width: self + children's widths. */
  value: number;
  self: number;
  incl: number;
  calls: number;
  children: FlameNode[];
}

export interface FlameOptions {
  /** Path of the node to start from; default all roots under a synthetic "all". */
  root?: string;
  /** Drop nodes narrower than this fraction of the root. */
  minFraction?: number;
  maxNodes?: number;
}

export function flameGraph(tree: EventTree, opts: FlameOptions = {}): FlameNode | undefined {
  const w = flameWidths(tree);
  const minFraction = opts.minFraction ?? 0.0005;
  let budget = opts.maxNodes ?? 5000;
  const start = opts.root ? tree.byPath.get(opts.root) : undefined;
  if (opts.root && !start) return undefined;
  const tops = start ? [start] : stackRoots(tree);
  const total = tops.reduce((s, r) => s + (w.get(r) ?? 0), 0);
  const threshold = total * minFraction;
  // A timer's own `[CONTEXT] t` adds nothing a reader needs (every export leaves it out): its
  // children hang under the timer directly, with their paths, since the page can no longer build
  // them from the parent's. What the context itself keeps (normally 0) stays in the timer's width.
  const spliced = (c: TreeNode): boolean => c.kind === 'context' && frameLabel(c).role === 'samples';
  const convert = (n: TreeNode, explicitPath = false): FlameNode => {
    budget--;
    const kids: Array<[TreeNode, boolean]> = [];
    for (const c of n.children) {
      if (spliced(c)) for (const g of c.children) kids.push([g, true]);
      else kids.push([c, false]);
    }
    const shown = kids.filter(([c]) => (w.get(c) ?? 0) > threshold).sort(([a], [b]) => (w.get(b) ?? 0) - (w.get(a) ?? 0));
    const children: FlameNode[] = [];
    for (const [c, under] of shown) {
      if (budget <= 0) break;
      children.push(convert(c, under));
    }
    const path = n.frame && n !== start && !explicitPath ? {} : { path: n.path };
    const l = frameLabel(n);
    return { name: n.name, ...l, ...path, kind: n.kind, value: w.get(n) ?? 0, self: selfValue(n), incl: n.incl, calls: n.calls, children };
  };
  if (start) return convert(start);
  const children: FlameNode[] = [];
  for (const r of [...tops].sort((a, b) => (w.get(b) ?? 0) - (w.get(a) ?? 0))) {
    if (budget <= 0 || (w.get(r) ?? 0) <= threshold) break;
    children.push(convert(r));
  }
  return { name: 'all', label: 'all', role: 'timer', path: '', kind: 'timer', value: total, self: 0, incl: total, calls: 0, children };
}

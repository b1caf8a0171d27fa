/**
 * The event-path tree of one thread (or of an aggregate over threads), built from TAU's `a => b`
 * event names. Hybrid profiles put `[CONTEXT]`, `[UNWIND]` and `[SAMPLE]` parts at the end of a
 * timer's path, so they unfold under the timer they were taken in. The viewer, the flame graph and
 * every exporter walk this tree, so they agree on structure and values.
 */
import { displayName, inDisplayForm, type TauEvent } from './tau-model.js';

export type NodeKind = 'timer' | 'context' | 'unwind' | 'sample';

export interface TreeNode {
  id: number;
  /** Display name of this path part (spaces collapsed, as TAU's readers show it). */
  name: string;
  /** Display names from the root down to this node, joined by ' => ': the node's stable key. */
  path: string;
  kind: NodeKind;
  parent: TreeNode | null;
  children: TreeNode[];
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  group: string;
  /** True when no event of the profile names this path: values are summed from the children. */
  derived: boolean;
}

export interface EventTree {
  roots: TreeNode[];
  nodes: TreeNode[];
  byPath: Map<string, TreeNode>;
}

export function kindOf(name: string): NodeKind {
  if (name.startsWith('[CONTEXT]')) return 'context';
  if (name.startsWith('[UNWIND]')) return 'unwind';
  if (name.startsWith('[SAMPLE]')) return 'sample';
  return 'timer';
}

/** Parts of an event name; TAU separates them by ' => ' (with two spaces before a [CONTEXT] part). */
export function splitPath(name: string): string[] {
  return name.split(/ +=> +/).map(displayName);
}

/** `[SAMPLE] f [{file} {line}]` (and UNWIND frames that end the same way): the source position. */
export function sourceOf(name: string): { file: string; line: number } | undefined {
  const m = /\[\{([^{}]+)\} \{(\d+)(?:, *\d+)?\}\]\s*$/.exec(name);
  if (!m) return undefined;
  return { file: m[1], line: Number(m[2]) };
}

/** True for parameter-profile events: they repeat their timer's time, so sums must skip them. */
export function isParamEvent(group: string): boolean {
  return group.split('|').some((g) => g.trim() === 'TAU_PARAM');
}

export function buildTree(events: readonly TauEvent[]): EventTree {
  const nodes: TreeNode[] = [];
  const byPath = new Map<string, TreeNode>();
  const roots: TreeNode[] = [];
  const flat = new Map<string, TauEvent>();
  const inPaths = new Set<string>();

  // `whole`: the event's name, when it is already the path of parts (tau-model.ts inDisplayForm).
  const node = (parts: string[], upTo: number, whole?: string): TreeNode => {
    const path = whole ?? parts.slice(0, upTo + 1).join(' => ');
    let n = byPath.get(path);
    if (n) return n;
    const parent = upTo > 0 ? node(parts, upTo - 1) : null;
    n = {
      id: nodes.length,
      name: parts[upTo],
      path,
      kind: kindOf(parts[upTo]),
      parent,
      children: [],
      calls: 0,
      subrs: 0,
      excl: 0,
      incl: 0,
      group: '',
      derived: true,
    };
    nodes.push(n);
    byPath.set(path, n);
    if (parent) parent.children.push(n);
    else roots.push(n);
    return n;
  };
  const assign = (n: TreeNode, e: TauEvent): void => {
    n.calls += e.calls;
    n.subrs += e.subrs;
    n.excl += e.excl;
    n.incl += e.incl;
    n.group = e.group;
    n.derived = false;
  };

  for (const e of events) {
    const parts = splitPath(e.name);
    if (parts.length === 1) {
      flat.set(parts[0], e);
      continue;
    }
    for (const p of parts) inPaths.add(p);
    assign(node(parts, parts.length - 1, inDisplayForm(e.name) ? e.name : undefined), e);
  }
  // Path roots take their values from the flat entry of the same name.
  for (const r of roots) {
    const e = flat.get(r.name);
    if (r.derived && e) assign(r, e);
  }
  // Flat events that no path mentions are trees of their own (flat profiles). Parameter profiles are
  // not: they repeat their timer's time, and their samples hang under the timer as [CONTEXT] nodes.
  for (const [name, e] of flat) {
    if (!inPaths.has(name) && !isParamEvent(e.group)) assign(node([name], 0), e);
  }
  graftTruncatedPaths(roots, nodes);
  fillDerived(roots);
  for (const n of nodes) n.children.sort((a, b) => b.incl - a.incl);
  roots.sort((a, b) => b.incl - a.incl);
  return { roots, nodes, byPath };
}

/**
 * Depth-limited event paths (TAU_CALLPATH_DEPTH) start below the root: `main => f` beside
 * `.TAU application => main`. When the root name occurs exactly once elsewhere, as a node without
 * timers below it (its samples may be there), the place is unambiguous and the truncated tree is
 * hung there.
 */
function graftTruncatedPaths(roots: TreeNode[], nodes: TreeNode[]): void {
  const byName = new Map<string, TreeNode[]>();
  for (const n of nodes) {
    if (!n.parent) continue;
    const list = byName.get(n.name);
    if (list) list.push(n);
    else byName.set(n.name, [n]);
  }
  // A graft only gives timers to a node that had none, which never makes another graft possible, so
  // passes end quickly; each pass is linear in the number of roots.
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = roots.length - 1; i >= 0; i--) {
      const r = roots[i];
      if (r.children.length === 0) continue;
      // Recursion (`f => f` at depth 2) names r below r itself: those places do not count.
      const at = (byName.get(r.name) ?? []).filter((n) => !isUnder(n, r));
      if (at.length !== 1 || at[0].children.some((c) => c.kind === 'timer')) continue;
      const taken = new Set(at[0].children.map((c) => c.name));
      if (r.children.some((c) => taken.has(c.name))) continue;
      for (const c of r.children) reparent(c, at[0]);
      r.children = [];
      roots.splice(i, 1);
      changed = true;
    }
  }
}

function isUnder(n: TreeNode, ancestor: TreeNode): boolean {
  for (let p: TreeNode | null = n; p; p = p.parent) if (p === ancestor) return true;
  return false;
}

function reparent(c: TreeNode, target: TreeNode): void {
  c.parent = target;
  target.children.push(c);
  const fix = (n: TreeNode): void => {
    n.path = `${n.parent!.path} => ${n.name}`;
    for (const k of n.children) fix(k);
  };
  fix(c);
}

function fillDerived(roots: TreeNode[]): void {
  const walk = (n: TreeNode): void => {
    for (const c of n.children) walk(c);
    if (n.derived) {
      n.incl = n.children.reduce((s, c) => s + c.incl, 0);
      n.calls = n.children.reduce((s, c) => s + c.calls, 0);
      n.group = n.children[0]?.group ?? '';
    }
  };
  for (const r of roots) walk(r);
}

/** Rebuild the path index after grafting (paths of moved nodes changed). */
export function indexTree(tree: EventTree): EventTree {
  const byPath = new Map<string, TreeNode>();
  const nodes: TreeNode[] = [];
  const walk = (n: TreeNode): void => {
    n.id = nodes.length;
    nodes.push(n);
    byPath.set(n.path, n);
    for (const c of n.children) walk(c);
  };
  for (const r of tree.roots) walk(r);
  return { roots: tree.roots, nodes, byPath };
}

/**
 * The part of a node's value no child accounts for. A timer's children are timers (inside its
 * inclusive time) and [CONTEXT] nodes (its samples, inside its exclusive time), so the timer keeps
 * what its samples do not explain; sample nodes keep their own value.
 */
export function selfValue(n: TreeNode): number {
  if (n.kind === 'timer') {
    const sampled = n.children.reduce((s, c) => (c.kind === 'timer' ? s : s + c.incl), 0);
    return Math.max(0, n.excl - sampled);
  }
  const below = n.children.reduce((s, c) => s + c.incl, 0);
  return Math.max(0, n.incl - below);
}

/** Roots whose time is not repeated elsewhere (parameter profiles repeat their timer's). */
export function stackRoots(tree: EventTree): TreeNode[] {
  return tree.roots.filter((r) => !isParamEvent(r.group));
}

/** Build and index in one step: what callers want. */
export function eventTree(events: readonly TauEvent[]): EventTree {
  return indexTree(buildTree(events));
}

const widths = new WeakMap<EventTree, Map<TreeNode, number>>();

/**
 * Flame-graph width of every node of a tree (computed once per tree): its own unexplained value plus
 * its children's widths, so samples nest inside the timer they were taken in. The viewer's flame
 * graph lays nodes out by it.
 */
export function flameWidths(tree: EventTree): Map<TreeNode, number> {
  let w = widths.get(tree);
  if (w) return w;
  w = new Map();
  const m = w;
  const walk = (n: TreeNode): number => {
    let v = selfValue(n);
    for (const c of n.children) v += walk(c);
    m.set(n, v);
    return v;
  };
  for (const r of tree.roots) walk(r);
  widths.set(tree, m);
  return m;
}

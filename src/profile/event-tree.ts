/**
 * The event-path tree of one thread (or of an aggregate over threads), built from TAU's `a => b`
 * event names. Hybrid profiles put `[CONTEXT]`, `[UNWIND]` and `[SAMPLE]` parts at the end of a
 * timer's path, so they unfold under the timer they were taken in. The viewer, the flame graph and
 * every exporter walk this tree, so they agree on structure and values.
 */
import { displayName, inDisplayForm, type TauEvent, type ThreadStackView } from './tau-model.js';

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
  /** A node of a complete stack (stacks file): its frame, [function, file, line, object file]. */
  frame?: [string, string, number, string];
}

export interface EventTree {
  roots: TreeNode[];
  nodes: TreeNode[];
  byPath: PathIndex;
}

/**
 * Nodes by path. The nodes of complete stacks (spliceStacks) are not indexed: their paths grow with
 * their depth, so they are computed when asked for and found by walking down from the deepest
 * indexed node of the path.
 */
export class PathIndex {
  private readonly map = new Map<string, TreeNode>();

  set(path: string, n: TreeNode): void {
    this.map.set(path, n);
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  get(path: string): TreeNode | undefined {
    const hit = this.map.get(path);
    if (hit) return hit;
    const parts = path.split(' => ');
    // The deepest indexed prefix, then down by name.
    for (let k = parts.length - 1; k >= 1; k--) {
      let n = this.map.get(parts.slice(0, k).join(' => '));
      if (!n) continue;
      for (let j = k; j < parts.length && n; j++) n = n.children.find((c) => c.name === parts[j]);
      return n;
    }
    return undefined;
  }
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

export function buildTree(events: readonly TauEvent[], stacks?: ThreadStackView): EventTree {
  let nodes: TreeNode[] = [];
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
  if (stacks) nodes = spliceStacks(stacks, byPath, nodes);
  graftTruncatedPaths(roots, nodes);
  fillDerived(roots);
  for (const n of nodes) n.children.sort((a, b) => b.incl - a.incl);
  roots.sort((a, b) => b.incl - a.incl);
  const index = new PathIndex();
  for (const [k, n] of byPath) index.set(k, n);
  return { roots, nodes, byPath: index };
}

/** A frame of a stacks file as a node name, in the words of the profile's [SAMPLE] names. */
function stackFrameName(f: [string, string, number, string], inner: boolean): string {
  const [fn, file, line] = f;
  const placeholder = (!file && line === 0 && (fn.startsWith('<') || fn.startsWith('('))) || fn.startsWith('UNRESOLVED ');
  return displayName(`${inner ? '[UNWIND]' : '[SAMPLE]'} ${placeholder ? fn : `${fn} [{${file}} {${line}}]`}`);
}

/** A node of a complete stack: its path is its parent's and its name, computed when asked for. */
class StackNode implements TreeNode {
  id = 0;
  children: TreeNode[] = [];
  calls = 0;
  subrs = 0;
  excl = 0;
  incl = 0;
  group = 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH';
  derived = false;
  constructor(
    public name: string,
    public kind: NodeKind,
    public parent: TreeNode | null,
    public frame: [string, string, number, string],
  ) {}
  get path(): string {
    return `${this.parent!.path} => ${this.name}`;
  }
  set path(_: string) {
    // always its parent's path and its name (reparenting moves it with its parent)
  }
}

/**
 * The complete stacks of a stacks file in place of the [UNWIND] chains and [SAMPLE] leaves under
 * each sample context they cover: the same samples, every frame (docs/assembly.md). Returns the
 * node list without the nodes replaced.
 */
function spliceStacks(s: ThreadStackView, byPath: Map<string, TreeNode>, nodes: TreeNode[]): TreeNode[] {
  const contexts = s.contexts.map((c) => byPath.get(splitPath(c).join(' => ')));
  const removed = new Set<TreeNode>();
  const drop = (n: TreeNode): void => {
    removed.add(n);
    byPath.delete(n.path);
    for (const c of n.children) drop(c);
  };
  for (const ctx of contexts) {
    if (!ctx) continue;
    for (const c of ctx.children) if (c.kind === 'unwind' || c.kind === 'sample') drop(c);
    ctx.children = ctx.children.filter((c) => !removed.has(c));
  }
  const n = s.parent.length;
  const inner = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (s.parent[i] >= 0) inner[s.parent[i]] = 1;
  const made: Array<StackNode | undefined> = new Array(n);
  const kept = nodes.filter((x) => !removed.has(x));
  for (let i = 0; i < n; i++) {
    const p = s.parent[i];
    const parent = p < 0 ? contexts[-p - 1] : made[p];
    if (!parent) continue;
    const frame = s.frames[s.frame[i]];
    const node = new StackNode(stackFrameName(frame, inner[i] === 1), inner[i] ? 'unwind' : 'sample', parent, frame);
    node.calls = s.samples[i];
    node.excl = s.values[i];
    node.incl = s.values[i];
    parent.children.push(node);
    made[i] = node;
    kept.push(node);
  }
  // Inclusive values: children come after their parent, so one backward pass sums them up.
  for (let i = n - 1; i >= 0; i--) {
    const p = s.parent[i];
    if (p >= 0 && made[i] && made[p]) {
      made[p]!.incl += made[i]!.incl;
      made[p]!.calls += made[i]!.calls;
    }
  }
  return kept;
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
  const byPath = new PathIndex();
  const nodes: TreeNode[] = [];
  const walk = (n: TreeNode): void => {
    n.id = nodes.length;
    nodes.push(n);
    if (!(n instanceof StackNode)) byPath.set(n.path, n);
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
export function eventTree(events: readonly TauEvent[], stacks?: ThreadStackView): EventTree {
  return indexTree(buildTree(events, stacks));
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

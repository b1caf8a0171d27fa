/**
 * The event-path tree of `hyprof report --callpath`, built line by line in columns: a thread of
 * millions of paths is held as a tree of parts (each node its last part and its parent, no path
 * strings), and handed out as light views that make their path and children when asked (text and
 * JSON walk them one branch at a time).
 *
 * The tree is TAU's: a path's parent is its prefix; a single-event prefix with no path entry of its
 * own is the flat event (TAU's depth-limited paths start below the root, so several roots appear);
 * a path whose prefix has no entry of its own is a root shown whole. Children are ordered hottest
 * first (then by name), and sample subtrees keep only their hottest children.
 */
import { ownString } from '../profile/tau-reader.js';

/** One node of the event-path tree (CallTreeView below makes them as they are walked). */
export interface CallTreeNode {
  /** The last event of the path, as displayed. */
  readonly name: string;
  /** The full event path (display form), or the flat name for a root without a path entry. */
  readonly path: string;
  readonly calls: number;
  readonly subrs: number;
  readonly excl: number;
  readonly incl: number;
  readonly children: CallTreeNode[];
  /** Children left out (beyond the hot-lines limit under sample nodes), and their summed value. */
  readonly omitted?: { count: number; incl: number };
}

/** A column of numbers that grows as it is pushed to. */
class Column<A extends Float64Array | Int32Array> {
  length = 0;
  constructor(
    public data: A,
    private readonly make: (n: number) => A,
  ) {}

  push(v: number): number {
    if (this.length === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length] = v;
    return this.length++;
  }
}

const f64 = (): Column<Float64Array> => new Column(new Float64Array(1024), (n) => new Float64Array(n));
const i32 = (): Column<Int32Array> => new Column(new Int32Array(1024), (n) => new Int32Array(n));

/** The values of a single-event (flat) line, for the roots made of flat events. */
export interface FlatValues {
  name: string;
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
}

/** The tree being read: one node per distinct prefix of the paths seen. */
export class CallTreeBuilder {
  private readonly part: string[] = [];
  /** Parent node, -1 for a first part. */
  private readonly parent = i32();
  /** The only child so far (-1: none), until a second one moves them to `many`. */
  private readonly only = i32();
  private readonly many = new Map<number, Map<string, number>>();
  private readonly firstParts = new Map<string, number>();
  private readonly calls = f64();
  private readonly subrs = f64();
  private readonly excl = f64();
  private readonly incl = f64();
  /** Nodes that are path entries, in the order their first line came. */
  private readonly entries = i32();
  private readonly isEntry = i32();
  /** The flat lines, in file order (the last of a name gives a root its values, as TAU's readers). */
  private readonly flats: FlatValues[] = [];

  /** A single-event line. */
  flat(v: FlatValues): void {
    this.flats.push(v);
  }

  /** A path line, as its parts in display form (at least two). */
  path(parts: string[], calls: number, subrs: number, excl: number, incl: number): void {
    let at = this.firstParts.get(parts[0]);
    if (at === undefined) {
      at = this.node(parts[0], -1);
      this.firstParts.set(this.part[at], at);
    }
    for (let i = 1; i < parts.length; i++) at = this.child(at, parts[i]);
    if (this.isEntry.data[at] === 0) {
      this.isEntry.data[at] = 1;
      this.entries.push(at);
    }
    // The same path twice (names that differ only in spaces) is one node: summed.
    this.calls.data[at] += calls;
    this.subrs.data[at] += subrs;
    this.excl.data[at] += excl;
    this.incl.data[at] += incl;
  }

  /** A new node; its part is copied (the maps are keyed by the copy: a part cut from a line holds the line). */
  private node(part: string, parent: number): number {
    this.part.push(ownString(part));
    this.parent.push(parent);
    this.only.push(-1);
    this.calls.push(0);
    this.subrs.push(0);
    this.excl.push(0);
    this.incl.push(0);
    return this.isEntry.push(0);
  }

  private child(at: number, part: string): number {
    const kids = this.many.get(at);
    if (kids) {
      let c = kids.get(part);
      if (c === undefined) {
        c = this.node(part, at);
        kids.set(this.part[c], c);
      }
      return c;
    }
    const only = this.only.data[at];
    if (only < 0) {
      const c = this.node(part, at);
      this.only.data[at] = c;
      return c;
    }
    if (this.part[only] === part) return only;
    const c = this.node(part, at);
    this.many.set(
      at,
      new Map([
        [this.part[only], only],
        [this.part[c], c],
      ]),
    );
    return c;
  }

  /** The finished tree's roots, hottest first; `hotLimit` children kept under sample nodes. */
  finish(hotLimit: number): CallTreeNode[] {
    this.many.clear();
    this.firstParts.clear();
    const n = this.part.length;
    if (this.entries.length === 0) return [];
    const { parent, isEntry } = this;
    // Where each entry hangs: under its parent entry, under the flat event of its first part, or
    // (a path cut by the recording depth) as a root of its own, shown whole.
    const roots: number[] = [];
    const flatRoot = new Map<string, number>();
    const cut = new Map<number, string>();
    const under = new Int32Array(this.entries.length);
    const count = new Int32Array(n + 1);
    for (let e = 0; e < this.entries.length; e++) {
      const node = this.entries.data[e];
      const p = parent.data[node];
      let to = -1;
      if (isEntry.data[p] === 1) to = p;
      else if (parent.data[p] === -1) {
        if (!flatRoot.has(this.part[p])) {
          flatRoot.set(this.part[p], p);
          roots.push(p);
        }
        to = p;
      } else {
        cut.set(node, this.pathOf(node));
        roots.push(node);
      }
      under[e] = to;
      if (to >= 0) count[to + 1]++;
    }
    // The roots made of flat events take the values of their flat line (the last of that name).
    for (const f of this.flats) {
      const r = flatRoot.get(f.name);
      if (r === undefined) continue;
      this.calls.data[r] = f.calls;
      this.subrs.data[r] = f.subrs;
      this.excl.data[r] = f.excl;
      this.incl.data[r] = f.incl;
    }
    this.flats.length = 0;
    // Children of node i: kids[start[i], start[i + 1]), in the order their first line came.
    const start = count;
    for (let i = 0; i < n; i++) start[i + 1] += start[i];
    const kids = new Int32Array(start[n]);
    const fill = start.slice(0, n);
    for (let e = 0; e < this.entries.length; e++) if (under[e] >= 0) kids[fill[under[e]]++] = this.entries.data[e];
    const nameOf = (i: number): string => cut.get(i) ?? this.part[i];
    const incl = this.incl.data;
    const order = (list: number[]) => list.sort((a, b) => incl[b] - incl[a] || (nameOf(a) < nameOf(b) ? -1 : 1));
    order(roots);
    // Every node's children in order (an explicit stack: paths may be deeper than recursion allows);
    // sample subtrees can be wide: keep the hottest children of context and unwind nodes.
    const kept = new Int32Array(n);
    const omitted = new Map<number, { count: number; incl: number }>();
    const pending = roots.slice();
    while (pending.length > 0) {
      const i = pending.pop()!;
      const from = start[i];
      const to = start[i + 1];
      if (to - from > 1) kids.set(order(Array.from(kids.subarray(from, to))), from);
      let keep = to - from;
      const name = nameOf(i);
      if ((name.startsWith('[CONTEXT]') || name.startsWith('[UNWIND]')) && keep > hotLimit) {
        keep = hotLimit;
        let sum = 0;
        for (let k = from + hotLimit; k < to; k++) sum += incl[kids[k]];
        omitted.set(i, { count: to - from - hotLimit, incl: sum });
      }
      kept[i] = keep;
      for (let k = from; k < from + keep; k++) pending.push(kids[k]);
    }
    const tree: FinishedTree = {
      part: this.part,
      calls: this.calls.data,
      subrs: this.subrs.data,
      excl: this.excl.data,
      incl,
      kids,
      start,
      kept,
      omitted,
      cut,
    };
    return roots.map((r) => new CallTreeView(tree, r, undefined));
  }

  /** A node's whole path in display form. */
  private pathOf(i: number): string {
    const parts: string[] = [];
    for (let at = i; at >= 0; at = this.parent.data[at]) parts.push(this.part[at]);
    return parts.reverse().join(' => ');
  }
}

interface FinishedTree {
  part: string[];
  calls: Float64Array;
  subrs: Float64Array;
  excl: Float64Array;
  incl: Float64Array;
  kids: Int32Array;
  start: Int32Array;
  /** Children shown (the first ones of kids). */
  kept: Int32Array;
  omitted: Map<number, { count: number; incl: number }>;
  /** Roots shown whole: their path. */
  cut: Map<number, string>;
}

/** One node of a finished tree, a CallTreeNode whose children are made when asked. */
class CallTreeView implements CallTreeNode {
  constructor(
    private readonly tree: FinishedTree,
    private readonly i: number,
    /** The parent's path, undefined for a root. */
    private readonly parentPath: string | undefined,
  ) {}

  get name(): string {
    return this.tree.cut.get(this.i) ?? this.tree.part[this.i];
  }

  get path(): string {
    return this.parentPath === undefined ? this.name : `${this.parentPath} => ${this.tree.part[this.i]}`;
  }

  get calls(): number {
    return this.tree.calls[this.i];
  }

  get subrs(): number {
    return this.tree.subrs[this.i];
  }

  get excl(): number {
    return this.tree.excl[this.i];
  }

  get incl(): number {
    return this.tree.incl[this.i];
  }

  get children(): CallTreeNode[] {
    const { start, kept, kids } = this.tree;
    const path = this.path;
    const out: CallTreeNode[] = [];
    for (let k = start[this.i], end = k + kept[this.i]; k < end; k++) out.push(new CallTreeView(this.tree, kids[k], path));
    return out;
  }

  get omitted(): { count: number; incl: number } | undefined {
    return this.tree.omitted.get(this.i);
  }

  /** The node as plain data, in the order of its fields (JSON.stringify and jsonPieces call it). */
  toJSON(): object {
    const omitted = this.omitted;
    return {
      name: this.name,
      path: this.path,
      calls: this.calls,
      subrs: this.subrs,
      excl: this.excl,
      incl: this.incl,
      children: this.children,
      ...(omitted ? { omitted } : {}),
    };
  }
}

/**
 * The event-path tree of one thread for the exporters, in columns: the same tree as event-tree.ts
 * buildTree (same nodes, values, order), without an object per node. A thread of 10^6 phases has
 * 2,000,000 contexts; as TreeNode objects with their path strings the tree alone took ~280 bytes a
 * context, here it takes about 100 (a name string and a few typed-array slots). Built from events as
 * they are read (tau-reader.ts readThreadLines), so the parsed thread is never held either.
 *
 * What buildTree does, step by step, and kept so here (the exports' output must not change):
 * path events make nodes (parents first); flat events give path roots their values, and those no
 * path names become roots; a stacks file's complete stacks replace the sampled chains under their
 * contexts; depth-limited paths are grafted; derived nodes sum their children; children and roots
 * are ordered by inclusive value (stable). test/export-tree.test.ts compares the two.
 */
import { isParamEvent, kindOf, splitPath, type NodeKind } from '../profile/event-tree.js';
import type { TauEvent, ThreadStackView } from '../profile/tau-model.js';
import { ownString } from '../profile/tau-reader.js';

export const KINDS: readonly NodeKind[] = ['timer', 'context', 'unwind', 'sample'];
const TIMER = 0;
const KIND_ID: Record<NodeKind, number> = { timer: 0, context: 1, unwind: 2, sample: 3 };
const DERIVED = 1;
const REMOVED = 2;
/** A parent's children are found by a scan up to this many, by a map beyond. */
const SCAN_CHILDREN = 8;
const STACK_GROUP = 'TAU_UNWIND|TAU_SAMPLE|TAU_CALLPATH';

export class ExportTree {
  count = 0;
  private cap = 0;
  readonly names: string[] = [];
  parent = new Int32Array(0);
  private first = new Int32Array(0);
  private last = new Int32Array(0);
  private next = new Int32Array(0);
  private nChildren = new Int32Array(0);
  kind = new Uint8Array(0);
  private flags = new Uint8Array(0);
  calls = new Float64Array(0);
  excl = new Float64Array(0);
  incl = new Float64Array(0);
  private group = new Int32Array(0);
  /** Index into `frames` (a node of a complete stack), else -1. */
  frame = new Int32Array(0);
  /** The stacks file's frames, [function, file, line, object], when the thread has complete stacks. */
  frames: ThreadStackView['frames'] = [];
  private readonly groups: string[] = [];
  private readonly groupIds = new Map<string, number>();
  /** Roots in the order they were made (sorted by rootsInOrder). */
  private roots: number[] = [];
  private rootByName: Map<string, number> | null = new Map();
  /** Short names met so far, one string each ("work" under a million phases is one string). */
  private shortNames = new Map<string, string>();
  private childMaps: Map<number, Map<string, number>> | null = new Map();

  private grow(): void {
    const cap = Math.max(1024, this.cap * 2);
    const more = <T extends Int32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    const i32 = (n: number) => new Int32Array(n);
    const u8 = (n: number) => new Uint8Array(n);
    const f64 = (n: number) => new Float64Array(n);
    this.parent = more(this.parent, i32);
    this.first = more(this.first, i32);
    this.last = more(this.last, i32);
    this.next = more(this.next, i32);
    this.nChildren = more(this.nChildren, i32);
    this.kind = more(this.kind, u8);
    this.flags = more(this.flags, u8);
    this.calls = more(this.calls, f64);
    this.excl = more(this.excl, f64);
    this.incl = more(this.incl, f64);
    this.group = more(this.group, i32);
    this.frame = more(this.frame, i32);
    this.cap = cap;
  }

  groupId(g: string): number {
    let id = this.groupIds.get(g);
    if (id === undefined) {
      id = this.groups.length;
      this.groups.push(g);
      this.groupIds.set(g, id);
    }
    return id;
  }

  groupOf(n: number): string {
    return this.groups[this.group[n]];
  }

  groupName(id: number): string {
    return this.groups[id];
  }

  isDerived(n: number): boolean {
    return (this.flags[n] & DERIVED) !== 0;
  }

  /** A new node, last child of `parent` (-1: a new root). `name` must be an own string. */
  private add(name: string, kind: number, parent: number, derived: boolean): number {
    if (this.count === this.cap) this.grow();
    const n = this.count++;
    this.names.push(name);
    this.kind[n] = kind;
    this.flags[n] = derived ? DERIVED : 0;
    this.first[n] = -1;
    this.last[n] = -1;
    this.next[n] = -1;
    this.frame[n] = -1;
    this.group[n] = this.groupId('');
    if (parent < 0) {
      this.parent[n] = -1;
      this.roots.push(n);
    } else this.append(n, parent);
    return n;
  }

  private append(n: number, parent: number): void {
    this.parent[n] = parent;
    this.next[n] = -1;
    if (this.last[parent] < 0) this.first[parent] = n;
    else this.next[this.last[parent]] = n;
    this.last[parent] = n;
    this.nChildren[parent]++;
  }

  /** Children in their current order. */
  children(n: number): number[] {
    const out: number[] = [];
    for (let c = this.first[n]; c >= 0; c = this.next[c]) out.push(c);
    return out;
  }

  private findChild(parent: number, name: string): number {
    if (parent < 0) return this.rootByName!.get(name) ?? -1;
    const map = this.childMaps!.get(parent);
    if (map) return map.get(name) ?? -1;
    for (let c = this.first[parent]; c >= 0; c = this.next[c]) if (this.names[c] === name) return c;
    return -1;
  }

  private remember(parent: number, name: string, n: number): void {
    if (parent < 0) {
      this.rootByName!.set(name, n);
      return;
    }
    let map = this.childMaps!.get(parent);
    if (!map && this.nChildren[parent] > SCAN_CHILDREN) {
      map = new Map();
      for (let c = this.first[parent]; c >= 0; c = this.next[c]) map.set(this.names[c], c);
      this.childMaps!.set(parent, map);
    } else map?.set(name, n);
  }

  /** The node of a path of display names, made (with its parents) when missing. */
  nodeOf(parts: readonly string[]): number {
    let at = -1;
    for (const part of parts) {
      let c = this.findChild(at, part);
      if (c < 0) {
        const name = this.own(part);
        c = this.add(name, KIND_ID[kindOf(name)], at, true);
        this.remember(at, name, c);
      }
      at = c;
    }
    return at;
  }

  /** `s` as a string of its own, one string for each short name (bounded: the map is emptied when large). */
  private own(s: string): string {
    if (s.length >= 13) return ownString(s);
    const had = this.shortNames.get(s);
    if (had !== undefined) return had;
    if (this.shortNames.size >= 1 << 16) this.shortNames.clear();
    this.shortNames.set(s, s);
    return s;
  }

  /** The node of a path, or -1. */
  find(parts: readonly string[]): number {
    let at = -1;
    for (const part of parts) {
      at = this.findChild(at, part);
      if (at < 0) return -1;
    }
    return at;
  }

  assign(n: number, calls: number, excl: number, incl: number, group: number): void {
    this.calls[n] += calls;
    this.excl[n] += excl;
    this.incl[n] += incl;
    this.group[n] = group;
    this.flags[n] &= ~DERIVED;
  }

  /** A new root of a flat event no path names. */
  flatRoot(name: string): number {
    const n = this.add(name, KIND_ID[kindOf(name)], -1, true);
    this.remember(-1, name, n);
    return n;
  }

  rootList(): number[] {
    return this.roots;
  }

  /** Lookups are done: the maps that served them go. */
  endLookups(): void {
    this.rootByName = null;
    this.childMaps = null;
    this.shortNames = new Map();
  }

  /** The tree is made: what only making it needed goes (the walk reads the rest). */
  endBuild(): void {
    this.last = new Int32Array(0);
    this.nChildren = new Int32Array(0);
    this.flags = new Uint8Array(0);
  }

  /** event-tree.ts spliceStacks, in columns. */
  spliceStacks(s: ThreadStackView): void {
    const contexts = s.contexts.map((c) => this.find(splitPath(c)));
    for (const ctx of contexts) {
      if (ctx < 0) continue;
      let prev = -1;
      for (let c = this.first[ctx]; c >= 0; ) {
        const next = this.next[c];
        const k = KINDS[this.kind[c]];
        if (k === 'unwind' || k === 'sample') {
          this.markRemoved(c);
          if (prev < 0) this.first[ctx] = next;
          else this.next[prev] = next;
          this.nChildren[ctx]--;
        } else prev = c;
        c = next;
      }
      this.last[ctx] = prev;
    }
    this.frames = s.frames;
    const n = s.parent.length;
    const inner = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (s.parent[i] >= 0) inner[s.parent[i]] = 1;
    const made = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      const p = s.parent[i];
      const parent = p < 0 ? contexts[-p - 1] : made[p];
      if (parent === undefined || parent < 0) continue;
      const frame = s.frames[s.frame[i]];
      const node = this.add(stackFrameName(frame, inner[i] === 1), inner[i] ? KIND_ID.unwind : KIND_ID.sample, parent, false);
      this.frame[node] = s.frame[i];
      this.group[node] = this.groupId(STACK_GROUP);
      this.calls[node] = s.samples[i];
      this.excl[node] = s.values[i];
      this.incl[node] = s.values[i];
      made[i] = node;
    }
    for (let i = n - 1; i >= 0; i--) {
      const p = s.parent[i];
      if (p >= 0 && made[i] >= 0 && made[p] >= 0) {
        this.incl[made[p]] += this.incl[made[i]];
        this.calls[made[p]] += this.calls[made[i]];
      }
    }
  }

  private markRemoved(n: number): void {
    const todo = [n];
    while (todo.length > 0) {
      const x = todo.pop()!;
      this.flags[x] |= REMOVED;
      for (let c = this.first[x]; c >= 0; c = this.next[c]) todo.push(c);
    }
  }

  /** event-tree.ts graftTruncatedPaths, in columns. */
  graftTruncatedPaths(): void {
    const roots = this.roots;
    const candidates = new Set<string>();
    for (const r of roots) if (this.first[r] >= 0) candidates.add(this.names[r]);
    if (candidates.size === 0) return;
    const byName = new Map<string, number[]>();
    for (let n = 0; n < this.count; n++) {
      if (this.parent[n] < 0 || this.flags[n] & REMOVED || !candidates.has(this.names[n])) continue;
      const list = byName.get(this.names[n]);
      if (list) list.push(n);
      else byName.set(this.names[n], [n]);
    }
    for (let changed = true; changed; ) {
      changed = false;
      for (let i = roots.length - 1; i >= 0; i--) {
        const r = roots[i];
        if (this.first[r] < 0) continue;
        const at = (byName.get(this.names[r]) ?? []).filter((n) => !this.isUnder(n, r));
        if (at.length !== 1) continue;
        const target = at[0];
        const kids = this.children(target);
        if (kids.some((c) => this.kind[c] === TIMER)) continue;
        const taken = new Set(kids.map((c) => this.names[c]));
        const moving = this.children(r);
        if (moving.some((c) => taken.has(this.names[c]))) continue;
        for (const c of moving) this.append(c, target);
        this.first[r] = -1;
        this.last[r] = -1;
        this.nChildren[r] = 0;
        roots.splice(i, 1);
        changed = true;
      }
    }
  }

  private isUnder(n: number, ancestor: number): boolean {
    for (let p = n; p >= 0; p = this.parent[p]) if (p === ancestor) return true;
    return false;
  }

  /** event-tree.ts fillDerived, without recursion: children before their parent. */
  fillDerived(): void {
    const empty = this.groupId('');
    const todo: number[] = [];
    for (const r of this.roots) {
      todo.push(r);
      while (todo.length > 0) {
        const x = todo[todo.length - 1];
        if (x >= 0) {
          todo[todo.length - 1] = -1 - x; // children first, then x again
          for (let c = this.first[x]; c >= 0; c = this.next[c]) todo.push(c);
          continue;
        }
        todo.pop();
        const n = -1 - x;
        if (!(this.flags[n] & DERIVED)) continue;
        let incl = 0;
        let calls = 0;
        for (let c = this.first[n]; c >= 0; c = this.next[c]) {
          incl += this.incl[c];
          calls += this.calls[c];
        }
        this.incl[n] = incl;
        this.calls[n] = calls;
        this.group[n] = this.first[n] >= 0 ? this.group[this.first[n]] : empty;
      }
    }
  }

  /** Children by inclusive value, largest first; ties keep their order. */
  sortedChildren(n: number): number[] {
    return this.children(n).sort((a, b) => this.incl[b] - this.incl[a]);
  }

  sortedRoots(): number[] {
    return [...this.roots].sort((a, b) => this.incl[b] - this.incl[a]);
  }
}

/** A frame of a stacks file as a node name, in the words of the profile's [SAMPLE] names (event-tree.ts). */
function stackFrameName(f: [string, string, number, string], inner: boolean): string {
  const [fn, file, line] = f;
  const placeholder = (!file && line === 0 && (fn.startsWith('<') || fn.startsWith('('))) || fn.startsWith('UNRESOLVED ');
  return `${inner ? '[UNWIND]' : '[SAMPLE]'} ${placeholder ? fn : `${fn} [{${file}} {${line}}]`}`.replace(/ {2,}/g, ' ').trim();
}

/**
 * The tree of one thread's events (read one at a time) and complete stacks: event-tree.ts buildTree's
 * rules. Flat events are kept as values by name until every path is seen.
 */
export function exportTree(forEachEvent: (visit: (e: TauEvent) => void) => void, stacks?: ThreadStackView): ExportTree {
  const tree = new ExportTree();
  const flatIndex = new Map<string, number>();
  const flat: Array<{ calls: number; excl: number; incl: number; group: number; inPaths: boolean }> = [];
  forEachEvent((e) => {
    const parts = splitPath(e.name);
    const group = tree.groupId(e.group);
    if (parts.length === 1) {
      const v = { calls: e.calls, excl: e.excl, incl: e.incl, group, inPaths: false };
      const i = flatIndex.get(parts[0]);
      if (i === undefined) {
        flatIndex.set(ownString(parts[0]), flat.length);
        flat.push(v);
      } else flat[i] = v;
      return;
    }
    tree.assign(tree.nodeOf(parts), e.calls, e.excl, e.incl, group);
  });
  // A flat name is "in paths" when some path part has it: every part made or found a node.
  for (let n = 0; n < tree.count; n++) {
    const i = flatIndex.get(tree.names[n]);
    if (i !== undefined) flat[i].inPaths = true;
  }
  for (const r of tree.rootList()) {
    const i = flatIndex.get(tree.names[r]);
    if (tree.isDerived(r) && i !== undefined) tree.assign(r, flat[i].calls, flat[i].excl, flat[i].incl, flat[i].group);
  }
  for (const [name, i] of flatIndex) {
    const v = flat[i];
    if (!v.inPaths && !isParamEvent(tree.groupName(v.group))) tree.assign(tree.flatRoot(name), v.calls, v.excl, v.incl, v.group);
  }
  flatIndex.clear();
  flat.length = 0;
  if (stacks) tree.spliceStacks(stacks);
  tree.endLookups();
  tree.graftTruncatedPaths();
  tree.fillDerived();
  tree.endBuild();
  return tree;
}

/**
 * The event-context tree of one raw process, seen the way TAU names things: a parameter
 * specialisation stands for its timer in timer paths ("Iteration 0 => matrixMultiply", never the
 * specialised name), phases enclose what runs inside them, and the root is `.TAU application`.
 * Sample contexts are the exception: their paths keep the specialised names, because samples are
 * partitioned by parameter value ("matrixMultiply  [ <size> = <512> ]  " has samples of its own).
 */
import { EventKind, type RawContexts, type RawProcess } from '../samples/raw-model.js';
import { paramName, safeName, userName } from './event-names.js';
import { sanitizeName } from '../profile/tau-writer.js';

export const PATH_JOIN = ' => ';
/** How TAU's readers split an event path (TAU writes two spaces before a [CONTEXT] part). */
export const PATH_SPLIT = /\s+=>\s+/;

export class ContextTree {
  /** Contexts on the path from the root, by context row (0: not known yet). */
  private readonly lengthMemo: Int32Array;
  /** Path names by (depth, specialised), then by context row: no key string is built per context. */
  private readonly nameMemo = new Map<string, Array<string | undefined>>();
  /** Names of events by id: a name is rewritten once, and every path that holds it shares it. */
  private readonly names: Array<string | undefined> = [];
  private readonly pathGroups: Array<string | undefined> = [];
  /** Open addressing over (parent row, event): row + 1 per slot (made on first use of `child`). */
  private childSlots: Int32Array | undefined;
  private readonly contexts: RawContexts;
  /** Path classes (pathClass), made on first use. */
  private classes: PathClasses | undefined;
  readonly hasPhases: boolean;

  constructor(private readonly proc: RawProcess) {
    this.contexts = proc.contexts;
    this.hasPhases = proc.events.some((e) => e.kind === EventKind.PHASE);
    this.lengthMemo = new Int32Array(proc.contexts.size);
  }

  /** The row of context id c (the reader checked every reference: a miss is a defect, not bad input). */
  row(c: bigint): number {
    const r = this.contexts.rowOf(c);
    if (r < 0) throw new Error(`context 0x${c.toString(16)} missing from ${this.proc.file}`);
    return r;
  }

  /** The parent's row, -1 for a root. */
  parent(r: number): number {
    return this.contexts.parentRow[r];
  }

  /** The event a context row names. */
  event(r: number): number {
    return this.contexts.event[r];
  }

  /** The row of `event`'s context directly under the row `parent` (-1: a root), or -1 when there is none. */
  child(parent: number, event: number): number {
    const { parentRow, event: events } = this.contexts;
    const hash = (p: number, e: number, mask: number) => (Math.imul((p + 1) ^ Math.imul(e, 0x9e3779b1), 0x85ebca6b) >>> 0) & mask;
    if (!this.childSlots) {
      let n = 8;
      while (n < this.contexts.size * 2) n *= 2;
      const slots = new Int32Array(n);
      // A pair given twice finds its last context (as a Map keyed by both would).
      for (let r = 0; r < this.contexts.size; r++) {
        let s = hash(parentRow[r], events[r], n - 1);
        while (slots[s] !== 0 && !(parentRow[slots[s] - 1] === parentRow[r] && events[slots[s] - 1] === events[r])) s = (s + 1) & (n - 1);
        slots[s] = r + 1;
      }
      this.childSlots = slots;
    }
    const slots = this.childSlots;
    const mask = slots.length - 1;
    for (let s = hash(parent, event, mask); ; s = (s + 1) & mask) {
      const r = slots[s] - 1;
      if (r < 0) return -1;
      if (parentRow[r] === parent && events[r] === event) return r;
    }
  }

  /** Drop the memos of paths (names and lengths): they are as large as the thread's entries. */
  forgetPaths(): void {
    this.nameMemo.clear();
    this.lengthMemo.fill(0);
  }

  /** A parameter specialisation's timer; any other event itself. */
  base(event: number): number {
    const e = this.proc.events[event];
    return e.kind === EventKind.PARAM ? e.base : event;
  }

  kind(event: number): number {
    return this.proc.events[this.base(event)].kind;
  }

  /** The event's name as written (event-names.ts: names that would break the format rewritten). */
  name(event: number): string {
    let n = this.names[event];
    if (n === undefined) {
      const e = this.proc.events[event];
      switch (e.kind) {
        case EventKind.REGION:
        case EventKind.PHASE:
          n = userName(e.name);
          break;
        case EventKind.PARAM:
          n = paramName(e.name, this.proc.events[e.base].name);
          break;
        default:
          n = safeName(e.name);
      }
      // The same text as read: the event's own string is kept and the rewritten copy dropped (a
      // million phase names would otherwise be held twice).
      if (n === e.name) n = e.name;
      this.names[event] = n;
    }
    return n;
  }

  /** The group as written for the event's own flat entry. */
  group(event: number): string {
    const e = this.proc.events[event];
    if (e.kind === EventKind.ROOT) return this.hasPhases ? 'TAU_UTILITY|TAU_PHASE' : 'TAU_UTILITY';
    return sanitizeName(e.group);
  }

  /** The leaf's group inside `TAU_CALLPATH|<group>`: TAU drops the phase marker there. Kept per
   * event: millions of path entries share a few group strings. */
  pathGroup(event: number): string {
    let g = this.pathGroups[event];
    if (g === undefined) {
      const parts = this.group(this.base(event))
        .split('|')
        .filter((x) => x.trim() !== 'TAU_PHASE')
        .join('|');
      this.pathGroups[event] = g = `TAU_CALLPATH|${parts}`;
    }
    return g;
  }

  /** Contexts from the root to the row r, r included (1 for a root). */
  pathLength(r: number): number {
    const memo = this.lengthMemo;
    if (memo[r] !== 0) return memo[r];
    // A loop up to the nearest known ancestor, not recursion: no depth of nesting overflows the stack.
    const chain: number[] = [];
    let length = 0;
    for (let x = r; x >= 0; x = this.parent(x)) {
      if (memo[x] !== 0) {
        length = memo[x];
        break;
      }
      chain.push(x);
    }
    for (let i = chain.length - 1; i >= 0; i--) memo[chain[i]] = ++length;
    return length;
  }

  /** An event as a part of a path: its timer's name, or with `specialised` its own name. */
  private pathPart(event: number, specialised: boolean): string {
    return specialised ? this.name(event).trimEnd() : this.name(this.base(event));
  }

  /**
   * `a => b => c`: the last `depth` events of the row r's path (depth counts from the leaf); with
   * `specialised`, parameter specialisations keep their own names (the paths of sample contexts).
   * A path no longer than `depth` is its parent's path and its own part: the memo holds one name
   * per context and no array of the events on the way (millions of contexts share their prefixes).
   */
  pathName(r: number, depth: number, specialised = false): string {
    const kind = `${depth}:${specialised}`;
    let memo = this.nameMemo.get(kind);
    if (!memo) this.nameMemo.set(kind, (memo = []));
    const known = memo[r];
    if (known !== undefined) return known;
    const d = Math.max(1, depth);
    // Up to the nearest ancestor named already (a loop, not recursion), then named downwards.
    const chain: number[] = [];
    let above: string | undefined;
    for (let x = r; x >= 0; x = this.parent(x)) {
      const m = memo[x];
      if (m !== undefined) {
        above = m;
        break;
      }
      chain.push(x);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const x = chain[i];
      const leaf = this.pathPart(this.event(x), specialised);
      let n: string;
      if (this.pathLength(x) <= d) n = above === undefined ? leaf : `${above}${PATH_JOIN}${leaf}`;
      else n = this.cutPathName(x, d, specialised);
      memo[x] = n;
      above = n;
    }
    return above!;
  }

  /** The last d events of a path longer than d. */
  private cutPathName(r: number, d: number, specialised: boolean): string {
    const parts: string[] = [];
    for (let x = r; x >= 0 && parts.length < d; x = this.parent(x)) parts.push(this.pathPart(this.event(x), specialised));
    return parts.reverse().join(PATH_JOIN);
  }

  /**
   * The name of the row r's path when it is no longer than `depth` (pathName's), made without the
   * memo: an entry held by its path class (pathClass) is named this way as it is written.
   */
  pathText(r: number): string {
    const parts: string[] = [];
    for (let x = r; x >= 0; x = this.parent(x)) parts.push(this.pathPart(this.event(x), false));
    return parts.reverse().join(PATH_JOIN);
  }

  /**
   * True when a path's name is its events' names and nothing else can name it: no event's name (as
   * written) holds `=>` (event-names.ts writes `->`) or starts with `[` (as sample entries do). Then
   * two paths no longer than the callpath depth have one name exactly when they have one class, and
   * a timer's flat entry is named by its name id (nameId).
   */
  classifiable(): boolean {
    if (this.classes === undefined) {
      let ok = true;
      for (let ev = 0; ev < this.proc.events.length && ok; ev++) {
        const n = this.name(ev);
        ok = !n.includes('=>') && !n.startsWith('[');
      }
      this.classes = new PathClasses(this.contexts.size, this.proc.events.length, ok);
      if (ok) {
        // Names are almost always one per event: then the event is its own name id, and no Map of
        // names is kept (a Set of them only for this check).
        const names = new Set<string>();
        for (let ev = 0; ev < this.proc.events.length; ev++) names.add(this.name(ev));
        this.classes.eventIsNameId = names.size === this.proc.events.length;
      }
    }
    return this.classes.usable;
  }

  /** A number per distinct event name as written (name): events of one name share it. */
  nameId(event: number): number {
    this.classifiable();
    const k = this.classes!;
    if (k.eventIsNameId) return event;
    if (k.nameOfEvent[event] !== 0) return k.nameOfEvent[event] - 1;
    const name = this.name(event);
    let id = k.idByName.get(name);
    if (id === undefined) k.idByName.set(name, (id = k.idByName.size));
    k.nameOfEvent[event] = id + 1;
    return id;
  }

  /**
   * The class of the row r's path (with classifiable() true): the same number for every context
   * whose path, root to leaf, names the same timers; a number per path, not a string. The class is
   * the row of the first context met with that path. An entry table keys path entries by it and
   * names them (pathText) only when they are written.
   */
  pathClass(r: number): number {
    if (!this.classifiable()) throw new Error('path classes used where names can collide');
    const k = this.classes!;
    if (k.classOf[r] !== 0) return k.classOf[r] - 1;
    const chain: number[] = [];
    let above = -1;
    for (let x = r; x >= 0; x = this.parent(x)) {
      if (k.classOf[x] !== 0) {
        above = k.classOf[x] - 1;
        break;
      }
      chain.push(x);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const x = chain[i];
      // A path part is the timer's name: a specialisation's is its timer's.
      above = k.classFor(x, above, this.nameId(this.base(this.event(x))), (c) => this.nameId(this.base(this.event(c))), (c) => {
        const p = this.parent(c);
        return p < 0 ? -1 : k.classOf[p] - 1;
      });
      k.classOf[x] = above + 1;
    }
    return above;
  }

  /** The innermost phase (or the root) strictly enclosing the row r, as an event id; null for the root. */
  enclosingPhase(r: number): number | null {
    for (let p = this.parent(r); p >= 0; p = this.parent(p)) {
      const ev = this.event(p);
      const k = this.kind(ev);
      if (k === EventKind.PHASE || k === EventKind.ROOT) return this.base(ev);
    }
    return null;
  }

  /** `<innermost enclosing phase> => <event>`, or null for the root; with `specialised`, the event
   * keeps its parameter specialisation (the paths of sample contexts). */
  phasePathName(r: number, specialised = false): string | null {
    const phase = this.enclosingPhase(r);
    if (phase === null) return null;
    const ev = this.event(r);
    return `${this.name(phase)}${PATH_JOIN}${this.name(specialised ? ev : this.base(ev))}`;
  }

  /** True when some proper ancestor row of r satisfies `same` (recursion: its inclusive value holds r's). */
  hasAncestor(r: number, same: (ancestor: number) => boolean): boolean {
    for (let p = this.parent(r); p >= 0; p = this.parent(p)) {
      if (same(p)) return true;
    }
    return false;
  }
}

/**
 * The path classes and name ids of one process. A class is (the class of the parent's path, the
 * leaf's name id), found in an open-addressing table of the rows that stand for each class: about
 * 12 bytes per context, and a Map entry per distinct event name.
 */
class PathClasses {
  /** Class + 1 by context row (0: not known yet); a class is a row. */
  readonly classOf: Int32Array;
  /** Every event has a name of its own: its id is its name id (and nameOfEvent is not used). */
  eventIsNameId = false;
  /** Name id + 1 by event (0: not known yet). */
  readonly nameOfEvent: Int32Array;
  readonly idByName = new Map<string, number>();
  /** Class (row) + 1 per slot, 0 for an empty one; at most half full. */
  private readonly slots: Int32Array;

  constructor(
    contexts: number,
    events: number,
    readonly usable: boolean,
  ) {
    this.classOf = new Int32Array(usable ? contexts : 0);
    this.nameOfEvent = new Int32Array(usable ? events : 0);
    let n = 8;
    while (usable && n < contexts * 2) n *= 2;
    this.slots = new Int32Array(n);
  }

  /**
   * The class of the context `row` whose parent's path has class `above` (-1: a root) and whose
   * leaf has name id `part`: an existing class of the same pair, else the row itself. `partOf` and
   * `aboveOf` give the pair of a class's row.
   */
  classFor(row: number, above: number, part: number, partOf: (c: number) => number, aboveOf: (c: number) => number): number {
    const mask = this.slots.length - 1;
    let s = (Math.imul((above + 1) ^ Math.imul(part, 0x9e3779b1), 0x85ebca6b) >>> 0) & mask;
    for (; this.slots[s] !== 0; s = (s + 1) & mask) {
      const c = this.slots[s] - 1;
      if (aboveOf(c) === above && partOf(c) === part) return c;
    }
    this.slots[s] = row + 1;
    return row;
  }
}

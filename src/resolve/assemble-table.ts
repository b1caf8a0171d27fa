/**
 * Event lines being assembled for one thread, all metrics at once: entries are merged by name (TAU
 * has one line per name) and keep the order in which they should be written.
 *
 * Entries are held column by column (one array per field, an entry is an index into them), not as
 * one object with two value arrays each: a thread of millions of contexts has millions of entries,
 * and an object per entry costs more than twice the columns.
 */
import type { EventList, TauEvent } from '../profile/tau-model.js';

/** A column of numbers with room for `size` (copied when it must grow). */
function grown<T extends Float64Array | Int32Array | Uint8Array>(a: T, size: number): T {
  if (size <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/** The sort key of sample entries: after every timer entry. */
const LAST = 0x7fffffff;

export class EntryTable {
  /** Entry index by name; the index is also the order of first use (ties of `order` keep it). */
  private readonly index = new Map<string, number>();
  /**
   * The names of the entries added by name (add), by entry; the others are named when written. (An
   * array: dense when every entry is added by name, sparse, and small, when few are.)
   */
  private readonly names: string[] = [];
  private count = 0;
  /**
   * What names an entry not added by name: a context row (>= 0) for one added by path class
   * (addPath), -2 - event for a timer's flat entry (addNamed); -1 for one added by name.
   */
  private rows = new Int32Array(64);
  /** Entry + 1 by path class (0: none yet). */
  private byClass = new Int32Array(64);
  /** Entry + 1 by name id (ContextTree.nameId; 0: none yet). */
  private byNameId = new Int32Array(64);
  /** Groups are a few strings shared by many entries: an entry holds the group's number. */
  private readonly groupList: string[] = [];
  private readonly groupIds = new Map<string, number>();
  private groups = new Int32Array(64);
  private calls = new Float64Array(64);
  private subrs = new Float64Array(64);
  /** Per entry, nMetrics values each. */
  private excl: Float64Array;
  private incl: Float64Array;
  /** Sort key: the leaf event id for timer entries (-1 for the root), LAST for sample entries. */
  private order = new Int32Array(64);
  /** Only derived contributions (contexts the thread never entered): written only when a path needs it. */
  private derived = new Uint8Array(64);
  /** Dropped by pruneDerived. */
  private readonly removed = new Set<number>();
  private anyDerived = false;

  /** `pathName` names an entry added by path class from its context row (ContextTree.pathText),
   * `eventName` a timer's flat entry from its event (ContextTree.name). */
  constructor(
    private readonly nMetrics: number,
    private readonly pathName: (row: number) => string = () => {
      throw new Error('an entry table without path names holds an entry by path class');
    },
    private readonly eventName: (event: number) => string = () => {
      throw new Error('an entry table without event names holds an entry by name id');
    },
  ) {
    this.excl = new Float64Array(64 * nMetrics);
    this.incl = new Float64Array(64 * nMetrics);
  }

  /** Make room for `n` entries at once (the columns grow by doubling otherwise, up to twice the room). */
  reserve(n: number): void {
    this.grow(n);
  }

  /**
   * Add to the entry `name` (created with `group` on first use) the values excl[at .. at + nMetrics)
   * and incl[at .. at + nMetrics) (null: nothing). `order` Infinity: a sample entry.
   */
  add(
    name: string,
    group: string,
    order: number,
    calls: number,
    subrs: number,
    excl: ArrayLike<number> | null,
    incl: ArrayLike<number> | null,
    derived = false,
    at = 0,
  ): void {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.newEntry(-1, group, order, derived);
      this.index.set(name, i);
      this.names[i] = name;
    }
    this.addTo(i, calls, subrs, excl, incl, derived, at);
  }

  /**
   * The entry `name`, created with `group` on first use as add() creates it, for adding to it by
   * number (addAt): a caller that adds to the same entries over and over (a thread's records of the
   * same sample chain) names them once.
   */
  entryOf(name: string, group: string, order: number): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.newEntry(-1, group, order, false);
      this.index.set(name, i);
      this.names[i] = name;
    }
    return i;
  }

  /** add() to the entry numbered `i` (entryOf). */
  addAt(i: number, calls: number, subrs: number, excl: ArrayLike<number> | null, incl: ArrayLike<number> | null): void {
    this.addTo(i, calls, subrs, excl, incl, false, 0);
  }

  /**
   * The same for the flat entry of the timer `event`, whose name id is `nameId` (ContextTree.nameId,
   * with classifiable() true: no other entry has that name): looked up by number, and named from
   * the event when written.
   */
  addNamed(nameId: number, event: number, group: string, order: number, calls: number, subrs: number, excl: ArrayLike<number>, incl: ArrayLike<number> | null, derived: boolean, at: number): void {
    if (nameId >= this.byNameId.length) this.byNameId = grown(this.byNameId, Math.max(nameId + 1, this.byNameId.length * 2));
    let i = this.byNameId[nameId] - 1;
    if (i < 0) {
      i = this.newEntry(-2 - event, group, order, derived);
      this.byNameId[nameId] = i + 1;
    }
    this.addTo(i, calls, subrs, excl, incl, derived, at);
  }

  /**
   * Add to the entry of path class `cls` (ContextTree.pathClass: one class, one name), created on
   * first use with `group` and named from the context `row` when it is written. No name is held:
   * for millions of paths the names cost more than everything else in the table.
   */
  addPath(cls: number, row: number, group: string, order: number, calls: number, subrs: number, excl: ArrayLike<number>, incl: ArrayLike<number> | null, derived: boolean, at: number): void {
    if (cls >= this.byClass.length) this.byClass = grown(this.byClass, Math.max(cls + 1, this.byClass.length * 2));
    let i = this.byClass[cls] - 1;
    if (i < 0) {
      i = this.newEntry(row, group, order, derived);
      this.byClass[cls] = i + 1;
    }
    this.addTo(i, calls, subrs, excl, incl, derived, at);
  }

  /** The name of entry i (made now for an entry not added by name). */
  private nameOf(i: number): string {
    const r = this.rows[i];
    if (r >= 0) return this.pathName(r);
    if (r <= -2) return this.eventName(-2 - r);
    return this.names[i];
  }

  private grow(n: number): void {
    this.rows = grown(this.rows, n);
    this.groups = grown(this.groups, n);
    this.calls = grown(this.calls, n);
    this.subrs = grown(this.subrs, n);
    this.order = grown(this.order, n);
    this.derived = grown(this.derived, n);
    this.excl = grown(this.excl, n * this.nMetrics);
    this.incl = grown(this.incl, n * this.nMetrics);
  }

  private newEntry(row: number, group: string, order: number, derived: boolean): number {
    const i = this.count++;
    if (i >= this.calls.length) this.grow(Math.max(i + 1, this.calls.length * 2));
    let g = this.groupIds.get(group);
    if (g === undefined) {
      this.groupIds.set(group, (g = this.groupList.length));
      this.groupList.push(group);
    }
    this.groups[i] = g;
    this.rows[i] = row;
    this.order[i] = order === Infinity ? LAST : order;
    this.derived[i] = derived ? 1 : 0;
    return i;
  }

  private addTo(i: number, calls: number, subrs: number, excl: ArrayLike<number> | null, incl: ArrayLike<number> | null, derived: boolean, at: number): void {
    this.derived[i] = this.derived[i] === 1 && derived ? 1 : 0;
    this.anyDerived ||= this.derived[i] === 1;
    this.calls[i] += calls;
    this.subrs[i] += subrs;
    const to = i * this.nMetrics;
    for (let m = 0; m < this.nMetrics; m++) {
      if (excl) this.excl[to + m] += excl[at + m];
      if (incl) this.incl[to + m] += incl[at + m];
    }
  }

  /**
   * Drop derived entries no other entry needs: a derived entry stays when it is a part or a prefix
   * of an event path that is written (TAU's readers, and ParaProf's tree, need both).
   */
  pruneDerived(join: RegExp): void {
    // Without derived entries nothing can go: the set of needed names (every part and prefix of
    // every path) would only cost memory.
    if (!this.anyDerived) return;
    const needed = new Set<string>();
    for (let i = 0; i < this.count; i++) {
      if (this.derived[i]) continue;
      const parts = this.nameOf(i).split(join);
      if (parts.length < 2) continue;
      for (const p of parts) needed.add(p.trim());
      for (let k = 2; k < parts.length; k++) needed.add(parts.slice(0, k).join(' => ').trim());
    }
    for (let i = 0; i < this.count; i++) {
      if (this.derived[i] && !needed.has(this.nameOf(i).split(join).join(' => ').trim())) {
        this.removed.add(i);
        const name = this.names[i];
        if (name !== undefined) this.index.delete(name);
      }
    }
  }

  /** The events of metric m, divided by `divisor` (TIME: ns → µs), in writing order. */
  events(m: number, divisor: number, integralFirst: boolean): TauEvent[] {
    return [...this.eventList(m, divisor, integralFirst)];
  }

  /**
   * The same events, made one at a time as they are iterated (the writer's way: a thread of millions
   * of entries is written without an object per entry held at once). The table must not change
   * while the list is in use.
   */
  eventList(m: number, divisor: number, integralFirst: boolean): EventList {
    // Entries with no calls are written only when derived (a path needs them; docs/assembly.md).
    let count = 0;
    const all = new Int32Array(this.count);
    for (let i = 0; i < this.count; i++) {
      if ((this.calls[i] > 0 || this.derived[i]) && !this.removed.has(i)) all[count++] = i;
    }
    const order = this.order;
    const written = all.subarray(0, count).sort((a, b) => order[a] - order[b] || a - b);
    const event = (k: number): TauEvent => {
      const i = written[k];
      const at = i * this.nMetrics + m;
      const ev = { name: this.nameOf(i), calls: this.calls[i], subrs: this.subrs[i], excl: this.excl[at] / divisor, incl: this.incl[at] / divisor, group: this.groupList[this.groups[i]] };
      if (k === 0 && integralFirst) {
        // Hatchet reads the root line's values as integers.
        ev.excl = Math.round(ev.excl);
        ev.incl = Math.round(ev.incl);
      }
      return ev;
    };
    return {
      length: written.length,
      *[Symbol.iterator]() {
        for (let k = 0; k < written.length; k++) yield event(k);
      },
    };
  }
}

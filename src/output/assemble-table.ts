/**
 * Event lines being assembled for one thread, all metrics at once: entries are merged by name (TAU
 * has one line per name) and keep the order in which they should be written.
 *
 * Entries are held column by column (one array per field, an entry is an index into them), not as
 * one object with two value arrays each: a thread of millions of contexts has millions of entries,
 * and an object per entry costs more than twice the columns.
 */
import type { EventList, TauEvent } from './tau-model.js';

/** A column of numbers that grows by doubling. */
function grown<T extends Float64Array | Uint8Array>(a: T, size: number): T {
  if (size <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(size, a.length * 2));
  b.set(a);
  return b;
}

export class EntryTable {
  /** Entry index by name; the index is also the order of first use (ties of `order` keep it). */
  private readonly index = new Map<string, number>();
  private readonly names: string[] = [];
  /** Groups are a few strings shared by many entries. */
  private readonly groups: string[] = [];
  private calls = new Float64Array(64);
  private subrs = new Float64Array(64);
  /** Per entry, nMetrics values each. */
  private excl: Float64Array;
  private incl: Float64Array;
  /** Sort key: the leaf event id for timer entries, Infinity for sample entries. */
  private order = new Float64Array(64);
  /** Only derived contributions (contexts the thread never entered): written only when a path needs it. */
  private derived = new Uint8Array(64);
  /** Dropped by pruneDerived. */
  private readonly removed = new Set<number>();
  private anyDerived = false;

  constructor(private readonly nMetrics: number) {
    this.excl = new Float64Array(64 * nMetrics);
    this.incl = new Float64Array(64 * nMetrics);
  }

  /**
   * Add to the entry `name` (created with `group` on first use) the values excl[at .. at + nMetrics)
   * and incl[at .. at + nMetrics) (null: nothing).
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
      i = this.names.length;
      this.index.set(name, i);
      this.names.push(name);
      this.groups.push(group);
      this.calls = grown(this.calls, i + 1);
      this.subrs = grown(this.subrs, i + 1);
      this.order = grown(this.order, i + 1);
      this.derived = grown(this.derived, i + 1);
      this.excl = grown(this.excl, (i + 1) * this.nMetrics);
      this.incl = grown(this.incl, (i + 1) * this.nMetrics);
      this.order[i] = order;
      this.derived[i] = derived ? 1 : 0;
    }
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

  has(name: string): boolean {
    const i = this.index.get(name);
    return i !== undefined && !this.removed.has(i);
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
    for (let i = 0; i < this.names.length; i++) {
      if (this.derived[i]) continue;
      const parts = this.names[i].split(join);
      if (parts.length < 2) continue;
      for (const p of parts) needed.add(p.trim());
      for (let k = 2; k < parts.length; k++) needed.add(parts.slice(0, k).join(' => ').trim());
    }
    for (let i = 0; i < this.names.length; i++) {
      if (this.derived[i] && !needed.has(this.names[i].split(join).join(' => ').trim())) {
        this.removed.add(i);
        this.index.delete(this.names[i]);
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
    const all = new Int32Array(this.names.length);
    for (let i = 0; i < this.names.length; i++) {
      if ((this.calls[i] > 0 || this.derived[i]) && !this.removed.has(i)) all[count++] = i;
    }
    const order = this.order;
    const written = all.subarray(0, count).sort((a, b) => order[a] - order[b] || a - b);
    const event = (k: number): TauEvent => {
      const i = written[k];
      const at = i * this.nMetrics + m;
      const ev = { name: this.names[i], calls: this.calls[i], subrs: this.subrs[i], excl: this.excl[at] / divisor, incl: this.incl[at] / divisor, group: this.groups[i] };
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

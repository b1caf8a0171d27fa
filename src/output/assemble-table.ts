/**
 * Event lines being assembled for one thread, all metrics at once: entries are merged by name (TAU
 * has one line per name) and keep the order in which they should be written.
 *
 * Entries are held column by column (one array per field, an entry is an index into them), not as
 * one object with two value arrays each: a thread of millions of contexts has millions of entries,
 * and an object per entry costs more than twice the columns.
 */
import type { EventList, TauEvent } from './tau-model.js';

export class EntryTable {
  /** Entry index by name; the index is also the order of first use (ties of `order` keep it). */
  private readonly index = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly groups: string[] = [];
  private readonly calls: number[] = [];
  private readonly subrs: number[] = [];
  /** Per entry, nMetrics values each. */
  private readonly excl: number[] = [];
  private readonly incl: number[] = [];
  /** Sort key: the leaf event id for timer entries, Infinity for sample entries. */
  private readonly order: number[] = [];
  /** Only derived contributions (contexts the thread never entered): written only when a path needs it. */
  private readonly derived: boolean[] = [];
  /** Dropped by pruneDerived. */
  private readonly removed = new Set<number>();
  private anyDerived = false;

  constructor(private readonly nMetrics: number) {}

  /** Add to the entry `name` (created with `group` on first use). */
  add(name: string, group: string, order: number, calls: number, subrs: number, excl: number[] | null, incl: number[] | null, derived = false): void {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.index.set(name, i);
      this.names.push(name);
      this.groups.push(group);
      this.calls.push(0);
      this.subrs.push(0);
      this.order.push(order);
      this.derived.push(derived);
      for (let m = 0; m < this.nMetrics; m++) {
        this.excl.push(0);
        this.incl.push(0);
      }
    }
    this.derived[i] &&= derived;
    this.anyDerived ||= this.derived[i];
    this.calls[i] += calls;
    this.subrs[i] += subrs;
    const at = i * this.nMetrics;
    for (let m = 0; m < this.nMetrics; m++) {
      if (excl) this.excl[at + m] += excl[m];
      if (incl) this.incl[at + m] += incl[m];
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
    const written: number[] = [];
    for (let i = 0; i < this.names.length; i++) {
      if ((this.calls[i] > 0 || this.derived[i]) && !this.removed.has(i)) written.push(i);
    }
    written.sort((a, b) => this.order[a] - this.order[b] || a - b);
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

/**
 * Event lines being assembled for one thread, all metrics at once: entries are merged by name (TAU
 * has one line per name) and keep the order in which they should be written.
 */
import type { TauEvent } from './tau-model.js';

export interface Entry {
  name: string;
  group: string;
  calls: number;
  subrs: number;
  excl: number[];
  incl: number[];
  /** Sort key: the leaf event id for timer entries, Infinity for sample entries. */
  order: number;
  seq: number;
  /** Only derived contributions (contexts the thread never entered): written only when a path needs it. */
  derived: boolean;
}

export class EntryTable {
  private readonly entries = new Map<string, Entry>();
  private seq = 0;

  constructor(private readonly nMetrics: number) {}

  /** Add to the entry `name` (created with `group` on first use). */
  add(name: string, group: string, order: number, calls: number, subrs: number, excl: number[] | null, incl: number[] | null, derived = false): void {
    let e = this.entries.get(name);
    if (!e) {
      e = { name, group, calls: 0, subrs: 0, excl: new Array(this.nMetrics).fill(0), incl: new Array(this.nMetrics).fill(0), order, seq: this.seq++, derived };
      this.entries.set(name, e);
    }
    e.derived &&= derived;
    e.calls += calls;
    e.subrs += subrs;
    for (let m = 0; m < this.nMetrics; m++) {
      if (excl) e.excl[m] += excl[m];
      if (incl) e.incl[m] += incl[m];
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * Drop derived entries no other entry needs: a derived entry stays when it is a part or a prefix
   * of an event path that is written (TAU's readers, and ParaProf's tree, need both).
   */
  pruneDerived(join: RegExp): void {
    const needed = new Set<string>();
    for (const e of this.entries.values()) {
      if (e.derived) continue;
      const parts = e.name.split(join);
      if (parts.length < 2) continue;
      for (const p of parts) needed.add(p.trim());
      for (let k = 2; k < parts.length; k++) needed.add(parts.slice(0, k).join(' => ').trim());
    }
    for (const [name, e] of this.entries) {
      if (e.derived && !needed.has(name.split(join).join(' => ').trim())) this.entries.delete(name);
    }
  }

  /** The events of metric m, divided by `divisor` (TIME: ns → µs), in writing order. */
  events(m: number, divisor: number, integralFirst: boolean): TauEvent[] {
    // Entries with no calls are written only when derived (a path needs them; docs/assembly.md).
    const sorted = [...this.entries.values()].filter((e) => e.calls > 0 || e.derived).sort((a, b) => a.order - b.order || a.seq - b.seq);
    return sorted.map((e, i) => {
      const ev = { name: e.name, calls: e.calls, subrs: e.subrs, excl: e.excl[m] / divisor, incl: e.incl[m] / divisor, group: e.group };
      if (i === 0 && integralFirst) {
        // Hatchet reads the root line's values as integers.
        ev.excl = Math.round(ev.excl);
        ev.incl = Math.round(ev.incl);
      }
      return ev;
    });
  }
}

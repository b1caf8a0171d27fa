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
}

export class EntryTable {
  private readonly entries = new Map<string, Entry>();
  private seq = 0;

  constructor(private readonly nMetrics: number) {}

  /** Add to the entry `name` (created with `group` on first use). */
  add(name: string, group: string, order: number, calls: number, subrs: number, excl: number[] | null, incl: number[] | null): void {
    let e = this.entries.get(name);
    if (!e) {
      e = { name, group, calls: 0, subrs: 0, excl: new Array(this.nMetrics).fill(0), incl: new Array(this.nMetrics).fill(0), order, seq: this.seq++ };
      this.entries.set(name, e);
    }
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

  /** The events of metric m, divided by `divisor` (TIME: ns → µs), in writing order. */
  events(m: number, divisor: number, integralFirst: boolean): TauEvent[] {
    const sorted = [...this.entries.values()].sort((a, b) => a.order - b.order || a.seq - b.seq);
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

/**
 * Statistics over threads, as ParaProf shows them beside each thread: mean, min, max and standard
 * deviation of every event. Mean and std count a thread without the event as 0 (ParaProf's mean is
 * the total divided by the number of threads); min and max are over the threads that have it, so
 * a worker-only event does not show a min of 0 for the master.
 */
import type { TauEvent, TauThreadProfile } from '../profile/tau-model.js';
import { ownString } from '../profile/tau-reader.js';

export const STATS = ['mean', 'min', 'max', 'std'] as const;
export type Stat = (typeof STATS)[number];

export function isStat(s: string): s is Stat {
  return (STATS as readonly string[]).includes(s);
}

const FIELDS = ['calls', 'subrs', 'excl', 'incl'] as const;

interface Acc {
  name: string;
  group: string;
  n: number;
  sum: number[];
  sumsq: number[];
  min: number[];
  max: number[];
}

/** The statistics over threads, fed a thread at a time (the viewer of many threads keeps only this). */
export class EventAggregator {
  private readonly accs = new Map<string, Acc>();
  private threads = 0;

  add(events: readonly TauEvent[]): void {
    this.threads++;
    for (const e of events) {
      let a = this.accs.get(e.name);
      if (!a) {
        // own copies: a name read from a file would keep the file's text
        a = { name: ownString(e.name), group: ownString(e.group), n: 0, sum: [0, 0, 0, 0], sumsq: [0, 0, 0, 0], min: [Infinity, Infinity, Infinity, Infinity], max: [0, 0, 0, 0] };
        this.accs.set(a.name, a);
      }
      a.n++;
      FIELDS.forEach((f, i) => {
        const v = e[f];
        a.sum[i] += v;
        a.sumsq[i] += v * v;
        if (v < a.min[i]) a.min[i] = v;
        if (v > a.max[i]) a.max[i] = v;
      });
    }
  }

  result(stat: Stat): TauEvent[] {
    const n = this.threads;
    const out: TauEvent[] = [];
    for (const a of this.accs.values()) {
      const v = FIELDS.map((_, i) => {
        switch (stat) {
          case 'mean':
            return a.sum[i] / n;
          case 'min':
            return a.min[i];
          case 'max':
            return a.max[i];
          case 'std': {
            const mean = a.sum[i] / n;
            return Math.sqrt(Math.max(0, a.sumsq[i] / n - mean * mean));
          }
        }
      });
      out.push({ name: a.name, group: a.group, calls: v[0], subrs: v[1], excl: v[2], incl: v[3] });
    }
    return out;
  }
}

/** One aggregate as a list of events with the threads' names, ready for the tree and the table. */
export function aggregateEvents(threads: readonly TauThreadProfile[], stat: Stat): TauEvent[] {
  const acc = new EventAggregator();
  for (const t of threads) acc.add(t.events);
  return acc.result(stat);
}

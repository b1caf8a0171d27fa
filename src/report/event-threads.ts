/**
 * One event on every thread, as ParaProf's function window shows it: a timer (flat or an event path)
 * or a sampled function, its value on each thread / rank with the mean, min, max and standard
 * deviation over threads. Mean and std count a thread without the event as 0 (ParaProf's mean);
 * min and max are over the threads that have it (view/aggregate.ts does the same).
 */
import { UserError } from '../base/errors.js';
import { functionsOf } from './report-functions.js';
import { isSampleNode } from './report-data.js';
import { displayName, namedThreadLabel, type TauProfile, type TauThreadProfile } from '../profile/tau-model.js';

export interface EventOnThread {
  label: string;
  node: number;
  context: number;
  thread: number;
  /** Exclusive value (a sampled function: its self value); undefined when the thread lacks the event. */
  excl?: number;
  /** Inclusive value (a sampled function: its total value). */
  incl?: number;
  /** Calls (a sampled function: its self samples). */
  calls?: number;
}

export interface Spread {
  mean: number;
  min: number;
  max: number;
  std: number;
}

export interface EventAcrossThreads {
  name: string;
  kind: 'timer' | 'function';
  metric: string;
  /** TIME metrics: microseconds as stored; others counts. */
  unit: 'usec' | 'counts';
  threads: EventOnThread[];
  excl: Spread;
  incl: Spread;
  /** Threads that have the event. */
  present: number;
}

/** Names the window can show: timers and event paths (display form), and sampled functions. */
export function eventChoices(threads: readonly TauThreadProfile[]): { timers: string[]; functions: string[] } {
  const timers = new Set<string>();
  const functions = new Set<string>();
  for (const t of threads) {
    for (const e of t.events) if (!isSampleNode(e) && !/\[(CONTEXT|SAMPLE|UNWIND)\]/.test(e.name)) timers.add(displayName(e.name));
    for (const r of functionsOf(t).overall.rows) functions.add(r.function);
  }
  return { timers: [...timers].sort(), functions: [...functions].sort() };
}

export function spread(values: Array<number | undefined>): Spread {
  const n = values.length;
  const have = values.filter((v): v is number => v !== undefined);
  const sum = have.reduce((s, v) => s + v, 0);
  const mean = n > 0 ? sum / n : 0;
  const sq = have.reduce((s, v) => s + v * v, 0);
  // Loops, not Math.min(...values): a spread of 100,000s of arguments overflows the stack.
  let min = Infinity;
  let max = -Infinity;
  for (const v of have) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return {
    mean,
    min: have.length > 0 ? min : 0,
    max: have.length > 0 ? max : 0,
    std: n > 0 ? Math.sqrt(Math.max(0, sq / n - mean * mean)) : 0,
  };
}

/**
 * The event `name` on every thread of metric `metricIndex`. `kind` chooses between a timer and a
 * sampled function of the same name; without it a timer is preferred.
 */
export function eventAcrossThreads(profile: TauProfile, metricIndex: number, name: string, kind?: 'timer' | 'function'): EventAcrossThreads {
  const threads = profile.threads[metricIndex];
  const metric = profile.metrics[metricIndex];
  const wanted = displayName(name);
  const timerOn = (t: TauThreadProfile): { excl: number; incl: number; calls: number } | undefined => {
    let found: { excl: number; incl: number; calls: number } | undefined;
    for (const e of t.events) {
      if (isSampleNode(e) || displayName(e.name) !== wanted) continue;
      found ??= { excl: 0, incl: 0, calls: 0 };
      found.excl += e.excl;
      found.incl += e.incl;
      found.calls += e.calls;
    }
    return found;
  };
  const functionOn = (t: TauThreadProfile) => {
    const r = functionsOf(t).overall.rows.find((x) => x.function === wanted);
    return r ? { excl: r.self, incl: r.total, calls: r.selfSamples } : undefined;
  };
  let chosen: 'timer' | 'function' | undefined = kind;
  if (chosen === undefined) {
    if (threads.some((t) => timerOn(t) !== undefined)) chosen = 'timer';
    else if (threads.some((t) => functionOn(t) !== undefined)) chosen = 'function';
  }
  // Each thread taken once: a profile of many threads reads it from its file when taken (view/api.ts).
  const named: Array<{ label: string; node: number; context: number; thread: number }> = [];
  const values =
    chosen === undefined
      ? []
      : threads.map((t) => {
          named.push({ label: namedThreadLabel(t), node: t.node, context: t.context, thread: t.thread });
          return chosen === 'timer' ? timerOn(t) : functionOn(t);
        });
  if (chosen === undefined || values.every((v) => v === undefined)) {
    const choices = eventChoices(threads);
    const close = [...choices.timers, ...choices.functions].filter((n) => n.toLowerCase().includes(wanted.toLowerCase())).slice(0, 8);
    throw new UserError(
      `${profile.dir}: no ${kind ?? 'timer or sampled function'} named "${wanted}"` +
        (close.length > 0 ? ` (similar: ${close.map((c) => `"${c}"`).join(', ')})` : ` (timers: ${choices.timers.slice(0, 8).map((c) => `"${c}"`).join(', ')}${choices.timers.length > 8 ? ', ...' : ''})`),
    );
  }
  return {
    name: wanted,
    kind: chosen,
    metric,
    unit: /TIME/i.test(metric) ? 'usec' : 'counts',
    threads: named.map((t, i) => ({ ...t, ...(values[i] ?? {}) })),
    excl: spread(values.map((v) => v?.excl)),
    incl: spread(values.map((v) => v?.incl)),
    present: values.filter((v) => v !== undefined).length,
  };
}

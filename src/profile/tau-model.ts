/**
 * A TAU profile in memory: what `profile.<node>.<context>.<thread>` files hold
 * (shared/TAU-FORMAT.md). The writer turns this into files, the reader files into this; reports,
 * the viewer and the exporters work on it.
 */

/** One event line: `"<name>" <calls> <subrs> <excl> <incl> 0 GROUP="<group>"`. */
export interface TauEvent {
  name: string;
  calls: number;
  subrs: number;
  /** Exclusive value in the metric's unit (TIME: microseconds). */
  excl: number;
  /** Inclusive value in the metric's unit. */
  incl: number;
  group: string;
}

/** One atomic user event line: `"<name>" <count> <max> <min> <mean> <sumsqr>`. */
export interface TauUserEvent {
  name: string;
  count: number;
  max: number;
  min: number;
  mean: number;
  sumsqr: number;
}

/** One thread's file for one metric. */
export interface TauThreadProfile {
  node: number;
  context: number;
  thread: number;
  /** Metric name (from the `Metric Name` attribute, else line 1). */
  metric: string;
  events: TauEvent[];
  userEvents: TauUserEvent[];
  /** Metadata attributes in file order. */
  metadata: Array<[string, string]>;
  /** The thread's complete sampled stacks for this metric, from the profile's stacks file, when it has one. */
  stacks?: ThreadStackView;
}

/**
 * One thread's stack tree of a stacks file (stacks-file.ts) for one metric: node i is frame
 * `frames[frame[i]]` ([function, file, line, object]) called from node `parent[i]`, or right under the
 * `[CONTEXT]` path entry `contexts[-parent[i] - 1]`; `samples[i]`, `values[i]`: what samples ending there add.
 */
export interface ThreadStackView {
  frames: Array<[string, string, number, string]>;
  contexts: string[];
  parent: number[];
  frame: number[];
  samples: number[];
  values: number[];
  /** Stack-tree nodes folded into a `(deeper stacks merged)` node when the thread had too many. */
  merged: number;
}

/** Events to write, in order: an array, or a list that makes each event as it is iterated. */
export interface EventList extends Iterable<TauEvent> {
  readonly length: number;
}

/** A thread's file as the writer takes it: its events may be made as they are written. */
export type ThreadToWrite = Omit<TauThreadProfile, 'events'> & { events: EventList };

/** A whole profile directory: every thread, every metric. */
export interface TauProfile {
  /** Directory read from (or to be written to). */
  dir: string;
  /** Metric names; one entry per metric. */
  metrics: string[];
  /** threads[metricIndex] = the thread profiles of that metric, sorted by node, context, thread. */
  threads: TauThreadProfile[][];
}

/** Event-path separator, as TAU writes it between events. */
export const PATH_SEP = ' => ';

/** True when the event name is an event path ("a => b"). */
export function isCallpath(e: TauEvent): boolean {
  return e.group.split('|').some((g) => g.trim() === 'TAU_CALLPATH');
}

export function threadLabel(t: Pick<TauThreadProfile, 'node' | 'context' | 'thread'>): string {
  return `n,c,t ${t.node},${t.context},${t.thread}`;
}

/**
 * The name the program gave a thread (hyprof_set_thread_name, pthread_setname_np, recorded by the
 * runtime as the `Thread Name` metadata attribute), or undefined.
 */
export function threadNameOf(t: Pick<TauThreadProfile, 'metadata'>): string | undefined {
  const v = t.metadata.find(([k]) => k === 'Thread Name')?.[1]?.trim();
  return v ? v : undefined;
}

/** `n,c,t 0,0,1 "worker"`: TAU's label, with the thread's name when the program named it. */
export function namedThreadLabel(t: Pick<TauThreadProfile, 'node' | 'context' | 'thread' | 'metadata'>): string {
  const name = threadNameOf(t);
  return name ? `${threadLabel(t)} "${name}"` : threadLabel(t);
}

/** A name as TAU's readers show it: runs of spaces collapsed, trimmed. Files keep TAU's exact names. */
export function displayName(name: string): string {
  return name.replace(/ {2,}/g, ' ').trim();
}

/**
 * True when a name reads the same split into its parts and joined again by ' => ' (displayName of
 * each part): no run of spaces, no space at either end, no whitespace but spaces (TAU writes two
 * spaces before a [CONTEXT] part). Such a name is its own path key: no second string is made.
 */
export function inDisplayForm(name: string): boolean {
  return !/ {2}|^ | $|[^\S ]/.test(name);
}

/**
 * The probe API for Node programs: regions, phases, parameters, timers, groups, flush.
 *
 * Every probe lands in the same native runtime as C probes (one event registry, one context stack per
 * thread, the stack the sampling signal handler reads). Sync functions are measured with a frame on
 * that stack; `async` functions as async regions (see async-regions.ts for the rule).
 */
import { isAsyncFunction, runAsync, runSync } from './async-regions.js';
import { checkFunction, checkName, describe, HyprofUsageError } from './errors.js';
import { addon, DEFAULT_GROUP, defaultRegions, eventId } from './registry.js';

/** Options of a region, phase or timer. */
export interface EventOptions {
  /** TAU event group (default "TAU_USER"); groups let TAU tools select or hide events together. */
  group?: string;
}

/** Parameter values specialise a region: `<name>  [ <key> = <value> ]  ` in the profile. */
export type ParamValues = Record<string, number | bigint | boolean>;

function groupOf(what: string, options: EventOptions | undefined): string {
  if (options === undefined || options.group === undefined) return DEFAULT_GROUP;
  if (typeof options.group !== 'string' || options.group.length === 0)
    throw new HyprofUsageError(`${what} group must be a non-empty string, got ${describe(options.group)}`);
  return options.group;
}

/**
 * Measure `fn` as a region named `name`; returns what fn returns. When fn is `async` or returns a
 * promise, the region is an async region: its inclusive time runs to the promise's settlement, and
 * samples count for it only while its own code runs.
 */
export function region<T>(name: string, fn: () => T, options?: EventOptions): T {
  // fast path: a default-group region seen before (its name was checked then)
  let id = options === undefined ? defaultRegions.get(name) : undefined;
  if (id === undefined) {
    checkName('region', name);
    checkFunction('region', name, fn);
    id = eventId(name, groupOf('region', options), false);
  } else checkFunction('region', name, fn);
  // no helper function in between: each frame here appears in the unwound callpaths of samples
  if (id < 0) return fn();
  return isAsyncFunction(fn) ? runAsync(id, id, fn) : runSync(id, fn);
}

/**
 * Measure `fn` as a phase (a region TAU shows as a phase: group TAU_PHASE, its own phase profile).
 * Names may be dynamic (`Iteration ${i}`).
 */
export function phase<T>(name: string, fn: () => T, options?: EventOptions): T {
  checkName('phase', name);
  checkFunction('phase', name, fn);
  const id = eventId(name, groupOf('phase', options), true);
  if (id < 0) return fn();
  return isAsyncFunction(fn) ? runAsync(id, id, fn) : runSync(id, fn);
}

function paramValue(name: string, key: string, v: unknown): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER))
    return Number(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  throw new HyprofUsageError(`param '${name}': value of '${key}' must be an integer (or boolean), got ${describe(v)}`);
}

/**
 * Measure `fn` as region `name` specialised by parameters: the time is recorded both under `name`
 * and under `name  [ <key> = <value> ]  ` (TAU's form; several keys chain), and that specialised
 * event is the context of everything inside (samples are partitioned by parameter value).
 */
export function param<T>(name: string, values: ParamValues, fn: () => T, options?: EventOptions): T {
  checkName('param', name);
  if (typeof values !== 'object' || values === null)
    throw new HyprofUsageError(`param '${name}' needs an object of parameter values, got ${describe(values)}`);
  checkFunction('param', name, fn);
  const entries = Object.entries(values).map(([k, v]) => [k, paramValue(name, k, v)] as const);
  const base = eventId(name, groupOf('param', options), false);
  if (base < 0) return fn();
  const native = addon();
  if (isAsyncFunction(fn)) {
    let id = base;
    for (const [k, v] of entries) {
      const next = native.paramEvent(id, base, k, v);
      if (next < 0) return runAsync(base, base, fn);
      id = next;
    }
    return runAsync(id, base, fn);
  }
  return runSync(base, fn, () => {
    for (const [k, v] of entries) native.param(k, v);
  });
}

/** A timer started and stopped explicitly (synchronous code: start and stop on the same thread). */
export interface Timer {
  readonly name: string;
  readonly group: string;
  /** True between start() and stop(). */
  readonly running: boolean;
  start(): void;
  stop(): void;
}

class TimerImpl implements Timer {
  running = false;
  constructor(
    readonly name: string,
    readonly group: string,
    private readonly id: number,
  ) {}
  start(): void {
    if (this.running) throw new HyprofUsageError(`timer '${this.name}' started again while it is running`);
    this.running = true;
    if (this.id >= 0) addon().start(this.id);
  }
  stop(): void {
    if (!this.running)
      throw new HyprofUsageError(`timer '${this.name}' stopped but not running (never started, or already stopped)`);
    this.running = false;
    if (this.id >= 0) addon().stop(this.id);
  }
}

/** A timer named `name`; start() and stop() it around the code to measure. */
export function timer(name: string, options?: EventOptions): Timer {
  checkName('timer', name);
  const group = groupOf('timer', options);
  return new TimerImpl(name, group, eventId(name, group, false));
}

/** The probe functions with a fixed event group. */
export interface Group {
  readonly name: string;
  region<T>(name: string, fn: () => T): T;
  phase<T>(name: string, fn: () => T): T;
  param<T>(name: string, values: ParamValues, fn: () => T): T;
  timer(name: string): Timer;
}

/** Probes whose events belong to TAU group `name` (e.g. "IO", "MPI", "SOLVER"). */
export function group(name: string): Group {
  checkName('group', name);
  const options = { group: name };
  return {
    name,
    region: (n, fn) => region(n, fn, options),
    phase: (n, fn) => phase(n, fn, options),
    param: (n, values, fn) => param(n, values, fn, options),
    timer: (n) => timer(n, options),
  };
}

/** Write the raw measurement file now; measurement goes on (the file is replaced at exit). */
export function flush(): void {
  addon().flush();
}

/**
 * Async regions: an async function measured by `region` (or `phase`, `param`).
 *
 * The rule (the same as for suspended OpenMP tasks): the region's inclusive time runs from its start
 * to its settlement and is recorded whole then; samples go to the region only while its own code
 * runs. Its own code runs in slices: the synchronous part up to the first `await`, then each
 * continuation. For each slice the runtime pushes a frame that records no statistics of its own
 * under the context the region started in, so the slice's context is the region's context (samples
 * and regions started in the slice land there) whatever else ran in between; between slices the
 * frame is gone and other code's samples go to other code. Exclusive time = the time of its slices
 * minus the regions inside them.
 *
 * Continuations are found with one async_hooks hook, enabled when the first async region starts:
 * `init` tags each async resource created while a region's code runs with that region; `before` /
 * `after` of a tagged resource begin / end a slice. Regions on the same thread therefore never share
 * a stack frame, and each worker thread has its own hook, slots and stack.
 */
import { createHook, executionAsyncResource } from 'node:async_hooks';
import { addon } from './registry.js';

interface AsyncRegion {
  /** The runtime's slot; -1 for a sync region (until its function returns a promise). */
  slot: number;
  settled: boolean;
  /** The region that was running when this one started (what a finished sync region's resources
   * belong to). */
  outer: AsyncRegion | undefined;
}

const TAG = Symbol('hyprof.asyncRegion');
type Tagged = { [TAG]?: AsyncRegion };

/** The region whose code is running now (undefined outside any). */
let current: AsyncRegion | undefined;
/** Per `before`: the region that was current, and the region whose slice began (to end in `after`). */
const saved: Array<AsyncRegion | undefined> = [];
const began: Array<AsyncRegion | undefined> = [];
let hookEnabled = false;
/** Async regions not settled yet: at the thread's exit they are recorded with their time so far
 * (as the runtime does with timers still open at exit). */
const live = new Set<AsyncRegion>();

/** A callback created inside a sync region that finished belongs to the region around it. */
function owner(region: AsyncRegion | undefined): AsyncRegion | undefined {
  while (region && region.slot < 0 && region.settled) region = region.outer;
  return region;
}

function enableHook(): void {
  if (hookEnabled) return;
  hookEnabled = true;
  process.once('exit', () => {
    for (const region of [...live]) settle(region, true);
  });
  createHook({
    init(_id, _type, _trigger, resource) {
      if (current && typeof resource === 'object' && resource !== null) (resource as Tagged)[TAG] = current;
    },
    before() {
      const r = executionAsyncResource() as Tagged | undefined;
      const region = owner(r ? r[TAG] : undefined);
      saved.push(current);
      current = region;
      if (region && region.slot >= 0 && !region.settled) {
        addon().sliceBegin(region.slot);
        began.push(region);
      } else began.push(undefined);
    },
    after() {
      const region = began.pop();
      if (region && !region.settled) addon().sliceEnd(region.slot);
      current = saved.pop();
    },
  }).enable();
}

/** Record `region` whole; `unsettled`: its thread exits with it still pending (its time so far is
 * then not a settle time, and the runtime records it apart). */
function settle(region: AsyncRegion, unsettled = false): void {
  if (region.settled) return;
  region.settled = true;
  live.delete(region);
  if (region.slot >= 0) addon().asyncEnd(region.slot, unsettled);
}

/** Settle `region` when `promise` does; the returned promise settles the same way, after. */
function settleWith<T>(region: AsyncRegion, promise: PromiseLike<unknown>): T {
  live.add(region);
  return promise.then(
    (v: unknown) => {
      settle(region);
      return v;
    },
    (e: unknown) => {
      settle(region);
      throw e;
    },
  ) as T;
}

/**
 * Run `fn` as an async region of event `id` (`base`: the region a parameter event specialises).
 * Returns a promise that settles as fn's does, after the region's statistics are recorded.
 */
export function runAsync<T>(id: number, base: number, fn: () => T): T {
  enableHook();
  const native = addon();
  const outer = current;
  const region: AsyncRegion = { slot: native.asyncBegin(id, base), settled: false, outer };
  current = region;
  let result: T;
  try {
    result = fn();
  } catch (e) {
    native.sliceEnd(region.slot);
    current = outer;
    settle(region);
    throw e;
  }
  native.sliceEnd(region.slot);
  current = outer;
  if (!isThenable(result)) {
    settle(region);
    return result;
  }
  return settleWith(region, result);
}

/**
 * Run a plain function as region `id` (a frame on the stack; `setup` runs inside it first, e.g. to
 * set parameters). If it returns a promise, the region goes on as an async region to settlement.
 * Until the first such promise in this thread the async hook is off (it costs every promise in the
 * program something), so only that first region's continuations are not attributed to it.
 */
export function runSync<T>(id: number, fn: () => T, setup?: () => void): T {
  const native = addon();
  native.start(id);
  const outer = current;
  let region: AsyncRegion | undefined;
  if (hookEnabled) current = region = { slot: -1, settled: false, outer };
  let result: T;
  try {
    if (setup) setup();
    result = fn();
  } catch (e) {
    current = outer;
    if (region) region.settled = true;
    native.stop(id);
    throw e;
  }
  current = outer;
  if (!isThenable(result)) {
    if (region) region.settled = true;
    native.stop(id);
    return result;
  }
  enableHook();
  const slot = native.adopt(id);
  if (slot < 0) {
    // Not the innermost frame (fn left a timer running): stop as a sync region; the runtime warns.
    if (region) region.settled = true;
    native.stop(id);
    return result;
  }
  if (!region) region = { slot, settled: false, outer };
  region.slot = slot;
  return settleWith(region, result);
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as PromiseLike<unknown>).then === 'function';
}

const AsyncFunction = (async () => {}).constructor;

/** An `async function` (or async arrow / method, from any realm): measured as an async region. */
export function isAsyncFunction(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  const c = fn.constructor;
  if (c === AsyncFunction) return true;
  // another realm's AsyncFunction (vm contexts); a plain function's constructor is Function
  return c !== Function && Object.prototype.toString.call(fn) === '[object AsyncFunction]';
}

/**
 * The bridge to the native runtime for the probe API: loads the addon once per JavaScript thread,
 * measures that thread from the first import, and caches name -> event id so that a probe costs one
 * Map lookup plus the native call.
 */
import { isMainThread, threadId } from 'node:worker_threads';
import { loadAddon, type HyprofAddon } from './addon.js';

export const DEFAULT_GROUP = 'TAU_USER';

let native: HyprofAddon | undefined;
/** group -> name -> id; phases in their own table (a phase and a region may share a name). */
const regions = new Map<string, Map<string, number>>();
const phases = new Map<string, Map<string, number>>();

/** The addon, loaded on first use; this thread is then measured (workers named in the profile). */
export function addon(): HyprofAddon {
  if (!native) {
    native = loadAddon();
    native.registerThread(isMainThread ? undefined : `worker ${threadId}`);
  }
  return native;
}

/** Regions of the default group by name: the probe fast path (one Map lookup; only valid names are
 * ever added). */
export const defaultRegions = new Map<string, number>();
regions.set(DEFAULT_GROUP, defaultRegions);

/** The id of event (name, group, kind); -1 when measurement is off. */
export function eventId(name: string, group: string, phase: boolean): number {
  const table = phase ? phases : regions;
  let byName = table.get(group);
  if (!byName) table.set(group, (byName = new Map()));
  let id = byName.get(name);
  if (id === undefined) {
    id = addon().event(name, group, phase);
    byName.set(name, id);
  }
  return id;
}

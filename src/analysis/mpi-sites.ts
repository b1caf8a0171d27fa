/**
 * MPI call sites of a measured process, named: each call site the MPI layer recorded (its section,
 * mpi-raw.ts) becomes "MPI_Allreduce() called from main => solve at solve.c:42 (solve), 100 calls,
 * 12.5 ms". They are kept in each thread's profile metadata ("hyprof MPI call sites", JSON), so the
 * TAU profile directory alone carries them: `hyprof report --mpi / --diagnose` and the viewer read
 * them there, whichever process resolved which rank.
 */
import type { RawProcess } from '../samples/raw-model.js';
import type { Symbolizer } from '../symbolize/symbolizer.js';
import { readMpiSection, type MpiCallSite } from './mpi-raw.js';

/** The metadata key of a thread's call sites. */
export const MPI_SITES_KEY = 'hyprof MPI call sites';

export interface MpiSiteRecord {
  /** The MPI call, as its timer is named: `MPI_Allreduce()`. */
  call: string;
  /** The event path of the context the call was made in (display form), '' at the root. */
  caller: string;
  /** `file:line (function)` of the call, or the object file and offset when it has no line info. */
  location: string;
  calls: number;
  /** Inclusive time in the call, microseconds (the profile's unit). */
  usec: number;
}

/** The event path of context `c` (names joined by ' => '), without the root. */
function pathOf(proc: RawProcess, c: bigint): string {
  const names: string[] = [];
  for (let ctx = proc.contexts.get(c), guard = 0; ctx && ctx.parent !== 0n && guard < 1000; ctx = proc.contexts.get(ctx.parent), guard++) {
    names.push(proc.events[ctx.event]?.name ?? `event ${ctx.event}`);
  }
  return names.reverse().join(' => ');
}

/**
 * The call sites of every thread of `proc`, by thread index; an empty map when the process ran
 * without the MPI layer. Symbolizes each object's call sites in one batch.
 */
export async function mpiCallSites(proc: RawProcess, symbolizer: Symbolizer): Promise<Map<number, MpiSiteRecord[]>> {
  const out = new Map<number, MpiSiteRecord[]>();
  const sites: MpiCallSite[] = readMpiSection(proc.file) ?? [];
  if (sites.length === 0) return out;
  const byObject = new Map<string, Set<bigint>>();
  for (const s of sites) {
    if (!s.path) continue;
    let set = byObject.get(s.path);
    if (!set) byObject.set(s.path, (set = new Set()));
    set.add(s.pc - 1n - s.bias); // a return address: the call is the instruction before
  }
  const located = new Map<string, string>();
  for (const [path, addrs] of byObject) {
    const list = [...addrs];
    const frames = await symbolizer.symbolizeModule(path, '', list);
    list.forEach((a, i) => {
      const f = frames[i];
      // The innermost frame: the function the call is written in, even when it was inlined.
      if (f && f.length > 0 && f[0].line > 0) located.set(`${path}@${a}`, `${f[0].file}:${f[0].line} (${f[0].function})`);
      else if (f && f.length > 0) located.set(`${path}@${a}`, `${f[0].function} in ${path}`);
    });
  }
  // Several return addresses can be one line (calls written on one line, an unrolled loop): the
  // layer records each address, a thread's list holds each call, context and line once.
  const byKey = new Map<number, Map<string, MpiSiteRecord>>();
  for (const s of sites) {
    const ctx = proc.contexts.get(s.context);
    const addr = s.pc - 1n - s.bias;
    const call = proc.events[s.event]?.name ?? `event ${s.event}`;
    const caller = ctx ? pathOf(proc, ctx.parent) : '';
    const location = located.get(`${s.path}@${addr}`) ?? `${s.path || 'UNKNOWN'}+0x${addr.toString(16)}`;
    let mine = byKey.get(s.thread);
    if (!mine) byKey.set(s.thread, (mine = new Map()));
    const key = `${call}\u0000${caller}\u0000${location}`;
    const known = mine.get(key);
    if (known) {
      known.calls += s.calls;
      known.usec += s.ns / 1000;
    } else {
      mine.set(key, { call, caller, location, calls: s.calls, usec: s.ns / 1000 });
    }
  }
  for (const [thread, mine] of byKey) out.set(thread, [...mine.values()]);
  for (const list of out.values()) list.sort((a, b) => b.usec - a.usec || (a.location < b.location ? -1 : 1));
  return out;
}

/** Read back the call sites of one thread's profile metadata ([] when there are none or they are unreadable). */
export function callSitesOf(metadata: Array<[string, string]>): MpiSiteRecord[] {
  const v = metadata.find(([k]) => k === MPI_SITES_KEY)?.[1];
  if (!v) return [];
  try {
    const parsed = JSON.parse(v) as unknown;
    return Array.isArray(parsed) ? (parsed as MpiSiteRecord[]) : [];
  } catch {
    return [];
  }
}

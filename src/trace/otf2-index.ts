/**
 * The trace room: hyprof's readers of OTF2 traces (docs/trace-readers.md; the archive's conventions:
 * docs/trace.md). A profile directory may hold an
 * OTF2 archive, `traces.otf2` (anchor), `traces.def` and `traces/`, beside the profile files. It is read
 * through the OTF2 library by a small native program, hyprof-otf2-read (native/otf2-read/, built only
 * where libotf2 is installed), whose output — definitions and, per location, the events as columns in
 * time order — this file loads into typed arrays. trace-model.ts turns them into what the readers
 * use (lanes of nested regions, matched messages, collectives, tasks, samples); the timeline's
 * range queries (trace-query.ts), the wait states (wait-states.ts) and the Chrome export work on that.
 * A trace is optional everywhere: nothing here runs for a directory without one.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../base/errors.js';

/** Event kinds of the index (native/otf2-read/otf2_read.c, EV_*). */
export const EV = {
  ENTER: 0,
  LEAVE: 1,
  SEND: 2,
  RECV: 3,
  ISEND: 4,
  ISEND_COMPLETE: 5,
  IRECV_REQUEST: 6,
  IRECV: 7,
  COLL_BEGIN: 8,
  COLL_END: 9,
  FORK: 10,
  JOIN: 11,
  TEAM_BEGIN: 12,
  TEAM_END: 13,
  TASK_CREATE: 14,
  TASK_SWITCH: 15,
  TASK_COMPLETE: 16,
  SAMPLE: 17,
  LOCK_ACQUIRE: 18,
  LOCK_RELEASE: 19,
} as const;

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The reader program, built beside the runtime (scripts/build-otf2-read.sh). */
export const otf2ReadPath = join(packageRoot, 'build', 'Release', 'hyprof-otf2-read');

/** The archive's anchor file in a profile directory (docs/trace.md). */
export function traceAnchor(dir: string): string {
  return join(dir, 'traces.otf2');
}

/** True when the directory holds a trace (its anchor file). */
export function hasTrace(dir: string): boolean {
  try {
    return statSync(traceAnchor(dir)).isFile();
  } catch {
    return false;
  }
}

/** Why traces cannot be read on this installation, or null when they can. */
export function traceReaderMissing(): string | null {
  if (existsSync(otf2ReadPath)) return null;
  return (
    `the OTF2 trace reader (${otf2ReadPath}) was not built: the OTF2 library was not found when hyprof was built ` +
    '(install libopen-trace-format2-dev, e.g. scripts/install-deps.sh, then npm run build; docs/trace-readers.md)'
  );
}

export interface RegionDef {
  name: string;
  /** The TAU group (the region's description, docs/trace.md). */
  group: string;
  role: number;
  paradigm: number;
  file: string;
  line: number;
}

export interface LocationDef {
  id: bigint | number;
  name: string;
  type: number;
  group: number;
}

export interface LocationGroupDef {
  name: string;
  type: number;
  node: number;
  /** The group that created it (a GPU device's: its process), or -1. */
  creator: number;
}

/** One location's events, in time order: parallel columns (kinds and meanings in EV / otf2_read.c). */
export interface LocationEvents {
  /** Nanoseconds after the clock's global offset. */
  time: Float64Array;
  kind: Uint8Array;
  a: Int32Array;
  b: Int32Array;
  /** Rows of 4 numbers that some kinds point to with b. */
  aux: Float64Array;
  /** Attributes on events: event index → attribute name → value. */
  attrs: Map<number, Record<string, number | string>>;
  /** Regions still open at the location's end (closed by the model at the last timestamp). */
  open: number;
  /** Events of kinds the readers do not use (metrics, I/O, ...). */
  other: number;
}

export interface TraceDefs {
  clock: { resolution: number; offset: number; length: number };
  strings: Map<number, string>;
  nodes: Map<number, { name: string; cls: string; parent: number }>;
  locationGroups: Map<number, LocationGroupDef>;
  locations: LocationDef[];
  regions: Map<number, RegionDef>;
  groups: Map<number, { name: string; type: number; paradigm: number; members: number[] }>;
  comms: Map<number, { name: string; group: number; parent: number }>;
  attributes: Map<number, { name: string; type: number }>;
  sourceCodeLocations: Map<number, { file: string; line: number }>;
  callingContexts: Map<number, { region: number; scl: number; parent: number }>;
  interruptGenerators: Map<number, { name: string; mode: number; base: number; exponent: number; period: number }>;
  locationProperties: Array<{ location: number; name: string; value: number | string }>;
}

export interface TraceIndex {
  anchor: string;
  defs: TraceDefs;
  /** Per location (defs.locations order). */
  events: LocationEvents[];
}

type Raw = Record<string, unknown> & { clock: TraceDefs['clock'] };

function resolveDefs(raw: Raw): TraceDefs {
  const strings = new Map<number, string>();
  for (const [ref, s] of raw.strings as Array<[number, string]>) strings.set(ref, s);
  const s = (ref: number): string => (ref < 0 ? '' : (strings.get(ref) ?? ''));
  const rows = (key: string): number[][] => raw[key] as number[][];
  const value = (v: unknown): number | string =>
    typeof v === 'number' ? v : typeof v === 'object' && v !== null && 's' in v ? s((v as { s: number }).s) : JSON.stringify(v);
  return {
    clock: raw.clock,
    strings,
    nodes: new Map(rows('nodes').map(([id, name, cls, parent]) => [id, { name: s(name), cls: s(cls), parent }])),
    locationGroups: new Map(rows('locationGroups').map(([id, name, type, node, creator]) => [id, { name: s(name), type, node, creator: creator ?? -1 }])),
    locations: rows('locations').map(([id, name, type, , group]) => ({ id, name: s(name), type, group })),
    regions: new Map(
      rows('regions').map(([id, name, , desc, role, paradigm, file, line]) => [
        id,
        { name: s(name), group: s(desc), role, paradigm, file: s(file), line },
      ]),
    ),
    groups: new Map(
      (raw.groups as Array<[number, number, number, number, number[]]>).map(([id, name, type, paradigm, members]) => [
        id,
        { name: s(name), type, paradigm, members },
      ]),
    ),
    comms: new Map(rows('comms').map(([id, name, group, parent]) => [id, { name: s(name), group, parent }])),
    attributes: new Map(rows('attributes').map(([id, name, type]) => [id, { name: s(name), type }])),
    sourceCodeLocations: new Map(rows('sourceCodeLocations').map(([id, file, line]) => [id, { file: s(file), line }])),
    callingContexts: new Map(rows('callingContexts').map(([id, region, scl, parent]) => [id, { region, scl, parent }])),
    interruptGenerators: new Map(
      rows('interruptGenerators').map(([id, name, mode, base, exponent, period]) => [
        id,
        { name: s(name), mode, base, exponent, period },
      ]),
    ),
    locationProperties: (raw.locationProperties as Array<[number, number, unknown]>).map(([location, name, v]) => ({
      location,
      name: s(name),
      value: value(v),
    })),
  };
}

/** Parses the reader program's output (the layout in otf2_read.c). */
export function parseIndex(anchor: string, buf: Buffer): TraceIndex {
  const bad = (what: string): never => {
    throw new UserError(`${anchor}: the OTF2 reader's output is not understood (${what}): rebuild hyprof`, 1);
  };
  let at = 0;
  const need = (n: number): void => {
    if (at + n > buf.length) bad(`ends at byte ${buf.length}`);
  };
  const u32 = (): number => {
    need(4);
    const v = buf.readUInt32LE(at);
    at += 4;
    return v;
  };
  const pad8 = (): void => {
    at = (at + 7) & ~7;
  };
  need(8);
  if (buf.toString('latin1', 0, 8) !== 'HPTRIDX1') bad('no header');
  at = 8;
  const jsonLen = u32();
  need(jsonLen);
  const raw = JSON.parse(buf.toString('utf8', at, at + jsonLen)) as Raw;
  at += jsonLen;
  pad8();
  const defs = resolveDefs(raw);
  // Copies into fresh typed arrays: the output buffer need not be aligned, and is freed after.
  const f64 = (n: number): Float64Array => {
    need(n * 8);
    const out = new Float64Array(n);
    Buffer.from(out.buffer).set(buf.subarray(at, at + n * 8));
    at += n * 8;
    return out;
  };
  const i32 = (n: number): Int32Array => {
    need(n * 4);
    const out = new Int32Array(n);
    Buffer.from(out.buffer).set(buf.subarray(at, at + n * 4));
    at += n * 4;
    return out;
  };
  const events: LocationEvents[] = [];
  for (let i = 0; i < defs.locations.length; i++) {
    const index = u32();
    if (index !== i) bad(`location ${i} expected, ${index} found`);
    const n = u32();
    const naux = u32();
    const tailLen = u32();
    pad8();
    const time = f64(n);
    need(n);
    const kind = new Uint8Array(buf.subarray(at, at + n));
    at += n;
    pad8();
    const a = i32(n);
    const b = i32(n);
    pad8();
    const aux = f64(naux * 4);
    need(tailLen);
    const tail = JSON.parse(buf.toString('utf8', at, at + tailLen)) as {
      attrs: Array<[number, number, unknown]>;
      open: number;
      other: number;
    };
    at += tailLen;
    pad8();
    const attrs = new Map<number, Record<string, number | string>>();
    for (const [ev, ref, v] of tail.attrs) {
      const name = defs.attributes.get(ref)?.name ?? `attribute ${ref}`;
      const val = typeof v === 'number' ? v : typeof v === 'object' && v && 's' in v ? (defs.strings.get((v as { s: number }).s) ?? '') : JSON.stringify(v);
      let rec = attrs.get(ev);
      if (!rec) attrs.set(ev, (rec = {}));
      rec[name] = val;
    }
    events.push({ time, kind, a, b, aux, attrs, open: tail.open, other: tail.other });
  }
  need(8);
  if (buf.toString('latin1', at, at + 7) !== 'HPTREND') bad('no end mark');
  return { anchor, defs, events };
}

/**
 * Reads the trace of a profile directory. Refused with one line: no reader built, no trace, or an
 * archive the OTF2 library (or the reader's checks) finds damaged, naming the file and the place.
 */
export async function readTrace(dir: string): Promise<TraceIndex> {
  const anchor = traceAnchor(dir);
  if (!hasTrace(dir)) throw new UserError(`${dir}: no trace (${anchor} is missing; record one with HYPROF_TRACE=1)`, 2);
  const missing = traceReaderMissing();
  if (missing) throw new UserError(`${anchor}: cannot read the trace: ${missing}`, 1);
  const chunks: Buffer[] = [];
  let err = '';
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(otf2ReadPath, [anchor], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', fail);
    child.on('close', (c, signal) => done(signal ? -1 : c));
  });
  if (code !== 0) {
    const line = err.trim().split('\n').filter(Boolean).pop();
    throw new UserError(line ? `trace refused: ${line}` : `${anchor}: the OTF2 reader stopped (status ${code})`, 1);
  }
  return parseIndex(anchor, Buffer.concat(chunks));
}

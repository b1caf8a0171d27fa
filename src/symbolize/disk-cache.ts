/**
 * Symbols kept on disk between runs, keyed by build id (an object with the same build id has the same
 * code and debug information): `$XDG_CACHE_HOME/hyprof/symbols/<build id>.<tool>.lines`, else under
 * `~/.cache`. Best effort: an unreadable or unwritable cache only costs time. A new file is written to
 * a temporary name and renamed, and later resolves append whole lines to it, so concurrent resolves
 * never read half an entry.
 */
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync, writeSync, type Stats } from 'node:fs';
import { makeDirs } from '../base/make-dirs.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SourceFrame, SymbolizerTool } from './frames.js';
import { indexOf, readIndex, writeIndex, type Index, type Lines } from './disk-cache-index.js';

const YES = ['1', 'on', 'true', 'yes', 'enable', 'enabled'];
const NO = ['0', 'off', 'false', 'no', 'disable', 'disabled'];

/** The cache directory, or null when HYPROF_SYMBOL_CACHE turns it off (a boolean, read as the runtime
 * reads its booleans; anything else is warned about and the default used). */
export function defaultCacheDir(warn: (text: string) => void = () => {}): string | null {
  const setting = process.env.HYPROF_SYMBOL_CACHE;
  if (setting) {
    if (NO.includes(setting.toLowerCase())) return null;
    if (!YES.includes(setting.toLowerCase())) warn(`HYPROF_SYMBOL_CACHE=${setting} is not a boolean (1/0, on/off, true/false, yes/no); using 1`);
  }
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'hyprof', 'symbols');
}

function fileOf(dir: string, buildId: string, tool: SymbolizerTool): string {
  return join(dir, `${buildId.replace(/[^0-9a-fA-F]/g, '')}.${tool}.lines`);
}

/** One stored frame as symbolization gives it; anything else marks the file as corrupt. */
function isFrame(f: unknown): f is SourceFrame {
  const x = f as SourceFrame;
  return (
    typeof x === 'object' && x !== null && typeof x.function === 'string' && typeof x.file === 'string' &&
    Number.isSafeInteger(x.line) && x.line >= 0
  );
}

function isFrames(frames: unknown): frames is SourceFrame[] | null {
  return frames === null || (Array.isArray(frames) && frames.length > 0 && frames.every(isFrame));
}

const ADDRESS = /^[0-9a-f]{1,16}$/;

/**
 * The region of a module address named by its symbol alone (symbol-regions.ts): every address in it
 * gets the same answer from the tool. Null where that cannot be said.
 */
export type RegionOf = (address: bigint) => [bigint, bigint] | null;

/** What a cache file gave: the symbols asked for that it holds, and whether it can be added to. */
export interface LoadedSymbols {
  symbols: Map<bigint, SourceFrame[] | null>;
  /** Wanted addresses it does not hold, answered by another address of the same region (`regionOf`). */
  byFunction: Map<bigint, SourceFrame[]>;
  /** false: no file, or one that cannot be trusted (saveSymbols then replaces it). */
  trusted: boolean;
}

/**
 * The stored symbols of the addresses `wanted` of one module. The file is one line per address,
 * `<hex address>\t<frames as JSON, or null>`, appended to by each resolve that symbolized new
 * addresses: a module's file grows with every address ever sampled in it (node's holds tens of
 * thousands of lines, about 10 MB), and a resolve wants a few thousand. So the file has an index
 * beside it (`index.ts`): the lines it covers are found by binary search and read one by one; only
 * the lines appended since it was written are scanned, and the index is then rewritten to cover
 * them (no index, as in caches kept by earlier versions: the whole file is scanned once and the
 * index written). A line not ended by a newline (a resolve still appending) is not read. Nothing
 * (the module is symbolized afresh and the file replaced) when there is no file or it cannot be
 * trusted: not a regular file of this user's, writable by every user, a scanned line of another
 * shape, or a wanted line that is not valid JSON of the stored shape. An index that does not match
 * its file (a line it points to is not the line of its address) is not used: the file is scanned.
 * A cache must never change what a profile says: the frames always come from the lines file.
 * With `regionOf`, a wanted address the file does not hold may take the line of another address of
 * its region (`byFunction`), where the tool answers every address alike.
 */
export function loadSymbols(dir: string, buildId: string, tool: SymbolizerTool, wanted: Set<bigint>, regionOf?: RegionOf): LoadedSymbols {
  const none = (): LoadedSymbols => ({ symbols: new Map(), byFunction: new Map(), trusted: false });
  const file = fileOf(dir, buildId, tool);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return none(); /* no cache yet, or unreadable: symbolize afresh */
  }
  try {
    const st = fstatSync(fd);
    if (!ownFile(st)) return none();
    const index = readIndex(indexOf(file), ownFile);
    const out = index && index.covered <= st.size ? fromIndex(fd, index, wanted) : null;
    if (out) {
      // Lines appended since the index was written: scanned, and then indexed.
      const tail = scan(readRange(fd, index!.covered, st.size - index!.covered), index!.covered, wanted, out);
      if (!tail) return none();
      if (tail.addresses.length > 0) writeIndex(indexOf(file), tail, index);
      return { symbols: out, byFunction: byFunction(fd, wanted, out, regionOf, [index!, tail]), trusted: true };
    }
    const all = new Map<bigint, SourceFrame[] | null>();
    const whole = scan(readRange(fd, 0, st.size), 0, wanted, all);
    if (!whole) return none();
    writeIndex(indexOf(file), whole);
    // Regions are looked up in the index just written (sorted); without one (a read-only cache), not at all.
    const fresh = regionOf ? readIndex(indexOf(file), ownFile) : null;
    return { symbols: all, byFunction: fresh ? byFunction(fd, wanted, all, regionOf, [fresh]) : new Map(), trusted: true };
  } catch {
    return none();
  } finally {
    closeSync(fd);
  }
}

/** Only this user's regular files, not writable by every user, are believed (cache and index). */
function ownFile(st: Stats): boolean {
  const uid = process.getuid?.();
  return st.isFile() && (uid === undefined || st.uid === uid) && (st.mode & 0o002) === 0;
}

/** `length` bytes of the file from `at`. */
function readRange(fd: number, at: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The frames stored on one line's text after its tab, or undefined when they are not of the stored shape. */
function framesOf(json: string): SourceFrame[] | null | undefined {
  const frames = JSON.parse(json) as unknown;
  return isFrames(frames) ? frames : undefined;
}

/**
 * The lines of `buf` (the file's bytes from `base`), each checked for shape, the wanted ones parsed
 * into `out`; what they hold, for the index (a later line of the same address wins, as it always
 * did). Null when a line is of another shape. The part after the last newline is left out.
 */
function scan(buf: Buffer, base: number, wanted: Set<bigint>, out: Map<bigint, SourceFrame[] | null>): Lines | null {
  const lines: Lines = { covered: base, addresses: [], offsets: [], lengths: [] };
  const end = buf.lastIndexOf(0x0a);
  for (let at = 0; at < end; ) {
    const nl = buf.indexOf(0x0a, at);
    const tab = buf.indexOf(0x09, at);
    if (tab < 0 || tab > nl) return null;
    const hex = buf.toString('latin1', at, tab);
    if (!ADDRESS.test(hex)) return null;
    const address = BigInt(`0x${hex}`);
    if (wanted.has(address)) {
      const frames = framesOf(buf.toString('utf8', tab + 1, nl));
      if (frames === undefined) return null;
      out.set(address, frames);
    }
    lines.addresses.push(address);
    lines.offsets.push(base + at);
    lines.lengths.push(nl + 1 - at);
    at = nl + 1;
  }
  lines.covered = base + end + 1;
  return lines;
}

/**
 * The wanted addresses the index holds, each read from its line (which must be the line of that
 * address: `<hex>\t…\n`, at the place and of the length the index says). Null when a line is not
 * (the index is stale: the file was replaced), or a wanted line is not of the stored shape.
 */
function fromIndex(fd: number, index: Index, wanted: Set<bigint>): Map<bigint, SourceFrame[] | null> | null {
  const out = new Map<bigint, SourceFrame[] | null>();
  for (const address of wanted) {
    const i = index.find(address);
    if (i < 0) continue;
    const frames = lineAt(fd, address, index.offsets[i], index.lengths[i]);
    if (frames === undefined) return null;
    out.set(address, frames);
  }
  return out;
}

/** The frames of `address`'s line at `offset` (`length` bytes with its newline); undefined when the
 * line there is not that address's, or not of the stored shape. */
function lineAt(fd: number, address: bigint, offset: number, length: number): SourceFrame[] | null | undefined {
  const buf = Buffer.allocUnsafe(length);
  if (readSync(fd, buf, 0, length, offset) !== length) return undefined;
  const head = `${address.toString(16)}\t`;
  if (buf[length - 1] !== 0x0a || buf.toString('latin1', 0, head.length) !== head) return undefined;
  return framesOf(buf.toString('utf8', head.length, length - 1));
}

/**
 * The wanted addresses the file does not hold, each answered by a stored address of its region
 * (`regionOf`): the tool gives every address of a region the same answer, so the stored one is the
 * answer. Only a one-frame answer without a line is taken (what the symbol table alone gives); any
 * other leaves the address to the tool. `sources`: the index (sorted), and lines scanned in file order.
 */
function byFunction(
  fd: number,
  wanted: Set<bigint>,
  held: Map<bigint, SourceFrame[] | null>,
  regionOf: RegionOf | undefined,
  sources: Array<Index | Lines>,
): Map<bigint, SourceFrame[]> {
  const out = new Map<bigint, SourceFrame[]>();
  if (!regionOf) return out;
  for (const address of wanted) {
    if (held.has(address)) continue;
    const region = regionOf(address);
    if (!region) continue;
    for (const source of sources) {
      const i = firstIn(source, region[0], region[1]);
      if (i < 0) continue;
      const frames = lineAt(fd, source.addresses[i], source.offsets[i], source.lengths[i]);
      if (frames && frames.length === 1 && frames[0].line === 0) out.set(address, frames);
      break;
    }
  }
  return out;
}

/** An entry of `source` whose address lies in [lo, hi), or −1: by binary search in an index, else a pass. */
function firstIn(source: Index | Lines, lo: bigint, hi: bigint): number {
  const a = source.addresses;
  if (!('find' in source)) return a.findIndex((x) => x >= lo && x < hi);
  let l = 0;
  let h = a.length;
  while (l < h) {
    const mid = (l + h) >>> 1;
    if (a[mid] < lo) l = mid + 1;
    else h = mid;
  }
  return l < a.length && a[l] < hi ? l : -1;
}

/**
 * Keep `added` (addresses symbolized by this resolve) for later ones: appended to a trusted file (one
 * write of whole lines, so that resolves appending at once never interleave within a line), else
 * written as a new file in place of the untrusted one (a temporary name, then renamed).
 */
export function saveSymbols(dir: string, buildId: string, tool: SymbolizerTool, added: Map<bigint, SourceFrame[] | null>, trusted: boolean): void {
  if (added.size === 0) return;
  const lines = [...added].map(([a, f]) => `${a.toString(16)}\t${JSON.stringify(f)}\n`).join('');
  const file = fileOf(dir, buildId, tool);
  try {
    makeDirs(dir); // never Node's recursive mkdir: it spins on procfs (base/make-dirs.ts)
    if (trusted) {
      const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
      try {
        writeSync(fd, lines);
      } finally {
        closeSync(fd);
      }
      return;
    }
    const tmp = `${file}.tmp.${process.pid}`;
    writeFileSync(tmp, lines);
    // The old file's index would point into the new one: gone first (the next resolve writes one).
    rmSync(indexOf(file), { force: true });
    renameSync(tmp, file);
  } catch {
    /* a read-only home: no cache */
  }
}

/** Symbol regions kept by build id (symbol-regions.ts): start and end of each, as numbers. */
export interface StoredRegions {
  starts: Float64Array;
  ends: Float64Array;
}

const REGIONS_MAGIC = 0x47525948; // "HYRG" read in little-endian order
const REGIONS_VERSION = 1;
const REGIONS_HEADER = 16;

function regionsFileOf(dir: string, buildId: string): string {
  return join(dir, `${buildId.replace(/[^0-9a-fA-F]/g, '')}.regions`);
}

/**
 * The regions stored for `buildId`, or null when there is no such file, it is not this user's own
 * (as the lines files), or not of this layout: a header (magic, version, count) and the starts and
 * ends, little-endian f64. Starts must ascend, and each end be 0 or after its start.
 */
export function loadRegions(dir: string, buildId: string): StoredRegions | null {
  let fd: number;
  try {
    fd = openSync(regionsFileOf(dir, buildId), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!ownFile(st) || st.size < REGIONS_HEADER) return null;
    const bytes = new Uint8Array(st.size); // a fresh buffer: the typed arrays below must be aligned
    if (readSync(fd, bytes, 0, st.size, 0) !== st.size) return null;
    const head = new Uint32Array(bytes.buffer, 0, 2);
    const count = new Float64Array(bytes.buffer, 8, 1)[0];
    if (head[0] !== REGIONS_MAGIC || head[1] !== REGIONS_VERSION || !Number.isSafeInteger(count) || st.size !== REGIONS_HEADER + 16 * count) return null;
    const starts = new Float64Array(bytes.buffer, REGIONS_HEADER, count);
    const ends = new Float64Array(bytes.buffer, REGIONS_HEADER + 8 * count, count);
    for (let i = 0; i < count; i++) {
      if ((i > 0 && !(starts[i] > starts[i - 1])) || !(ends[i] === 0 || ends[i] > starts[i])) return null;
    }
    return { starts, ends };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Keep the regions of `buildId` (a temporary name, then renamed). Best effort. */
export function saveRegions(dir: string, buildId: string, r: StoredRegions): void {
  const count = r.starts.length;
  const out = new Uint8Array(REGIONS_HEADER + 16 * count);
  new Uint32Array(out.buffer, 0, 2).set([REGIONS_MAGIC, REGIONS_VERSION]);
  new Float64Array(out.buffer, 8, 1)[0] = count;
  new Float64Array(out.buffer, REGIONS_HEADER, count).set(r.starts);
  new Float64Array(out.buffer, REGIONS_HEADER + 8 * count, count).set(r.ends);
  const file = regionsFileOf(dir, buildId);
  const tmp = `${file}.tmp.${process.pid}`;
  try {
    makeDirs(dir);
    writeFileSync(tmp, out, { mode: 0o644 });
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}

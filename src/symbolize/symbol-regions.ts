/**
 * Where an object file's addresses are named by its symbol table alone, so that every address of one
 * function gets the same answer from llvm-symbolizer: the function's name, the file of the STT_FILE
 * symbol before it, line 0. Then a new address of a function some earlier resolve symbolized takes
 * that function's stored answer (disk-cache.ts) instead of a run of the tool over the object, which
 * for node costs tens of milliseconds of CPU to read 109,000 symbols, for a handful of new addresses
 * in functions seen many times.
 *
 * The tool answers an address from its symbol table when no debug information covers it. Here that
 * is claimed only where it can be checked:
 * - no debug information kept elsewhere: no `.gnu_debuglink` target beside the file, in its `.debug/`
 *   or under /usr/lib/debug, no /usr/lib/debug/.build-id file, no debuginfod (DEBUGINFOD_URLS), no
 *   compressed debug sections, no MiniDebugInfo (`.gnu_debugdata`); a link that names a path
 *   rather than a file gives no regions, and no path of it is looked at;
 * - the file's own debug information (`.debug_info`) comes with `.debug_aranges` listing every
 *   compilation unit, and the address lies outside every range listed there (node has DWARF for
 *   libuv only);
 * - the symbol that names it is one the tool must pick: the tool takes the symbol at the greatest
 *   start at or before the address, so a region runs from one symbol start to the next, and only
 *   where every symbol starting there is a function with a size that still holds the address. Every
 *   defined symbol of either table but sections and files counts as a start (more than the tool
 *   reads: a region is only ever cut shorter).
 * Anything else (another symbolizer, an unreadable file, a 64-bit DWARF unit) gives no regions, and
 * the tool is run as before.
 */
import { closeSync, existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildIdIn } from './elf-build-id.js';
import { loadRegions, saveRegions, type StoredRegions } from './disk-cache.js';
import { cstring, openElf64, readAt, sectionHeaders, SHT_DYNSYM, SHT_SYMTAB, STT_FUNC, type ElfData, type ElfSection } from './elf-read.js';
import { lastAtOrBefore } from './sorted-search.js';

const STT_SECTION = 3;
const STT_FILE = 4;
const STT_GNU_IFUNC = 10;
const SHF_COMPRESSED = 0x800n;
const DW_UT_TYPE = 2;
const DW_UT_SPLIT_TYPE = 6;
const DEBUG_ROOT = '/usr/lib/debug';

export class SymbolRegions {
  /**
   * @param starts every symbol start, ascending, unique (module addresses as numbers: below 2^53)
   * @param ends where the region from each start stops being named by that start's functions alone;
   *   0 where it never is
   */
  private constructor(
    private readonly starts: Float64Array,
    private readonly ends: Float64Array,
  ) {}

  /**
   * The regions of the object at `path` when it is the one with `buildId`, else null (see above).
   * What the file alone decides (its symbols, its debug information's ranges) is kept in `cacheDir`
   * by build id, computed once (node's 109,000 symbols take about 50–80 ms); where else debug
   * information may be is looked at every time, as it can be installed at any time.
   */
  static read(path: string, buildId: string, cacheDir: string | null): SymbolRegions | null {
    if (!buildId || process.env.DEBUGINFOD_URLS) return null;
    const elf = openElf64(path);
    if (!elf) return null;
    try {
      // The file's own build id first: only a hex id read from it names a path below.
      if (elf.header.length === 0 || buildIdIn(elf.fd) !== buildId || !/^[0-9a-f]{4,}$/.test(buildId)) return null;
      if (existsSync(join(DEBUG_ROOT, '.build-id', buildId.slice(0, 2), `${buildId.slice(2)}.debug`))) return null;
      const sections = namedSections(elf.fd, elf.header);
      const link = sections.find((s) => s.name === '.gnu_debuglink');
      if (link) {
        // A file's name, as objcopy writes it; anything else (a path) is looked up nowhere: no regions.
        const name = cstring(readAt(elf.fd, link.offset, link.size), 0);
        if (name.includes('/') || debugLinkTargets(path, name).some((f) => existsSync(f))) return null;
      }
      let r = cacheDir ? loadRegions(cacheDir, buildId) : null;
      if (!r) {
        r = regionsOf(elf.fd, sections);
        if (cacheDir) saveRegions(cacheDir, buildId, r);
      }
      return r.starts.length > 0 ? new SymbolRegions(r.starts, r.ends) : null;
    } catch {
      return null; // a truncated or odd file: the tool decides, as before
    } finally {
      closeSync(elf.fd);
    }
  }

  /** [start, end) of the region of `address` named by its symbol alone, or null. */
  regionOf(address: bigint): [bigint, bigint] | null {
    const a = Number(address);
    const i = lastAtOrBefore(this.starts.length, (k) => this.starts[k] <= a);
    if (i < 0 || !(this.ends[i] > a)) return null;
    return [BigInt(this.starts[i]), BigInt(this.ends[i])];
  }

  /** Regions as buildRegions() gives them (tests). */
  static of(r: StoredRegions): SymbolRegions {
    return new SymbolRegions(r.starts, r.ends);
  }
}

type NamedSection = ElfSection & { name: string };

function namedSections(fd: number, header: Buffer): NamedSection[] {
  const raw = sectionHeaders(fd, header);
  const shstr = raw[header.readUInt16LE(62)];
  if (!shstr) return [];
  const names = readAt(fd, shstr.offset, shstr.size);
  return raw.map((r) => ({ ...r, name: cstring(names, r.nameOffset) }));
}

const NONE: StoredRegions = { starts: new Float64Array(0), ends: new Float64Array(0) };

/** The regions from the file's own sections: none where its debug information cannot be bounded. */
function regionsOf(fd: number, sections: NamedSection[]): StoredRegions {
  const named = (n: string) => sections.find((s) => s.name === n);
  if (sections.some((s) => s.name.startsWith('.zdebug') || s.name === '.gnu_debugdata')) return NONE;
  if (sections.some((s) => s.name.startsWith('.debug_') && (s.flags & SHF_COMPRESSED) !== 0n)) return NONE;
  const info = named('.debug_info');
  let covered: Array<[number, number]> = [];
  if (info) {
    const aranges = named('.debug_aranges');
    if (!aranges) return NONE;
    const listed = readAranges(readAt(fd, aranges.offset, aranges.size));
    if (!listed || !everyUnitListed(fd, info, listed.units)) return NONE;
    covered = listed.ranges;
  }
  const tables = sections.filter((s) => s.type === SHT_SYMTAB || s.type === SHT_DYNSYM);
  return buildRegions(
    tables.map((t) => [readAt(fd, t.offset, t.size), t.entsize] as const),
    covered,
  );
}

/** Where the tool looks for the file a `.gnu_debuglink` names (LLVM's search, and the realpath's). */
function debugLinkTargets(path: string, name: string): string[] {
  if (!name) return [];
  const dirs = new Set([dirname(path)]);
  try {
    dirs.add(dirname(realpathSync(path)));
  } catch {
    /* the path as given */
  }
  return [...dirs].flatMap((d) => [join(d, name), join(d, '.debug', name), join(DEBUG_ROOT, d, name)]);
}

/** `.debug_aranges`: the code ranges listed and the units they belong to; null on a 64-bit or odd set. */
function readAranges(b: Buffer): { ranges: Array<[number, number]>; units: Set<number> } | null {
  const ranges: Array<[number, number]> = [];
  const units = new Set<number>();
  for (let at = 0; at + 12 <= b.length; ) {
    const length = b.readUInt32LE(at);
    if (length >= 0xfffffff0) return null; // 64-bit DWARF: not read here
    const end = at + 4 + length;
    if (end > b.length) return null;
    units.add(b.readUInt32LE(at + 6));
    const addressSize = b[at + 10];
    if (addressSize !== 8 || b[at + 11] !== 0) return null;
    // The pairs start at a multiple of twice the address size from the set's start.
    let p = at + 16;
    for (; p + 16 <= end; p += 16) {
      const lo = Number(b.readBigUInt64LE(p));
      const len = Number(b.readBigUInt64LE(p + 8));
      if (lo === 0 && len === 0) break;
      ranges.push([lo, lo + len]);
    }
    at = end;
  }
  return { ranges, units };
}

/** Whether every compilation unit of `.debug_info` (type units aside) is one `.debug_aranges` lists. */
function everyUnitListed(fd: ElfData, info: ElfSection, units: Set<number>): boolean {
  for (let at = 0; at + 11 <= info.size; ) {
    const head = readAt(fd, info.offset + at, 12);
    if (head.length < 11) return false;
    const length = head.readUInt32LE(0);
    if (length >= 0xfffffff0 || length === 0) return false;
    const version = head.readUInt16LE(4);
    const typeUnit = version >= 5 && (head[6] === DW_UT_TYPE || head[6] === DW_UT_SPLIT_TYPE);
    if (!typeUnit && !units.has(at)) return false;
    at += 4 + length;
  }
  return true;
}

/**
 * The regions of these symbol tables (`[table bytes, entry size]`), with the ranges debug
 * information covers taken out. A region is cut at every symbol start.
 */
export function buildRegions(tables: ReadonlyArray<readonly [Buffer, number]>, covered: Array<[number, number]>): StoredRegions {
  // start → where the functions starting there stop holding an address (the smallest end), 0 when a
  // symbol starting there is not a sized function (the tool may answer otherwise there)
  const ending = new Map<number, number>();
  for (const [b, entsize] of tables) {
    const step = entsize || 24;
    for (let at = 0; at + 24 <= b.length; at += step) {
      const type = b[at + 4] & 0xf;
      if (b.readUInt16LE(at + 6) === 0 || type === STT_SECTION || type === STT_FILE) continue;
      const high = b.readUInt32LE(at + 12);
      if (high >= 0x200000) continue; // at or past 2^53, beyond any code address: never the symbol before one
      const start = high * 0x100000000 + b.readUInt32LE(at + 8);
      const size = b.readUInt32LE(at + 20) * 0x100000000 + b.readUInt32LE(at + 16);
      const end = (type === STT_FUNC || type === STT_GNU_IFUNC) && size > 0 ? start + size : 0;
      const was = ending.get(start);
      ending.set(start, was === undefined ? end : Math.min(was, end));
    }
  }
  const starts = Float64Array.from(ending.keys()).sort();
  const n = starts.length;
  const ends = new Float64Array(n);
  for (let i = 0; i < n; i++) ends[i] = Math.min(ending.get(starts[i])!, i + 1 < n ? starts[i + 1] : Infinity);
  // Debug information may give any address it covers a line: no region overlaps it.
  for (const [lo, hi] of covered) {
    const first = Math.max(0, lastAtOrBefore(n, (k) => starts[k] <= lo));
    for (let i = first; i < n && starts[i] < hi; i++) if (ends[i] > lo) ends[i] = 0;
  }
  return { starts, ends };
}

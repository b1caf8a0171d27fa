/**
 * Reads and validates a raw measurement file (docs/raw-format.md). Every failure is a UserError that
 * names the file, the byte offset and what was expected there: a truncated, corrupt or foreign file
 * never becomes a partial profile.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { crc32 } from 'node:zlib';
import { systemErrorText, UserError } from '../base/errors.js';
import { Cursor } from './cursor.js';
import { readFold } from './raw-fold.js';
import { readCuda } from './raw-cuda.js';
import { readJit } from './raw-jit.js';
import {
  RAW_MAGIC,
  EVENT_THROTTLED,
  EventKind,
  RAW_VERSION,
  SectionTag,
  RawContexts,
  RawStats,
  noStats,
  type RawEvent,
  type RawInfo,
  type RawMapping,
  type RawProcess,
  type RawSample,
  type RawSampling,
  type RawThread,
  type RawUserStat,
} from './raw-model.js';

const SECTION_NAMES: Record<number, string> = {
  [SectionTag.INFO]: 'INFO',
  [SectionTag.EVENTS]: 'EVENTS',
  [SectionTag.CONTEXTS]: 'CONTEXTS',
  [SectionTag.THREAD]: 'THREAD',
  [SectionTag.USER_EVENTS]: 'USER_EVENTS',
  [SectionTag.SAMPLES]: 'SAMPLES',
  [SectionTag.MAPS]: 'MAPS',
  [SectionTag.SAMPLING]: 'SAMPLING',
  [SectionTag.OMPT]: 'OMPT',
  [SectionTag.FUNCTIONS]: 'FUNCTIONS',
  [SectionTag.JIT]: 'JIT',
  [SectionTag.FOLD]: 'FOLD',
  [SectionTag.CUDA]: 'CUDA',
  [SectionTag.END]: 'END',
};

function sectionName(tag: number): string {
  return SECTION_NAMES[tag] ?? `tag ${tag}`;
}

interface Section {
  tag: number;
  /** Absolute offset of the payload. */
  start: number;
  end: number;
  headerAt: number;
}

/** What a reader of a raw file may leave out. */
export interface RawReadOptions {
  /**
   * Keep each thread's timer statistics (default true). Without them every statistic is still
   * checked, and `stats` is empty: a first look at a file (what the resolve checks and symbolizes
   * before it assembles) does not hold an object per context and thread.
   */
  statistics?: boolean;
}

/** Read and validate one raw file. Throws UserError naming the file and offset on any defect. */
export function readRawFile(path: string): RawProcess {
  return readRaw(path, {});
}

/** Read and validate one raw file, leaving out what `opts` says. */
export function readRaw(path: string, opts: RawReadOptions): RawProcess {
  return parseRaw(path, readRegularFile(path), opts);
}

/** What a file that is not a regular file is, in words. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bytes of a raw file named by a user or a variable. Opened without blocking (a FIFO would wait
 * for a writer forever) and checked on the open descriptor before anything is read: a device such
 * as /dev/zero would never end, a directory is no file.
 */
function readRegularFile(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new UserError(`${path}: cannot read the raw file: ${systemErrorText(e) ?? (e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UserError(`${path}: ${fileKind(st)}, not a raw measurement file`);
    return readFileSync(fd);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${path}: cannot read the raw file: ${systemErrorText(e) ?? (e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

export function parseRaw(file: string, buf: Buffer, opts: RawReadOptions = {}): RawProcess {
  const header = new Cursor(file, buf, 0, buf.length, 'header', true);
  if (buf.length < 8 || buf.toString('latin1', 0, 8) !== RAW_MAGIC) {
    header.fail(`expected the magic "${RAW_MAGIC}" (not a hyprof raw file)`, 0);
  }
  header.pos = 8;
  const version = header.u32('the format version');
  if (version !== RAW_VERSION) {
    header.fail(`unknown raw format version ${version} (this hyprof reads version ${RAW_VERSION})`, 8);
  }
  const headerFlags = header.u32('the header flags');
  void headerFlags;

  const sections = splitSections(file, buf, header.pos);
  const seen = new Map<number, number>();
  for (const s of sections) {
    if (s.tag !== SectionTag.THREAD && s.tag !== SectionTag.SAMPLES && SECTION_NAMES[s.tag]) {
      if (seen.has(s.tag)) {
        throw new UserError(
          `${file}: offset ${s.headerAt}: section ${sectionName(s.tag)} appears twice (first at offset ${seen.get(s.tag)})`,
        );
      }
      seen.set(s.tag, s.headerAt);
    }
  }
  const cursorOf = (s: Section) => new Cursor(file, buf, s.start, s.end, `section ${sectionName(s.tag)}`, false);
  const find = (tag: number): Section => {
    const s = sections.find((x) => x.tag === tag);
    if (!s) throw new UserError(`${file}: offset ${buf.length}: the file has no ${sectionName(tag)} section`);
    return s;
  };

  const info = readInfo(cursorOf(find(SectionTag.INFO)));
  const nMetrics = info.metrics.length;
  const events = readEvents(cursorOf(find(SectionTag.EVENTS)));
  const contextsSec = find(SectionTag.CONTEXTS);
  const contexts = readContexts(cursorOf(contextsSec), events);
  const userSec = sections.find((s) => s.tag === SectionTag.USER_EVENTS);
  const userEvents = userSec ? readUserEvents(cursorOf(userSec)) : new Map<number, string>();
  const mapsSec = sections.find((s) => s.tag === SectionTag.MAPS);
  const maps = mapsSec ? readMaps(cursorOf(mapsSec)) : [];
  const samplingSec = sections.find((s) => s.tag === SectionTag.SAMPLING);
  const sampling = samplingSec ? readSampling(cursorOf(samplingSec)) : null;

  const threads: RawThread[] = [];
  for (const s of sections.filter((x) => x.tag === SectionTag.THREAD)) {
    const c = cursorOf(s);
    const t = readThread(c, nMetrics, contexts, userEvents, opts.statistics !== false);
    if (threads.some((o) => o.index === t.index)) c.fail(`thread index ${t.index} appears twice`, s.start);
    threads.push(t);
  }
  threads.sort((a, b) => a.index - b.index);
  for (const s of sections.filter((x) => x.tag === SectionTag.SAMPLES)) {
    const c = cursorOf(s);
    const idx = c.u32('the thread index');
    const thread = threads.find((t) => t.index === idx);
    if (!thread) return c.fail(`samples of thread ${idx}, which has no THREAD section`, s.start);
    if (thread.samples.length > 0) c.fail(`a second SAMPLES section for thread ${idx}`, s.start);
    thread.samples = readSamples(c, nMetrics, contexts);
  }
  const functionsSec = sections.find((s) => s.tag === SectionTag.FUNCTIONS);
  const functions = functionsSec ? readFunctions(cursorOf(functionsSec), events) : undefined;
  const jitSec = sections.find((s) => s.tag === SectionTag.JIT);
  const jit = jitSec ? readJit(cursorOf(jitSec)) : undefined;
  const foldSec = sections.find((s) => s.tag === SectionTag.FOLD);
  const fold = foldSec ? readFold(cursorOf(foldSec), nMetrics, events, contexts) : undefined;
  const cudaSec = sections.find((s) => s.tag === SectionTag.CUDA);
  const cuda = cudaSec ? readCuda(cursorOf(cudaSec), contexts) : undefined;
  return {
    file, version, info, events, contexts, threads, userEvents, maps, sampling,
    ...(functions ? { functions } : {}), ...(jit ? { jit } : {}), ...(fold ? { fold } : {}), ...(cuda ? { cuda } : {}),
  };
}

/** FUNCTIONS: (u32 event, u64 address)[n], each event of kind FUNCTION, named once. */
function readFunctions(c: Cursor, events: RawEvent[]): Map<number, bigint> {
  const n = c.count('functions', 12);
  const out = new Map<number, bigint>();
  for (let i = 0; i < n; i++) {
    const at = c.pos;
    const event = c.u32(`function ${i} event`);
    const address = c.u64(`function ${i} address`);
    if (event >= events.length) c.fail(`function ${i} names event ${event}, which does not exist`, at);
    if (events[event].kind !== EventKind.FUNCTION) c.fail(`function ${i} names event ${event}, which is not a function event`, at);
    if (out.has(event)) c.fail(`event ${event} has two function addresses`, at);
    if (address === 0n) c.fail(`function ${i} (event ${event}) has address 0`, at);
    out.set(event, address);
  }
  c.done();
  return out;
}

/** Walk the section headers, checking bounds and CRCs and the END section. */
function splitSections(file: string, buf: Buffer, start: number): Section[] {
  const sections: Section[] = [];
  let pos = start;
  for (;;) {
    const c = new Cursor(file, buf, pos, buf.length, `section header ${sections.length + 1}`, true);
    if (pos === buf.length) c.fail('expected a section header or the END section (the file was cut short)');
    const tag = c.u32('the section tag');
    const crc = c.u32('the section CRC');
    const lenAt = c.pos;
    const len = c.u64('the section length');
    const payload = c.pos;
    if (len > BigInt(buf.length - payload)) {
      c.fail(`section ${sectionName(tag)} declares ${len} bytes, file ends at ${buf.length}`, lenAt);
    }
    const end = payload + Number(len);
    const actual = crc32(buf.subarray(payload, end)) >>> 0;
    if (actual !== crc) {
      throw new UserError(
        `${file}: offset ${payload}: section ${sectionName(tag)}: CRC mismatch (expected 0x${crc
          .toString(16)
          .padStart(8, '0')}, payload gives 0x${actual.toString(16).padStart(8, '0')}): the file is corrupt`,
      );
    }
    if (tag === SectionTag.END) {
      const e = new Cursor(file, buf, payload, end, 'section END', false);
      const n = e.u32('the number of sections');
      e.done();
      if (n !== sections.length) {
        e.fail(`END counts ${n} sections, the file holds ${sections.length}`, payload);
      }
      if (end !== buf.length) {
        throw new UserError(`${file}: offset ${end}: ${buf.length - end} unexpected bytes after the END section`);
      }
      return sections;
    }
    sections.push({ tag, start: payload, end, headerAt: pos });
    pos = end;
  }
}

function readInfo(c: Cursor): RawInfo {
  const pid = c.i64n('pid');
  const ppid = c.i64n('ppid');
  const node = c.i32('node');
  const flags = c.u32('flags');
  const startNs = c.u64('start_ns');
  const stopNs = c.u64('stop_ns');
  const nm = c.count('metrics', 4);
  if (nm === 0) c.fail('expected at least one metric (TIME)');
  const metrics: string[] = [];
  for (let i = 0; i < nm; i++) metrics.push(c.str(`metric ${i}`));
  const na = c.count('attributes', 8);
  const attributes: Array<[string, string]> = [];
  for (let i = 0; i < na; i++) attributes.push([c.str(`attribute ${i} key`), c.str(`attribute ${i} value`)]);
  c.done();
  return { pid, ppid, node, flags, startNs, stopNs, metrics, attributes };
}

function readEvents(c: Cursor): RawEvent[] {
  const n = c.count('events', 20);
  const events: RawEvent[] = [];
  // A few groups name millions of events: each group string is held once.
  const groups = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const at = c.pos;
    const id = c.u32(`event ${i} id`);
    const kind = c.u8(`event ${i} kind`);
    const flags = c.u8(`event ${i} flags`);
    c.u8('reserved');
    c.u8('reserved');
    const base = c.u32(`event ${i} base`);
    const name = c.str(`event ${i} name`);
    const read = c.str(`event ${i} group`);
    let group = groups.get(read);
    if (group === undefined) groups.set(read, (group = read));
    if (id !== i) c.fail(`expected event id ${i} (ids are dense from 0), found ${id}`, at);
    if (kind > EventKind.FUNCTION) c.fail(`event ${id} has unknown kind ${kind}`, at);
    if (flags & ~EVENT_THROTTLED) c.fail(`event ${id} has unknown flags 0x${flags.toString(16)}`, at);
    const e: RawEvent = { id, kind, base, name, group };
    if (flags & EVENT_THROTTLED) e.throttled = true;
    events.push(e);
  }
  c.done();
  for (const e of events) {
    if (e.base >= events.length) c.fail(`event ${e.id} specialises event ${e.base}, which does not exist`, c.end);
  }
  return events;
}

/** The deepest context path accepted: far beyond any nesting a runtime records. */
export const MAX_CONTEXT_DEPTH = 10_000;

function readContexts(c: Cursor, events: RawEvent[]): RawContexts {
  const n = c.count('contexts', 24);
  const table = new RawContexts(n);
  // Parents as read (ids), made rows once every context is in the table.
  const parentLo = new Uint32Array(n);
  const parentHi = new Uint32Array(n);
  const hex = (lo: number, hi: number) => ((BigInt(hi) << 32n) | BigInt(lo)).toString(16);
  for (let i = 0; i < n; i++) {
    const at = c.pos;
    const lo = c.u32(`context ${i}`);
    const hi = c.u32(`context ${i}`);
    const plo = c.u32(`context ${i} parent`);
    const phi = c.u32(`context ${i} parent`);
    const event = c.u32(`context ${i} event`);
    c.u32('reserved');
    if (lo === 0 && hi === 0) c.fail(`context ${i} has id 0`, at);
    if (event >= events.length) c.fail(`context 0x${hex(lo, hi)} names event ${event}, which does not exist`, at);
    const r = table.add(lo, hi, event);
    parentLo[r] = plo;
    parentHi[r] = phi;
  }
  c.done();
  // Every parent must exist, and following parents must reach 0 (no cycles).
  const size = table.size;
  for (let r = 0; r < size; r++) {
    if (parentLo[r] === 0 && parentHi[r] === 0) continue;
    const p = table.rowOfHalves(parentLo[r], parentHi[r]);
    if (p < 0) {
      c.fail(`context 0x${hex(table.idLo[r], table.idHi[r])} has parent 0x${hex(parentLo[r], parentHi[r])}, which is not in the table`, c.end);
    }
    table.parentRow[r] = p;
  }
  // Each context is walked once: a walk stops at the first context whose depth is known, so a crafted
  // file of long parent chains costs linear time, not chain length times contexts. The depth is
  // bounded too: everything after the reader may follow a path root to leaf, and no runtime nests
  // that deep (hyprof's stops at 256 timers per thread).
  const depthOf = new Int32Array(size); // 0: not known yet
  const walk: number[] = [];
  for (let r = 0; r < size; r++) {
    walk.length = 0;
    let p = r;
    for (; p >= 0 && depthOf[p] === 0; p = table.parentRow[p]) {
      walk.push(p);
      if (walk.length > size) c.fail(`context 0x${hex(table.idLo[r], table.idHi[r])} is part of a parent cycle`, c.end);
    }
    let depth = p < 0 ? 0 : depthOf[p];
    for (let i = walk.length - 1; i >= 0; i--) depthOf[walk[i]] = ++depth;
    if (depth > MAX_CONTEXT_DEPTH) {
      c.fail(`context 0x${hex(table.idLo[r], table.idHi[r])} lies ${depth} levels deep; at most ${MAX_CONTEXT_DEPTH} are accepted (the file is corrupt)`, c.end);
    }
  }
  return table;
}

/**
 * n values read in order, in an array of exactly n elements: an array grown by push keeps room for
 * 17, which for millions of statistics of one metric is most of the reader's memory.
 */
function values<T>(n: number, read: (i: number) => T): T[] {
  const out = new Array<T>(n);
  for (let i = 0; i < n; i++) out[i] = read(i);
  return out;
}

function checkContext(c: Cursor, contexts: RawContexts, ctx: bigint, at: number, what: string): void {
  if (!contexts.has(ctx)) c.fail(`${what} names context 0x${ctx.toString(16)}, which is not in the CONTEXTS table`, at);
}

function readThread(
  c: Cursor,
  nMetrics: number,
  contexts: RawContexts,
  userEvents: Map<number, string>,
  keepStats: boolean,
): RawThread {
  const index = c.u32('thread index');
  const tid = c.i64n('tid');
  const name = c.str('thread name');
  const startNs = c.u64('start_ns');
  const stopNs = c.u64('stop_ns');
  const flags = c.u32('flags');
  const nStats = c.count('statistics', 24 + 16 * nMetrics);
  // Read into columns, or (without keepStats) only checked.
  const stats = keepStats ? new RawStats(contexts, nStats, nMetrics) : noStats(contexts, nMetrics);
  const one = new Float64Array(2 * nMetrics);
  for (let i = 0; i < nStats; i++) {
    const at = c.pos;
    const lo = c.u32(`statistic ${i} context`);
    const hi = c.u32(`statistic ${i} context`);
    const row = contexts.rowOfHalves(lo, hi);
    if (row < 0) checkContext(c, contexts, (BigInt(hi) << 32n) | BigInt(lo), at, `statistic ${i}`);
    const calls = c.u64f(`statistic ${i} calls`);
    const childCalls = c.u64f(`statistic ${i} child_calls`);
    for (let m = 0; m < nMetrics; m++) one[m] = c.u64f(`statistic ${i} incl[${m}]`);
    for (let m = 0; m < nMetrics; m++) one[nMetrics + m] = c.u64f(`statistic ${i} excl[${m}]`);
    if (keepStats) {
      stats.row[i] = row;
      stats.calls[i] = calls;
      stats.childCalls[i] = childCalls;
      for (let m = 0; m < nMetrics; m++) {
        stats.incl[i * nMetrics + m] = one[m];
        stats.excl[i * nMetrics + m] = one[nMetrics + m];
      }
    }
  }
  const nOpen = c.count('open timers', 8);
  const open: bigint[] = [];
  for (let i = 0; i < nOpen; i++) {
    const at = c.pos;
    const ctx = c.u64(`open timer ${i}`);
    checkContext(c, contexts, ctx, at, `open timer ${i}`);
    open.push(ctx);
  }
  const nUser = c.count('user event statistics', 44);
  const userStats: RawUserStat[] = [];
  for (let i = 0; i < nUser; i++) {
    const at = c.pos;
    const userEvent = c.u32(`user statistic ${i} event`);
    if (!userEvents.has(userEvent)) c.fail(`user statistic ${i} names user event ${userEvent}, which does not exist`, at);
    const count = c.u64n(`user statistic ${i} count`);
    const min = c.f64(`user statistic ${i} min`);
    const max = c.f64(`user statistic ${i} max`);
    const sum = c.f64(`user statistic ${i} sum`);
    const sumsqr = c.f64(`user statistic ${i} sumsqr`);
    userStats.push({ userEvent, count, min, max, sum, sumsqr });
  }
  const nDrop = c.count('drop counters', 12);
  const drops: Array<[string, number]> = [];
  for (let i = 0; i < nDrop; i++) drops.push([c.str(`drop ${i} reason`), c.u64n(`drop ${i} count`)]);
  const nWarn = c.count('warnings', 4);
  const warnings: string[] = [];
  for (let i = 0; i < nWarn; i++) warnings.push(c.str(`warning ${i}`));
  c.done();
  return { index, tid, name, startNs, stopNs, flags, stats, open, userStats, drops, warnings, samples: [] };
}

function readSamples(c: Cursor, nMetrics: number, contexts: RawContexts): RawSample[] {
  const n = c.count('sample records', 24 + 8 * nMetrics);
  const out: RawSample[] = [];
  for (let i = 0; i < n; i++) {
    const at = c.pos;
    const context = c.u64(`sample ${i} context`);
    checkContext(c, contexts, context, at, `sample ${i}`);
    const count = c.u64n(`sample ${i} count`);
    const vals = values(nMetrics, (m) => c.u64n(`sample ${i} value[${m}]`));
    const state = c.u32(`sample ${i} state`);
    const depth = c.count(`sample ${i} frames`, 8);
    const pcs = values(depth, (d) => c.u64(`sample ${i} pc[${d}]`));
    out.push({ context, count, values: vals, state, pcs });
  }
  c.done();
  return out;
}

function readUserEvents(c: Cursor): Map<number, string> {
  const n = c.count('user events', 8);
  const map = new Map<number, string>();
  for (let i = 0; i < n; i++) {
    const id = c.u32(`user event ${i} id`);
    map.set(id, c.str(`user event ${i} name`));
  }
  c.done();
  return map;
}

function readMaps(c: Cursor): RawMapping[] {
  const n = c.count('mappings', 32);
  const out: RawMapping[] = [];
  for (let i = 0; i < n; i++) {
    const at = c.pos;
    const start = c.u64(`mapping ${i} start`);
    const end = c.u64(`mapping ${i} end`);
    const bias = c.u64(`mapping ${i} bias`);
    const path = c.str(`mapping ${i} path`);
    const buildId = c.str(`mapping ${i} build id`);
    if (end < start) c.fail(`mapping ${i} ends (0x${end.toString(16)}) before it starts (0x${start.toString(16)})`, at);
    out.push({ start, end, bias, path, buildId });
  }
  c.done();
  return out;
}

function readSampling(c: Cursor): RawSampling {
  const enabled = c.u32('enabled') !== 0;
  const source = c.str('source');
  const periodNs = c.u64n('period_ns');
  const unwind = c.u32('unwind') !== 0;
  const unwindDepth = c.u32('unwind_depth');
  const unwinder = c.str('unwinder');
  const signal = c.i32('signal');
  c.done();
  return { enabled, source, periodNs, unwind, unwindDepth, unwinder, signal };
}

/**
 * A cursor over the payload of the first section with `tag`, after the whole file's framing and CRCs
 * were checked; null when the file has no such section. For optional sections this reader skips.
 */
export function findSection(file: string, buf: Buffer, tag: number): Cursor | null {
  const header = new Cursor(file, buf, 0, buf.length, 'header', true);
  if (buf.length < 16 || buf.toString('latin1', 0, 8) !== RAW_MAGIC) {
    header.fail(`expected the magic "${RAW_MAGIC}" (not a hyprof raw file)`, 0);
  }
  const s = splitSections(file, buf, 16).find((x) => x.tag === tag);
  return s ? new Cursor(file, buf, s.start, s.end, `section ${sectionName(tag)}`, false) : null;
}

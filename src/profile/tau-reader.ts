/**
 * Reads TAU profile directories: hyprof's own and TAU's (shared/reference/tau/). Follows the rules of
 * TAU's readers (shared/TAU-FORMAT.md) and rejects what they would reject, with a message naming the
 * file and the line.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { systemErrorText, UserError } from '../base/errors.js';
import type { TauEvent, TauProfile, TauThreadProfile, TauUserEvent } from './tau-model.js';
import { MERGED_FILE, mergedMetrics, readMergedThreads } from './tau-merged-reader.js';
import { unescapeXml } from './xml-text.js';
import { attachStacks } from './stacks-file.js';

const FILE_RE = /^profile\.(\d+)\.(\d+)\.(\d+)$/;

/** Profile files of one directory, sorted by node, context, thread. */
function profileFiles(dir: string): Array<{ file: string; node: number; context: number; thread: number }> {
  const found = [];
  for (const f of readdirSync(dir)) {
    const m = FILE_RE.exec(f);
    if (m) found.push({ file: join(dir, f), node: +m[1], context: +m[2], thread: +m[3] });
  }
  found.sort((a, b) => a.node - b.node || a.context - b.context || a.thread - b.thread);
  return found;
}

function fail(file: string, line: number, what: string): never {
  throw new UserError(`${file}:${line}: not a TAU profile: ${what}`);
}

const NUM = String.raw`(-?[0-9.]+(?:[eE][-+]?\d+)?|nan|-?inf)`;
const EVENT_RE = new RegExp(String.raw`^"(.*)" ${NUM} ${NUM} ${NUM} ${NUM} ${NUM}(?: GROUP="(.*)")?\s*$`);
const USER_RE = new RegExp(String.raw`^"(.*)" ${NUM} ${NUM} ${NUM} ${NUM} ${NUM}\s*$`);

function parseMetadata(file: string, header: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const start = header.indexOf('<metadata>');
  if (start < 0) return out;
  const end = header.indexOf('</metadata>', start);
  if (end < 0) fail(file, 2, 'metadata block is not closed');
  const body = header.slice(start, end);
  const re = /<attribute><name>([\s\S]*?)<\/name><value>([\s\S]*?)<\/value><\/attribute>/g;
  for (let m = re.exec(body); m; m = re.exec(body)) out.push([unescapeXml(m[1]), unescapeXml(m[2])]);
  return out;
}

/**
 * The lines of a text by index, read forward only, without splitting the text into an array first:
 * a profile of millions of events is parsed with one line at a time beside the text. Lines end at
 * "\n"; a last empty line (the text's final newline) is not one.
 */
class LineReader {
  private pos = 0;
  /** Index of `line` (-1 before the first). */
  private index = -1;
  private line: string | undefined;
  constructor(private readonly text: string) {}

  /** Line `i` (0-based, never before one asked for earlier), or undefined past the end. */
  get(i: number): string | undefined {
    while (this.index < i) {
      if (this.pos >= this.text.length) return undefined;
      let end = this.text.indexOf('\n', this.pos);
      if (end < 0) end = this.text.length;
      this.line = this.text.slice(this.pos, end);
      this.pos = end + 1;
      this.index++;
    }
    return this.line;
  }

  /** Whether line `i` exists. */
  has(i: number): boolean {
    return this.get(i) !== undefined;
  }
}

/** The first two lines of a profile file: the number of events, the metric and the metadata. */
function parseHeader(file: string, line1: string | undefined, line2: string | undefined): { n: number; metric: string; metadata: Array<[string, string]> } {
  const first = /^(\d+) templated_functions(?:_MULTI_(.*))?\s*$/.exec(line1 ?? '');
  if (!first) fail(file, 1, 'expected "<N> templated_functions_MULTI_<metric>"');
  const header = line2 ?? '';
  if (!header.startsWith('# Name Calls Subrs Excl Incl ProfileCalls')) {
    fail(file, 2, 'expected the "# Name Calls Subrs Excl Incl ProfileCalls" header line');
  }
  const metadata = parseMetadata(file, header);
  const metric = metadata.find(([k]) => k === 'Metric Name')?.[1] ?? first[2] ?? 'TIME';
  return { n: Number(first[1]), metric, metadata };
}

/**
 * The metric and metadata of a profile file, from its first two lines only: a file of millions of
 * events is not read whole to learn them.
 */
export function readProfileHeader(file: string): { metric: string; metadata: Array<[string, string]> } {
  // A file that cannot be read is read again the usual way, for the usual message.
  const text = headOf(file) ?? readProfileFile(file);
  const { metric, metadata } = parseHeader(file, ...twoLines(text));
  return { metric, metadata };
}

/** The text of a file up to the end of its second line, or null when it cannot be read. */
function headOf(file: string): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const chunks: Buffer[] = [];
    let newlines = 0;
    const chunk = Buffer.alloc(1 << 16);
    while (newlines < 2) {
      const got = readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      const piece = Buffer.from(chunk.subarray(0, got));
      chunks.push(piece);
      for (let i = 0; i < got && newlines < 2; i++) if (piece[i] === 10) newlines++;
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function twoLines(text: string): [string | undefined, string | undefined] {
  const lines = new LineReader(text);
  return [lines.get(0), lines.get(1)];
}

/** The first lines of one profile file: which thread it is, its metric and its metadata. */
export interface ThreadHead {
  node: number;
  context: number;
  thread: number;
  metric: string;
  metadata: Array<[string, string]>;
}

/**
 * What a reader that keeps only part of a profile file is told, line by line: the head, then each
 * event line, each user event, and the end. Strings handed over may share memory with their line:
 * a reader that keeps one copies it with ownString.
 */
export interface ThreadSink {
  begin(head: ThreadHead): void;
  event(name: string, calls: number, subrs: number, excl: number, incl: number, group: string): void;
  userEvent(u: TauUserEvent): void;
  end(): void;
}

/** Lines by index, read forward only (LineReader over a text, FileLines over a file). */
interface Lines {
  get(i: number): string | undefined;
  has(i: number): boolean;
}

/**
 * A copy of a string that does not keep the text it was cut from alive: a name cut from a line (or
 * a whole file's text) by a regular expression is a slice that holds the whole line.
 */
export function ownString(s: string): string {
  // Shorter strings are copies already; one with a lone surrogate (possible from a merged file's XML)
  // would not survive UTF-8, so it is kept as it is.
  if (s.length < 13 || !(s as { isWellFormed(): boolean } & string).isWellFormed()) return s;
  return Buffer.from(s, 'utf8').toString('utf8');
}

/**
 * A pool of (name, value) pairs of thread metadata: each pair asked for again is the same array, in
 * own copies (ownString). A reader of thousands of ranks keeps one pair for a setting every rank has
 * with the same value, instead of one per rank. The pairs are shared: read, never change them.
 */
export function metadataPairs(): (k: string, v: string) => [string, string] {
  const pairs = new Map<string, [string, string]>();
  return (k, v) => {
    const key = `${k}\u0000${v}`;
    let p = pairs.get(key);
    if (!p) pairs.set(ownString(key), (p = [ownString(k), ownString(v)]));
    return p;
  };
}

/**
 * Adds one thread's user event to a pool of the same events over threads (by name): counts and sums of
 * squares add, min and max widen, and `mean` holds the sum of the values until the caller divides it
 * by the pooled count. The pool keeps its own copy of the name (ownString).
 */
export function poolUserEvent(pool: Map<string, TauUserEvent>, u: TauUserEvent): void {
  const p = pool.get(u.name);
  if (!p) {
    pool.set(ownString(u.name), { ...u, name: ownString(u.name), mean: u.mean * u.count });
    return;
  }
  p.count += u.count;
  p.max = Math.max(p.max, u.max);
  p.min = Math.min(p.min, u.min);
  p.mean += u.mean * u.count;
  p.sumsqr += u.sumsqr;
}

/** Parse one profile file's lines, handing each to `sink` (and failing on the first bad line). */
function parseLines(file: string, lines: Lines, ids: { node: number; context: number; thread: number }, sink: ThreadSink): void {
  const { n, metric, metadata } = parseHeader(file, lines.get(0), lines.get(1));
  sink.begin({ node: ids.node, context: ids.context, thread: ids.thread, metric, metadata });
  // Groups repeat over thousands of events: one string each.
  const groups = new Map<string, string>();
  const group = (g: string): string => {
    let kept = groups.get(g);
    if (kept === undefined) groups.set(g, (kept = ownString(g)));
    return kept;
  };
  for (let i = 0; i < n; i++) {
    const lineNo = i + 3;
    const line = lines.get(i + 2);
    if (line === undefined) fail(file, lineNo, `expected ${n} event lines, found ${i}`);
    const m = EVENT_RE.exec(line);
    if (!m) fail(file, lineNo, 'expected an event line "<name>" <calls> <subrs> <excl> <incl> 0 GROUP="..."');
    const calls = Number(m[2]);
    const subrs = Number(m[3]);
    const excl = Number(m[4]);
    const incl = Number(m[5]);
    if (!(calls >= 0) || !(subrs >= 0) || !(excl >= 0) || !(incl >= 0)) fail(file, lineNo, 'negative or invalid value');
    sink.event(m[1], calls, subrs, excl, incl, group(m[7] ?? ''));
  }
  let at = n + 2;
  const agg = /^(\d+) aggregates\s*$/.exec(lines.get(at) ?? '');
  if (!agg) fail(file, at + 1, `expected "0 aggregates" after ${n} event lines`);
  at += 1 + Number(agg[1]);
  if (lines.has(at)) {
    const ue = /^(\d+) userevents\s*$/.exec(lines.get(at)!);
    if (!ue) fail(file, at + 1, 'expected "<k> userevents" or the end of the file');
    const k = Number(ue[1]);
    at += 2; // count line and "# eventname numevents max min mean sumsqr"
    for (let i = 0; i < k; i++, at++) {
      const m = USER_RE.exec(lines.get(at) ?? '');
      if (!m) fail(file, at + 1, 'expected a user event line "<name>" <count> <max> <min> <mean> <sumsqr>');
      sink.userEvent({
        name: m[1],
        count: Number(m[2]),
        max: Number(m[3]),
        min: Number(m[4]),
        mean: Number(m[5]),
        sumsqr: Number(m[6]),
      });
    }
    if (lines.has(at)) fail(file, at + 1, 'unexpected text after the user events');
  }
  sink.end();
}

/**
 * The user events of one profile file, read from its end (they are its last lines, after
 * `0 aggregates`): a reader that streams the events later (hyprof export) knows them first. Reads
 * 64 KiB, then four times more until the `aggregates` line is in it. Lines that are not user event
 * lines are skipped: the file's full read reports them.
 */
export function readUserEventsAtEnd(file: string): TauUserEvent[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw readError(file, e);
  }
  try {
    const size = statSync(file).size;
    for (let want = 1 << 16; ; want *= 4) {
      const len = Math.min(size, want);
      const buf = Buffer.alloc(len);
      let got = 0;
      while (got < len) {
        const n = readSync(fd, buf, got, len - got, size - len + got);
        if (n === 0) break;
        got += n;
      }
      const text = buf.toString('utf8', 0, got);
      const agg = [...text.matchAll(/(?:^|\n)\d+ aggregates[ \t\r]*\n/g)].at(-1);
      if (!agg && len < size) continue;
      if (!agg) return [];
      const out: TauUserEvent[] = [];
      for (const line of text.slice(agg.index + agg[0].length).split('\n')) {
        const m = USER_RE.exec(line);
        if (m) out.push({ name: m[1], count: Number(m[2]), max: Number(m[3]), min: Number(m[4]), mean: Number(m[5]), sumsqr: Number(m[6]) });
      }
      return out;
    }
  } finally {
    closeSync(fd);
  }
}

/** A sink that keeps every line: the whole thread as objects. */
function collect(): { sink: ThreadSink; thread: () => TauThreadProfile } {
  let head: ThreadHead | undefined;
  const events: TauEvent[] = [];
  const userEvents: TauUserEvent[] = [];
  return {
    sink: {
      begin: (h) => (head = h),
      event: (name, calls, subrs, excl, incl, group) => events.push({ name, calls, subrs, excl, incl, group }),
      userEvent: (u) => userEvents.push(u),
      end: () => undefined,
    },
    thread: () => {
      const { node, context, thread, metric, metadata } = head!;
      return { node, context, thread, metric, events, userEvents, metadata };
    },
  };
}

/** Parse one profile file's text. */
export function parseThreadProfile(
  file: string,
  text: string,
  ids: { node: number; context: number; thread: number },
): TauThreadProfile {
  const c = collect();
  parseLines(file, new LineReader(text), ids, c.sink);
  return c.thread();
}

/**
 * The lines of a file read in chunks, forward only: a profile file of millions of events is never
 * one string. Lines are split as LineReader splits a text read whole.
 */
class FileLines implements Lines {
  private buf: Buffer;
  /** Unread bytes are buf[start, end). */
  private start = 0;
  private end = 0;
  private eof = false;
  private index = -1;
  private line: string | undefined;
  constructor(
    private readonly file: string,
    private readonly fd: number,
    chunkBytes: number,
  ) {
    this.buf = Buffer.alloc(chunkBytes);
  }

  get(i: number): string | undefined {
    while (this.index < i) {
      const l = this.next();
      if (l === undefined) return undefined;
      this.line = l;
      this.index++;
    }
    return this.line;
  }

  has(i: number): boolean {
    return this.get(i) !== undefined;
  }

  private next(): string | undefined {
    for (;;) {
      const nl = this.buf.indexOf(10, this.start);
      if (nl >= 0 && nl < this.end) {
        const line = this.buf.toString('utf8', this.start, nl);
        this.start = nl + 1;
        return line;
      }
      if (this.eof) {
        if (this.start >= this.end) return undefined;
        const line = this.buf.toString('utf8', this.start, this.end);
        this.start = this.end;
        return line;
      }
      // Keep the unfinished line at the front (a larger buffer when it fills this one), read on.
      const rest = this.end - this.start;
      if (rest === this.buf.length) {
        const bigger = Buffer.alloc(this.buf.length * 2);
        this.buf.copy(bigger, 0, this.start, this.end);
        this.buf = bigger;
      } else this.buf.copy(this.buf, 0, this.start, this.end);
      this.start = 0;
      this.end = rest;
      let got: number;
      try {
        got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      } catch (e) {
        throw readError(this.file, e);
      }
      if (got === 0) this.eof = true;
      // Bytes past `end` are left from earlier reads: clear them so indexOf finds no stale newline.
      this.end += got;
      if (this.end < this.buf.length) this.buf.fill(0, this.end);
    }
  }
}

/**
 * Read one profile file found by listProfileFiles line by line, handing its lines to `sink`;
 * `chunkBytes` read at a time (the buffer grows for a longer line).
 */
export function readThreadLines(f: { file: string; node: number; context: number; thread: number }, sink: ThreadSink, chunkBytes = 1 << 20): void {
  let fd: number;
  try {
    fd = openSync(f.file, 'r');
  } catch (e) {
    throw readError(f.file, e);
  }
  try {
    parseLines(f.file, new FileLines(f.file, fd, chunkBytes), f, sink);
  } finally {
    closeSync(fd);
  }
}

/** Every thread of one metric set, one at a time, line by line (a merged file's threads are read whole). */
export function forEachThreadLines(set: MetricFiles, sinkFor: (index: number) => ThreadSink): void {
  if (set.merged) {
    let i = 0;
    readMergedThreads(set.merged.path, set.merged.index, (t) => {
      const sink = sinkFor(i++);
      sink.begin(t);
      for (const e of t.events) sink.event(e.name, e.calls, e.subrs, e.excl, e.incl, e.group);
      for (const u of t.userEvents) sink.userEvent(u);
      sink.end();
    });
    return;
  }
  set.files.forEach((f, i) => readThreadLines(f, sinkFor(i)));
}

function readError(file: string, e: unknown): UserError {
  if ((e as NodeJS.ErrnoException).code === 'EISDIR') return new UserError(`${file}: a directory where a profile file should be`);
  return new UserError(`${file}: cannot read the profile file: ${systemErrorText(e) ?? (e as Error).message}`);
}

function readProfileFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw readError(file, e);
  }
}

/**
 * One metric's files of a profile directory: MULTI__<metric> or the directory itself; or, for a
 * directory holding TAU's merged format instead, that file and the metric's index in it.
 */
export interface MetricFiles {
  metric: string;
  files: Array<{ file: string; node: number; context: number; thread: number }>;
  merged?: { path: string; index: number };
}

/** Every thread of one metric set, one at a time (from per-thread files, or from the merged file). */
export function forEachThread(set: MetricFiles, each: (t: TauThreadProfile, index: number) => void): void {
  if (set.merged) {
    let i = 0;
    readMergedThreads(set.merged.path, set.merged.index, (t) => each(t, i++));
    return;
  }
  set.files.forEach((f, i) => each(readThreadFile(f), i));
}

/**
 * The per-thread files of a directory, one list per metric (MULTI__<metric> subdirectories, else the
 * directory itself); empty when there are none.
 */
function metricFileSets(dir: string): Array<ReturnType<typeof profileFiles>> {
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new UserError(`${dir}: no such directory`);
  }
  if (!st.isDirectory()) throw new UserError(`${dir}: not a directory`);
  // MULTI__<metric> subdirectories hold one metric each; one without profile files (left over, or a
  // user's own folder) must not hide the profile files beside it.
  const metricDirs = readdirSync(dir)
    .filter((d) => d.startsWith('MULTI__') && statSync(join(dir, d)).isDirectory())
    .filter((d) => profileFiles(join(dir, d)).length > 0)
    .sort(timeFirst);
  return (metricDirs.length > 0 ? metricDirs.map((d) => join(dir, d)) : [dir]).map(profileFiles).filter((f) => f.length > 0);
}

/** MULTI__TIME first (the metric readers show when none is asked for, as TAU's tools do), the others
 * by name. */
function timeFirst(a: string, b: string): number {
  const ta = a === 'MULTI__TIME' ? 0 : 1;
  const tb = b === 'MULTI__TIME' ? 0 : 1;
  return ta - tb || (a < b ? -1 : a > b ? 1 : 0);
}

const NO_PROFILE = (dir: string) => new UserError(`${dir}: no TAU profile files (profile.<node>.<context>.<thread>) found`);

/** The metric sets of a directory without reading more than the first file of each (for streaming readers). */
export function listProfileFiles(dir: string): MetricFiles[] {
  const sets = metricFileSets(dir);
  if (sets.length === 0) {
    const merged = join(dir, MERGED_FILE);
    if (existsSync(merged)) return mergedMetrics(merged).map((metric, index) => ({ metric, files: [], merged: { path: merged, index } }));
    throw NO_PROFILE(dir);
  }
  return sets.map((files) => ({ metric: readProfileHeader(files[0].file).metric, files }));
}

/** Parse one profile file found by listProfileFiles. */
export function readThreadFile(f: { file: string; node: number; context: number; thread: number }): TauThreadProfile {
  return parseThreadProfile(f.file, readProfileFile(f.file), { node: f.node, context: f.context, thread: f.thread });
}

/**
 * Read a TAU profile directory: profile.* files directly in it, or MULTI__<metric> subdirectories.
 * `onFile` is told before each file is read (progress for directories of thousands of threads).
 */
export function readTauProfileDir(dir: string, onFile?: (file: string, index: number, total: number) => void): TauProfile {
  const listed = metricFileSets(dir);
  const profile: TauProfile = { dir, metrics: [], threads: [] };
  const total = listed.reduce((n, files) => n + files.length, 0);
  let index = 0;
  for (const files of listed) {
    if (files.length === 0) continue;
    const threads = files.map((f) => {
      onFile?.(f.file, index++, total);
      return parseThreadProfile(f.file, readProfileFile(f.file), f);
    });
    profile.metrics.push(threads[0].metric);
    profile.threads.push(threads);
  }
  if (profile.metrics.length === 0) {
    const merged = join(dir, MERGED_FILE);
    if (existsSync(merged)) {
      // TAU's merged format: the same threads, from one file.
      for (const [index, metric] of mergedMetrics(merged).entries()) {
        const threads: TauThreadProfile[] = [];
        readMergedThreads(merged, index, (t) => threads.push(t));
        profile.metrics.push(metric);
        profile.threads.push(threads);
      }
      attachStacks(profile);
      return profile;
    }
    throw NO_PROFILE(dir);
  }
  // hyprof's complete stacks beside the TAU files (stacks-file.ts), when the profile has them.
  attachStacks(profile);
  return profile;
}

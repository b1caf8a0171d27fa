/**
 * JIT code names and lines from the V8 part's log of JIT code events (the raw file's JIT section,
 * src/samples/raw-jit.ts; docs/node.md, "JavaScript frames in samples").
 *
 * Each code record names a code range the way a perf map does (`JS:*hot file:///app/a.mjs:2:13`,
 * perf-map.ts) and, for optimised code, carries its line table: (pc offset, line, source position)
 * where the position changes (where the line changes, in a log written before positions were
 * logged). A sampled PC gets the line of the last entry at or before its offset; a return address is
 * looked up at address − 1 (inside the call), so a caller's frame gets the line of the call. Code
 * without a line table (interpreted functions, baseline code) keeps the line where its function starts.
 *
 * Inlining (in a caller's frame: at the sampled instruction the code's own function, as lookup()
 * says). When the run wrote V8's own code log (v8-log.ts: `hyprof run -- node`, main thread), it
 * says which function, of which file, each position of optimised code belongs to, and names the
 * inlined functions. Otherwise: V8 gives the line table of optimised code as source positions only,
 * without saying which function inlined into it a position belongs to. So the log also keeps, per function, the positions
 * its bytecode spans (its first and last, with their lines). A sampled position is the innermost
 * function of the same file whose span holds it: the function itself, or one inlined into it (the
 * frame becomes that function at that line, inside the outer function at its first line: where it
 * called the inlined one is not known). When no function of the file holds it (inlined from another
 * file, whose positions cannot be told apart), it is the outer function at its first line; so too when
 * only a function around the outer one holds it (a CommonJS module's wrapper: code that cannot be
 * inlined into what it encloses, so an offset into another file). Without a
 * span (code compiled before the log started) a line before the function's first is treated the
 * same way. Positions, not lines: a minified file holds hundreds of functions on one line, where
 * lines would name the outer function for every one inlined into it. A log written before positions
 * were logged (records of types 1 and 4) is read by lines, as it was.
 *
 * What a range names when several codes held it over the run: V8 reuses memory, and the samples carry
 * no time to compare with the log, so the last code logged at an address wins (as with a perf map;
 * the V8 part turns code space compaction off, so moves are rare). A
 * move logs the code again at its new address (later, so it wins there) and leaves the old range as
 * it was, which names the samples taken before the move unless later code took that range. Removals
 * are read but change nothing (V8 11 does not send them).
 */
import type { RawJitLog } from '../samples/raw-model.js';
import type { SourceFrame } from './frames.js';
import { jitFrame } from './perf-map.js';
import { lastAtOrBefore } from './sorted-search.js';
import type { V8Log } from './v8-log.js';

interface Code {
  start: bigint;
  end: bigint;
  /** Position in the log: later wins. */
  order: number;
  name: string;
  /** (pc offset, line) pairs, flat, offsets ascending. */
  lines: Uint32Array;
  /** The source position of each entry of `lines` (a log with positions). */
  positions?: Uint32Array;
  /** Its name parsed (jitFrame), once it was looked up: many sampled addresses share a code. */
  frame?: SourceFrame;
}

interface Span {
  first: number;
  last: number;
  function: string;
  /** Its function key (functionKey): one per function, whichever compilation logged the span. */
  key: string;
  /** Source positions (a log with positions). */
  firstPos?: number;
  lastPos?: number;
}

/**
 * The spans of one file that have positions, sorted by first position, for the innermost span that
 * holds a position: each span's `up` is the nearest span before it in that order that holds it.
 * Functions nest, so the innermost span holding a position is the last span starting at or before
 * it, or one of that span's `up` chain (a handful of steps: the nesting depth), not a scan of the
 * file's functions (thousands in a bundle).
 */
interface PosIndex {
  spans: Span[];
  up: Int32Array;
}

function posIndex(spans: Span[]): PosIndex {
  const sorted = spans.filter((s) => s.firstPos !== undefined).sort((a, b) => a.firstPos! - b.firstPos! || b.lastPos! - a.lastPos!);
  const up = new Int32Array(sorted.length).fill(-1);
  const open: number[] = [];
  sorted.forEach((s, i) => {
    while (open.length > 0 && sorted[open[open.length - 1]].lastPos! < s.lastPos!) open.pop();
    if (open.length > 0) up[i] = open[open.length - 1];
    open.push(i);
  });
  return { spans: sorted, up };
}

/** The innermost span of `ix` that holds `pos`, or undefined. */
function innermostAt(ix: PosIndex, pos: number): Span | undefined {
  const e = ix.spans;
  let i = lastAtOrBefore(e.length, (k) => e[k].firstPos! <= pos);
  while (i >= 0 && e[i].lastPos! < pos) i = ix.up[i];
  return i >= 0 ? e[i] : undefined;
}

/** A code name without its tier mark (`JS:*f a.js:2:13` and `JS:~f a.js:2:13` are one function). */
const functionKey = (name: string) => name.replace(/^([A-Za-z]+):[~^+*]/, '$1:');

export class JitCodeLog {
  private readonly codes: Code[];
  /** The lines each function spans, by function key. */
  private readonly spans = new Map<string, Span>();
  /** The same, per file. */
  private readonly spansOfFile = new Map<string, Span[]>();
  /** Per file, its spans with positions indexed (made at the first lookup in the file). */
  private readonly posIndexOfFile = new Map<string, PosIndex>();
  private readonly maxSize: bigint;
  readonly dropped: number;
  readonly pending: number;

  /** `v8`: V8's own code log of the process, when the run wrote one (v8-log.ts): it says which
   * function, of which file, each position of optimised code was inlined from. */
  constructor(log: RawJitLog, private readonly v8: V8Log | null = null) {
    const codes: Code[] = [];
    /** The newest code logged at each start, for moves. */
    const at = new Map<bigint, Code>();
    let order = 0;
    let maxSize = 0n;
    const add = (c: Code) => {
      if (c.end <= c.start) return;
      codes.push(c);
      at.set(c.start, c);
      if (c.end - c.start > maxSize) maxSize = c.end - c.start;
    };
    for (const r of log.records) {
      if (r.type === 'code') add({ start: r.start, end: r.start + r.size, order: order++, name: r.name, lines: r.lines, positions: r.positions });
      else if (r.type === 'range') {
        const f = jitFrame(r.name);
        const key = functionKey(r.name);
        const span: Span = { first: r.first, last: r.last, function: f.function, key, firstPos: r.firstPos, lastPos: r.lastPos };
        this.spans.set(key, span);
        if (f.file) {
          let l = this.spansOfFile.get(f.file);
          if (!l) this.spansOfFile.set(f.file, (l = []));
          l.push(span);
        }
      } else if (r.type === 'move') {
        const from = at.get(r.from);
        if (from) add({ ...from, start: r.to, end: r.to + (from.end - from.start), order: order++ });
      }
    }
    codes.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
    this.codes = codes;
    this.maxSize = maxSize;
    this.dropped = log.dropped;
    this.pending = log.pending;
  }

  get size(): number {
    return this.codes.length;
  }

  private find(address: bigint): Code | null {
    const e = this.codes;
    const last = lastAtOrBefore(e.length, (i) => e[i].start <= address);
    let best: Code | null = null;
    for (let i = last; i >= 0 && address - e[i].start < this.maxSize; i--) {
      if (address < e[i].end && (!best || e[i].order > best.order)) best = e[i];
    }
    return best;
  }

  /**
   * The source frames of the code holding `address` (already − 1 for a return address), innermost
   * first (a function inlined into it, then the function itself), or null.
   *
   * `sampled`: the address is the sampled instruction, not a return address. There the frame is the
   * code's own function, as `node --cpu-prof` counts it (V8's profiler expands the inlining of
   * callers' frames only), at the line of the inlined code when it is in the same file, else at the
   * line where the function called what was inlined: the profile's self time is per function as
   * `--cpu-prof` shows it, and the inlined functions appear wherever they called something.
   */
  lookup(address: bigint, sampled = false): SourceFrame[] | null {
    const frames = this.inlined(address);
    if (!sampled || !frames || frames.length === 1) return frames;
    const outer = frames[frames.length - 1];
    return [{ ...outer, line: frames[0].file === outer.file && frames[0].line > 0 ? frames[0].line : outer.line }];
  }

  /** lookup() with every inlined function a frame of its own. */
  private inlined(address: bigint): SourceFrame[] | null {
    const code = this.find(address);
    if (!code) return null;
    const frame = (code.frame ??= jitFrame(code.name));
    if (this.v8 && code.name.startsWith('JS:*')) {
      const lineAt = (offset: number) => {
        const i = this.entryAt(code, code.start + BigInt(offset));
        return i >= 0 ? code.lines[2 * i + 1] : 0;
      };
      const inlined = this.v8.frames(code.start, code.end - code.start, code.name, Number(address - code.start), lineAt);
      if (inlined) return inlined;
    }
    const at = this.entryAt(code, address);
    const line = at >= 0 ? code.lines[2 * at + 1] : 0;
    if (line === 0) return [frame];
    const span = this.spans.get(functionKey(code.name));
    if (code.positions && span?.firstPos !== undefined) {
      // by position: the innermost function of the file that holds it
      const pos = code.positions[at];
      let ix = this.posIndexOfFile.get(frame.file);
      if (!ix) this.posIndexOfFile.set(frame.file, (ix = posIndex(this.spansOfFile.get(frame.file) ?? [])));
      const inner = innermostAt(ix, pos);
      // none (inlined from another file): the function at its first line
      if (!inner) return [frame];
      // the function itself (its span, or that of an earlier compilation of it)
      if (inner.key === span.key) return [{ ...frame, line }];
      // A function around this one (a CommonJS module's wrapper, an enclosing closure) is not what
      // its code inlines: such a position is an offset into another file that happens to fall in this
      // file's outer code (an inlined callee from another module), so the function at its first line.
      if (inner.firstPos! <= span.firstPos && inner.lastPos! >= span.lastPos!) return [frame];
      return [{ function: inner.function, file: frame.file, line }, frame];
    }
    if (line === frame.line) return [frame];
    if (span ? line >= span.first && line <= span.last : line > frame.line) return [{ ...frame, line }];
    const inner = (this.spansOfFile.get(frame.file) ?? [])
      .filter((s) => line >= s.first && line <= s.last)
      .sort((a, b) => a.last - a.first - (b.last - b.first))[0];
    return inner ? [{ function: inner.function, file: frame.file, line }, frame] : [frame];
  }

  /** The index of the entry at or before address's offset in code's table; -1 when there is none. */
  private entryAt(code: Code, address: bigint): number {
    const offset = Number(address - code.start);
    const l = code.lines;
    return lastAtOrBefore(l.length / 2, (i) => l[2 * i] <= offset);
  }
}

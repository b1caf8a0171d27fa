/**
 * JIT code names and lines from the V8 part's log of JIT code events (the raw file's JIT section,
 * src/samples/raw-jit.ts; docs/node.md, "JavaScript frames in samples").
 *
 * Each code record names a code range the way a perf map does (`JS:*hot file:///app/a.mjs:2:13`,
 * perf-map.ts) and, for optimised code, carries its line table: (pc offset, line) where the line
 * changes. A sampled PC gets the line of the last entry at or before its offset; a return address is
 * looked up at address − 1 (inside the call), so a caller's frame gets the line of the call. Code
 * without a line table (interpreted functions, baseline code) keeps the line where its function starts.
 *
 * Inlining. V8 gives the line table of optimised code as source positions only, without saying which
 * function inlined into it a position belongs to. So the log also keeps, per function, the lines its
 * bytecode spans (its first and last position). A sampled line outside the function's span is a line
 * of a function inlined into it: the frame becomes that function at that line (the innermost of the
 * same file whose span holds it) inside the outer function at its first line (where it called the
 * inlined one is not known); when no function of the file holds it (inlined from another file, whose
 * positions cannot be told apart), the outer function at its first line. Without a span (code
 * compiled before the log started) a line before the function's first is treated the same way.
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

interface Code {
  start: bigint;
  end: bigint;
  /** Position in the log: later wins. */
  order: number;
  name: string;
  /** (pc offset, line) pairs, flat, offsets ascending. */
  lines: Uint32Array;
  /** Its name parsed (jitFrame), once it was looked up: many sampled addresses share a code. */
  frame?: SourceFrame;
}

interface Span {
  first: number;
  last: number;
  function: string;
}

/** A code name without its tier mark (`JS:*f a.js:2:13` and `JS:~f a.js:2:13` are one function). */
const functionKey = (name: string) => name.replace(/^([A-Za-z]+):[~^+*]/, '$1:');

export class JitCodeLog {
  private readonly codes: Code[];
  /** The lines each function spans, by function key. */
  private readonly spans = new Map<string, Span>();
  /** The same, per file. */
  private readonly spansOfFile = new Map<string, Span[]>();
  private readonly maxSize: bigint;
  readonly dropped: number;
  readonly pending: number;

  constructor(log: RawJitLog) {
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
      if (r.type === 'code') add({ start: r.start, end: r.start + r.size, order: order++, name: r.name, lines: r.lines });
      else if (r.type === 'range') {
        const f = jitFrame(r.name);
        const span = { first: r.first, last: r.last, function: f.function };
        this.spans.set(functionKey(r.name), span);
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
    let lo = 0;
    let hi = e.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (e[mid].start <= address) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    let best: Code | null = null;
    for (let i = last; i >= 0 && address - e[i].start < this.maxSize; i--) {
      if (address < e[i].end && (!best || e[i].order > best.order)) best = e[i];
    }
    return best;
  }

  /**
   * The source frames of the code holding `address` (already − 1 for a return address), innermost
   * first (a function inlined into it, then the function itself), or null.
   */
  lookup(address: bigint): SourceFrame[] | null {
    const code = this.find(address);
    if (!code) return null;
    const frame = (code.frame ??= jitFrame(code.name));
    const line = this.lineAt(code, address);
    if (line === 0 || line === frame.line) return [frame];
    const span = this.spans.get(functionKey(code.name));
    if (span ? line >= span.first && line <= span.last : line > frame.line) return [{ ...frame, line }];
    const inner = (this.spansOfFile.get(frame.file) ?? [])
      .filter((s) => line >= s.first && line <= s.last)
      .sort((a, b) => a.last - a.first - (b.last - b.first))[0];
    return inner ? [{ function: inner.function, file: frame.file, line }, frame] : [frame];
  }

  /** The line of the entry at or before address's offset in code's table; 0 when it has none. */
  private lineAt(code: Code, address: bigint): number {
    const offset = Number(address - code.start);
    const l = code.lines;
    let line = 0;
    for (let lo = 0, hi = l.length / 2 - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      if (l[2 * mid] <= offset) {
        line = l[2 * mid + 1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return line;
  }
}

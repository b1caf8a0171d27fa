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
 * What a range names when several codes held it over the run: V8 reuses memory, and the samples carry
 * no time to compare with the log, so the last code logged at an address wins (as with a perf map). A
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
}

export class JitCodeLog {
  private readonly codes: Code[];
  private readonly maxSize: bigint;
  readonly dropped: number;

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
      else if (r.type === 'move') {
        const from = at.get(r.from);
        if (from) add({ ...from, start: r.to, end: r.to + (from.end - from.start), order: order++ });
      }
    }
    codes.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
    this.codes = codes;
    this.maxSize = maxSize;
    this.dropped = log.dropped;
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

  /** The source frame of the code holding `address` (already − 1 for a return address), or null. */
  lookup(address: bigint): SourceFrame | null {
    const code = this.find(address);
    if (!code) return null;
    const frame = jitFrame(code.name);
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
    return line > 0 ? { ...frame, line } : frame;
  }
}

/**
 * Which function a position of optimised code was inlined from, from V8's own code log (docs/node.md,
 * "Functions inlined into optimised code"). `hyprof run -- node ...` starts node with `--log-code
 * --no-log-source-code --logfile=<raw dir>/v8.log` (run-node-jit.ts), and V8 writes one file per
 * isolate, `isolate-0x<address>-<pid>-v8.log`, beside the raw files (the main thread's only: the
 * preload stops workers from logging). The V8 part's code events give an optimised code's positions
 * as offsets without the file they belong to; this log says, for each position, which inlined
 * function it is in (`code-source-info`: `C<pc offset>O<position>I<inlining id>`), where that function
 * was called (`F<function>O<position>I<caller's inlining id>`), and which function each is
 * (`S<SharedFunctionInfo address>`, named by the `code-creation` of its bytecode, whose own
 * `code-source-info` gives its script and the positions it spans). An address in optimised code gets
 * the inlined functions' frames, innermost first, as `--cpu-prof` shows them in callers' frames
 * (jit-code.ts keeps the outer function alone at the sampled instruction, as `--cpu-prof` does).
 *
 * Lines. The scripts' texts are not logged (`--no-log-source-code`: writing them cost the linter of
 * bench/node-programs 5 MB and several points of CPU), so a position becomes a line only in the
 * optimised function's own script, from the V8 part's line table of the same code (the caller's
 * `lineAt`); a function inlined from another script gets the line where it starts, as `--cpu-prof`'s
 * call frames do.
 *
 * Trust. A code is used only when the log has one of the same address, size and name as the V8 part
 * logged; and an inlining only when every position it gives a function falls within that function's
 * span (a SharedFunctionInfo the collector moved leaves its old address to another function): else
 * null, and the caller names the code as it would without the log. Only the lines of functions some
 * optimised code inlines are split; a line of those that cannot be read is counted and said.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceFrame } from './frames.js';
import { jitFrame } from './perf-map.js';
import { lastAtOrBefore } from './sorted-search.js';

/** A function as its bytecode's code-creation names it. */
interface Fn {
  /** V8's name, `helper /app/b.js:1:33`; as a frame once it is needed. */
  name: string;
  frame?: SourceFrame;
  /** Its script's id and the positions it spans (its bytecode's code-source-info); −1 until read. */
  script: number;
  start: number;
  end: number;
}

/** An optimised code with functions inlined into it, as logged (parsed at its first lookup). */
interface Inlined {
  /** V8's name, `hot /app/a.js:2:13`. */
  name: string;
  size: string;
  outer: Fn;
  positions: string;
  inlining: string;
  /** The inlined functions, by index (`S` entries), as known when the code was logged. */
  fns: Array<Fn | undefined>;
  parsed?: Parsed;
}

interface Parsed {
  /** Per entry, ascending by pc offset: pc offset, position, inlining id (−1: the outer function). */
  pc: Int32Array;
  pos: Int32Array;
  inl: Int32Array;
  /** Per inlining: the function's index, the call's position, the caller's inlining id (−1: outer). */
  fn: Int32Array;
  callPos: Int32Array;
  caller: Int32Array;
  /** The entries at positions of the code's own script, by position: (position, pc offset) pairs. */
  own: Int32Array;
}


/** V8's log escapes (in names): `\x2C` for a comma, `\\`, `\n`, `\xHH` and `\uHHHH` (one UTF-16 unit each). */
export function unescapeV8(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|n|\\)/g, (_, e: string) =>
    e === 'n' ? '\n' : e === '\\' ? '\\' : String.fromCharCode(parseInt(e.slice(1), 16)),
  );
}


/**
 * The SharedFunctionInfo addresses some optimised code of the log inlines (the last field of its
 * code-source-info lines): only their functions' lines need reading. Null (read them all) when the
 * log moved some, since a moved one was known by an earlier address.
 */
function inlinedFunctions(text: string): Set<string> | null {
  if (text.includes('\nsfi-move,')) return null;
  const needed = new Set<string>();
  for (let at = text.indexOf('\ncode-source-info,'); at >= 0; at = text.indexOf('\ncode-source-info,', at + 1)) {
    let to = text.indexOf('\n', at + 1);
    if (to < 0) to = text.length;
    const last = text.slice(text.lastIndexOf(',', to - 1) + 1, to);
    if (last !== '') for (const a of last.split('S')) if (a !== '') needed.add(a);
  }
  return needed;
}

/** `C<a>O<b>[I<c>]...` or `F<a>O<b>[I<c>]...` as three columns (a missing number: −1). */
function triples(s: string, lead: 'C' | 'F'): [Int32Array, Int32Array, Int32Array] | null {
  const re = lead === 'C' ? /C(\d+)O(\d+)(?:I(\d+))?/y : /F(\d*)O(\d+)(?:I(\d+))?/y;
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  re.lastIndex = 0;
  while (re.lastIndex < s.length) {
    const m = re.exec(s);
    if (!m) return null;
    a.push(m[1] === '' ? -1 : Number(m[1]));
    b.push(Number(m[2]));
    c.push(m[3] === undefined ? -1 : Number(m[3]));
  }
  return [Int32Array.from(a), Int32Array.from(b), Int32Array.from(c)];
}

export class V8Log {
  /** Optimised codes with inlining, by `<start>/<size>` (hex start as logged, decimal size). */
  private readonly codes = new Map<string, Inlined>();
  /** Lines of the log that could not be read (said by the caller when any). */
  readonly unreadable: number;

  constructor(texts: string[]) {
    let unreadable = 0;
    for (const text of texts) unreadable += this.read(text);
    this.unreadable = unreadable;
  }

  /** The logs V8 wrote for process `pid` in `dir` (`isolate-0x…-<pid>-v8.log`), or null when none. */
  static forProcess(dir: string, pid: number, warn: (w: string) => void): V8Log | null {
    let names: string[];
    try {
      names = readdirSync(dir).filter((f) => new RegExp(`^isolate-0x[0-9a-f]+-${pid}-v8\\.log$`).test(f));
    } catch {
      return null;
    }
    if (names.length === 0) return null;
    const texts: string[] = [];
    const read: string[] = [];
    for (const f of names) {
      // A regular file only, never followed through a link: the directory holds what the run wrote.
      let fd = -1;
      try {
        fd = openSync(join(dir, f), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
        texts.push(readFileSync(fd, 'utf8'));
        read.push(join(dir, f));
      } catch (e) {
        warn(`${join(dir, f)}: not read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): functions inlined from other files are named by the function they were inlined into`);
      } finally {
        if (fd >= 0) closeSync(fd);
      }
    }
    const log = new V8Log(texts);
    const one = log.unreadable === 1;
    if (log.unreadable > 0) warn(`${read.join(', ')}: ${log.unreadable} line${one ? '' : 's'} of V8's code log could not be read and ${one ? 'was' : 'were'} skipped`);
    return log;
  }

  get size(): number {
    return this.codes.size;
  }

  /** Read one log; returns the number of lines it could not read. */
  private read(text: string): number {
    // Per log: SharedFunctionInfo addresses are an isolate's own.
    const sfis = new Map<string, Fn>();
    const byAddress = new Map<string, Inlined>();
    let bad = 0;
    const needed = inlinedFunctions(text);
    // The last code-creation: its code-source-info follows it.
    let last: { address: string; size: string; name: string; fn?: Fn; optimised: boolean } | null = null;
    let from = 0;
    while (from < text.length) {
      let to = text.indexOf('\n', from);
      if (to < 0) to = text.length;
      const at = from;
      from = to + 1;
      // Most of a log is code no optimised code inlines (and builtins, bytecode handlers, regular
      // expressions): passed over without being split, by its last two fields (`,<function>,<tier>`).
      if (text.startsWith('code-creation,', at)) {
        const tier = text.lastIndexOf(',', to - 1);
        const sfi = text.slice(text.lastIndexOf(',', tier - 1) + 1, tier);
        if (needed && !needed.has(sfi) && text.slice(tier + 1, to) !== '*') {
          last = null;
          continue;
        }
        const f = text.slice(at, to).split(',');
        if (f.length < 7) {
          bad++;
          last = null;
          continue;
        }
        last = { address: f[4], size: f[5], name: unescapeV8(f[6]), optimised: f[8] === '*' };
        if (f.length >= 9 && f[7].startsWith('0x')) {
          // a function's code: its SharedFunctionInfo now names this function
          const fn: Fn = { name: last.name, script: -1, start: -1, end: -1 };
          if (f[8] === '~') sfis.set(f[7], fn);
          else if (!sfis.has(f[7])) sfis.set(f[7], fn);
          last.fn = fn;
        }
      } else if (text.startsWith('code-source-info,', at)) {
        const fn = last?.fn;
        if (!last || !fn || !text.startsWith(`${last.address},`, at + 17)) continue;
        // code-source-info,<address>,<script>,<start>,<end>,<positions>,<inlining>,<functions>
        const head = text.slice(at + 18 + last.address.length, Math.min(to, at + 120)).split(',', 4);
        if (head.length < 4) {
          bad++;
          continue;
        }
        const script = Number(head[0]);
        if (fn.script < 0) {
          fn.script = script;
          fn.start = Number(head[1]);
          fn.end = Number(head[2]);
        }
        if (!last.optimised || text.charCodeAt(to - 1) === 44 /* no functions: no inlining */) continue;
        const f = text.slice(at, to).split(',');
        if (f.length < 8) {
          bad++;
          continue;
        }
        if (f[6] !== '') {
          const fns = f[7].split('S').slice(1).map((a) => sfis.get(a));
          const code: Inlined = { name: last.name, size: last.size, outer: { ...fn, script, start: Number(f[3]), end: Number(f[4]) }, positions: f[5], inlining: f[6], fns };
          this.codes.set(`${last.address}/${last.size}`, code);
          byAddress.set(last.address, code);
        }
      } else if (text.startsWith('code-move,', at)) {
        // code the collector moved (rare: the V8 part turns code space compaction off)
        const f = text.slice(at, to).split(',');
        const code = byAddress.get(f[1]);
        if (code) {
          this.codes.set(`${f[2]}/${code.size}`, code);
          byAddress.set(f[2], code);
        }
      } else if (text.startsWith('sfi-move,', at)) {
        const f = text.slice(at, to).split(',');
        const fn = sfis.get(f[1]);
        if (fn) {
          sfis.delete(f[1]);
          sfis.set(f[2], fn);
        }
      }
    }
    return bad;
  }

  /**
   * The frames at pc offset `offset` of the optimised code at `start` (its size and the V8 part's
   * name, `JS:*hot /app/a.js:2:13`), innermost first: the inlined functions, then the code's own; null
   * when the log has no such code with inlining, or when the inlining does not hold up.
   * `lineAt`: the line the V8 part's table of this code gives at a pc offset (0 when none): a line of
   * the code's own script, right for positions of that script alone.
   */
  frames(start: bigint, size: bigint, name: string, offset: number, lineAt: (offset: number) => number): SourceFrame[] | null {
    const code = this.codes.get(`0x${start.toString(16)}/${size}`);
    if (!code || name.replace(/^[A-Za-z]+:[~^+*]?/, '') !== code.name) return null;
    const p = (code.parsed ??= this.parse(code) ?? undefined);
    if (!p) return null;
    const at = lastAtOrBefore(p.pc.length, (i) => p.pc[i] <= offset);
    if (at < 0) return null;
    const out: SourceFrame[] = [];
    // A position of the code's own script: the line at the entry of that position, or of the nearest
    // position before it (lines do not go back as positions go on).
    const lineInScript = (q: number): number => {
      const o = p.own;
      const i = lastAtOrBefore(o.length / 2, (k) => o[2 * k] <= q);
      return i < 0 ? 0 : lineAt(o[2 * i + 1]);
    };
    let pos = p.pos[at];
    let inl = p.inl[at];
    for (let guard = 0; inl >= 0 && guard <= p.fn.length; guard++) {
      const fn = code.fns[p.fn[inl]];
      if (!fn || fn.script < 0 || pos < fn.start || pos > fn.end) return null;
      const frame = (fn.frame ??= jitFrame(`JS:~${fn.name}`));
      out.push({ ...frame, line: (fn.script === code.outer.script && lineInScript(pos)) || frame.line });
      pos = p.callPos[inl];
      inl = p.caller[inl];
    }
    if (inl >= 0) return null;
    const outer = code.outer;
    if (pos < outer.start || pos > outer.end) return null;
    const frame = (outer.frame ??= jitFrame(`JS:~${outer.name}`));
    out.push({ ...frame, line: lineInScript(pos) || frame.line });
    return out;
  }

  private parse(code: Inlined): Parsed | null {
    const c = triples(code.positions, 'C');
    const f = triples(code.inlining, 'F');
    if (!c || !f) return null;
    // each inlining's function must be among the code's inlined functions; ids must point back
    for (let i = 0; i < f[0].length; i++) if (f[0][i] < 0 || f[0][i] >= code.fns.length || f[2][i] >= f[0].length) return null;
    for (let i = 0; i < c[2].length; i++) if (c[2][i] >= f[0].length) return null;
    const own: Array<[number, number]> = [];
    for (let i = 0; i < c[0].length; i++) {
      const inl = c[2][i];
      if (inl < 0 || code.fns[f[0][inl]]?.script === code.outer.script) own.push([c[1][i], c[0][i]]);
    }
    own.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    return { pc: c[0], pos: c[1], inl: c[2], fn: f[0], callPos: f[1], caller: f[2], own: Int32Array.from(own.flat()) };
  }
}


/**
 * The event-context tree of one raw process, seen the way TAU names things: a parameter
 * specialisation stands for its timer in timer paths ("Iteration 0 => matrixMultiply", never the
 * specialised name), phases enclose what runs inside them, and the root is `.TAU application`.
 * Sample contexts are the exception: their paths keep the specialised names, because samples are
 * partitioned by parameter value ("matrixMultiply  [ <size> = <512> ]  " has samples of its own).
 */
import { EventKind, type RawContext, type RawProcess } from '../samples/raw-model.js';
import { paramName, safeName, userName } from './event-names.js';
import { sanitizeName } from './tau-writer.js';

export const PATH_JOIN = ' => ';
/** How TAU's readers split an event path (TAU writes two spaces before a [CONTEXT] part). */
export const PATH_SPLIT = /\s+=>\s+/;

export class ContextTree {
  /** Contexts on the path from the root, by context. */
  private readonly lengthMemo = new Map<bigint, number>();
  /** Path names by (depth, specialised), then by context: no key string is built per context. */
  private readonly nameMemo = new Map<string, Map<bigint, string>>();
  /** Names of events by id: a name is rewritten once, and every path that holds it shares it. */
  private readonly names: Array<string | undefined> = [];
  private readonly pathGroups: Array<string | undefined> = [];
  private childIndex: Map<string, bigint> | undefined;
  readonly hasPhases: boolean;

  constructor(private readonly proc: RawProcess) {
    this.hasPhases = proc.events.some((e) => e.kind === EventKind.PHASE);
  }

  context(c: bigint): RawContext {
    const ctx = this.proc.contexts.get(c);
    // The reader checked every context reference; reaching here means a defect, not bad input.
    if (!ctx) throw new Error(`context 0x${c.toString(16)} missing from ${this.proc.file}`);
    return ctx;
  }

  /** The context of `event` directly under `parent`, when the process has one. */
  child(parent: bigint, event: number): bigint | undefined {
    if (!this.childIndex) {
      this.childIndex = new Map();
      for (const c of this.proc.contexts.values()) this.childIndex.set(`${c.parent}:${c.event}`, c.context);
    }
    return this.childIndex.get(`${parent}:${event}`);
  }

  /** Drop the memos of paths (names and lengths): they are as large as the thread's entries. */
  forgetPaths(): void {
    this.nameMemo.clear();
    this.lengthMemo.clear();
  }

  /** A parameter specialisation's timer; any other event itself. */
  base(event: number): number {
    const e = this.proc.events[event];
    return e.kind === EventKind.PARAM ? e.base : event;
  }

  kind(event: number): number {
    return this.proc.events[this.base(event)].kind;
  }

  /** The event's name as written (event-names.ts: names that would break the format rewritten). */
  name(event: number): string {
    let n = this.names[event];
    if (n === undefined) {
      const e = this.proc.events[event];
      switch (e.kind) {
        case EventKind.REGION:
        case EventKind.PHASE:
          n = userName(e.name);
          break;
        case EventKind.PARAM:
          n = paramName(e.name, this.proc.events[e.base].name);
          break;
        default:
          n = safeName(e.name);
      }
      this.names[event] = n;
    }
    return n;
  }

  /** The group as written for the event's own flat entry. */
  group(event: number): string {
    const e = this.proc.events[event];
    if (e.kind === EventKind.ROOT) return this.hasPhases ? 'TAU_UTILITY|TAU_PHASE' : 'TAU_UTILITY';
    return sanitizeName(e.group);
  }

  /** The leaf's group inside `TAU_CALLPATH|<group>`: TAU drops the phase marker there. Kept per
   * event: millions of path entries share a few group strings. */
  pathGroup(event: number): string {
    let g = this.pathGroups[event];
    if (g === undefined) {
      const parts = this.group(this.base(event))
        .split('|')
        .filter((x) => x.trim() !== 'TAU_PHASE')
        .join('|');
      this.pathGroups[event] = g = `TAU_CALLPATH|${parts}`;
    }
    return g;
  }

  /** Contexts from the root to c, c included (1 for a root). */
  pathLength(c: bigint): number {
    const known = this.lengthMemo.get(c);
    if (known !== undefined) return known;
    // A loop up to the nearest known ancestor, not recursion: no depth of nesting overflows the stack.
    const chain: bigint[] = [];
    let length = 0;
    for (let x = c; x !== 0n; x = this.context(x).parent) {
      const m = this.lengthMemo.get(x);
      if (m !== undefined) {
        length = m;
        break;
      }
      chain.push(x);
    }
    for (let i = chain.length - 1; i >= 0; i--) this.lengthMemo.set(chain[i], ++length);
    return length;
  }

  /** An event as a part of a path: its timer's name, or with `specialised` its own name. */
  private pathPart(event: number, specialised: boolean): string {
    return specialised ? this.name(event).trimEnd() : this.name(this.base(event));
  }

  /**
   * `a => b => c`: the last `depth` events of c's path (depth counts from the leaf); with
   * `specialised`, parameter specialisations keep their own names (the paths of sample contexts).
   * A path no longer than `depth` is its parent's path and its own part: the memo holds one name
   * per context and no array of the events on the way (millions of contexts share their prefixes).
   */
  pathName(c: bigint, depth: number, specialised = false): string {
    const kind = `${depth}:${specialised}`;
    let memo = this.nameMemo.get(kind);
    if (!memo) this.nameMemo.set(kind, (memo = new Map()));
    const known = memo.get(c);
    if (known !== undefined) return known;
    const d = Math.max(1, depth);
    // Up to the nearest ancestor named already (a loop, not recursion), then named downwards.
    const chain: bigint[] = [];
    let above: string | undefined;
    for (let x = c; x !== 0n; x = this.context(x).parent) {
      const m = memo.get(x);
      if (m !== undefined) {
        above = m;
        break;
      }
      chain.push(x);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const x = chain[i];
      const leaf = this.pathPart(this.context(x).event, specialised);
      let n: string;
      if (this.pathLength(x) <= d) n = above === undefined ? leaf : `${above}${PATH_JOIN}${leaf}`;
      else n = this.cutPathName(x, d, specialised);
      memo.set(x, n);
      above = n;
    }
    return above!;
  }

  /** The last d events of a path longer than d. */
  private cutPathName(c: bigint, d: number, specialised: boolean): string {
    const parts: string[] = [];
    for (let x = c; x !== 0n && parts.length < d; x = this.context(x).parent) parts.push(this.pathPart(this.context(x).event, specialised));
    return parts.reverse().join(PATH_JOIN);
  }

  /** The innermost phase (or the root) strictly enclosing c, as an event id; null for the root. */
  enclosingPhase(c: bigint): number | null {
    for (let p = this.context(c).parent; p !== 0n; p = this.context(p).parent) {
      const ev = this.context(p).event;
      const k = this.kind(ev);
      if (k === EventKind.PHASE || k === EventKind.ROOT) return this.base(ev);
    }
    return null;
  }

  /** `<innermost enclosing phase> => <event>`, or null for the root; with `specialised`, the event
   * keeps its parameter specialisation (the paths of sample contexts). */
  phasePathName(c: bigint, specialised = false): string | null {
    const phase = this.enclosingPhase(c);
    if (phase === null) return null;
    const ev = this.context(c).event;
    return `${this.name(phase)}${PATH_JOIN}${this.name(specialised ? ev : this.base(ev))}`;
  }

  /** True when some proper ancestor of c satisfies `same` (recursion: its inclusive value holds c's). */
  hasAncestor(c: bigint, same: (ancestor: RawContext) => boolean): boolean {
    for (let p = this.context(c).parent; p !== 0n; p = this.context(p).parent) {
      if (same(this.context(p))) return true;
    }
    return false;
  }
}

/**
 * A small raw-file writer for tests of the pieces between the native runtime and the TAU profile
 * (docs/raw-format.md). It encodes what a test describes, byte for byte as native/dump does, so the
 * reader and the assembler can be tested on exact, known input; real runs are tested elsewhere.
 */
import { crc32 } from 'node:zlib';

export class Bytes {
  private parts: Buffer[] = [];
  u8(v: number): this {
    const b = Buffer.alloc(1);
    b.writeUInt8(v);
    return this.push(b);
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v >>> 0);
    return this.push(b);
  }
  i32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    return this.push(b);
  }
  u64(v: number | bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    return this.push(b);
  }
  i64(v: number | bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(v));
    return this.push(b);
  }
  f64(v: number): this {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    return this.push(b);
  }
  str(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.u32(b.length).push(b);
  }
  push(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  get buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export interface FixtureEvent {
  kind?: number;
  /** EVENTS flags (bit 0: throttled). */
  flags?: number;
  base?: number;
  name: string;
  group?: string;
}
export interface FixtureContext {
  context: bigint;
  parent: bigint;
  event: number;
}
export interface FixtureStat {
  context: bigint;
  calls: number;
  childCalls?: number;
  incl: number[];
  excl: number[];
}
export interface FixtureSample {
  context: bigint;
  count: number;
  values: number[];
  pcs: bigint[];
}
export interface FixtureThread {
  index: number;
  tid: number;
  name?: string;
  stats: FixtureStat[];
  open?: bigint[];
  user?: Array<{ event: number; count: number; min: number; max: number; sum: number; sumsqr: number }>;
  drops?: Array<[string, number]>;
  warnings?: string[];
  samples?: FixtureSample[];
}
export interface Fixture {
  pid?: number;
  ppid?: number;
  node?: number;
  flags?: number;
  startNs?: bigint;
  stopNs?: bigint;
  metrics?: string[];
  attributes?: Array<[string, string]>;
  events: FixtureEvent[];
  contexts: FixtureContext[];
  threads: FixtureThread[];
  userEvents?: Array<[number, string]>;
  maps?: Array<{ start: bigint; end: bigint; bias: bigint; path: string; buildId?: string }>;
  sampling?: { unwind: boolean; depth: number };
}

export interface EncodedSection {
  tag: number;
  payload: Buffer;
}

export function encodeSections(f: Fixture): EncodedSection[] {
  const metrics = f.metrics ?? ['TIME'];
  const out: EncodedSection[] = [];
  const info = new Bytes()
    .i64(f.pid ?? 4242)
    .i64(f.ppid ?? 1)
    .i32(f.node ?? 0)
    .u32(f.flags ?? 0)
    .u64(f.startNs ?? 1_700_000_000_000_000_000n)
    .u64(f.stopNs ?? 1_700_000_002_000_000_000n)
    .u32(metrics.length);
  for (const m of metrics) info.str(m);
  const attrs = f.attributes ?? [['Hostname', 'testhost']];
  info.u32(attrs.length);
  for (const [k, v] of attrs) info.str(k).str(v);
  out.push({ tag: 1, payload: info.buffer });

  const ev = new Bytes().u32(f.events.length);
  f.events.forEach((e, i) => {
    ev.u32(i).u8(e.kind ?? 0).u8(e.flags ?? 0).u8(0).u8(0).u32(e.base ?? i).str(e.name).str(e.group ?? 'TAU_USER');
  });
  out.push({ tag: 2, payload: ev.buffer });

  const cx = new Bytes().u32(f.contexts.length);
  for (const c of f.contexts) cx.u64(c.context).u64(c.parent).u32(c.event).u32(0);
  out.push({ tag: 3, payload: cx.buffer });

  const ue = new Bytes().u32(f.userEvents?.length ?? 0);
  for (const [id, name] of f.userEvents ?? []) ue.u32(id).str(name);
  out.push({ tag: 5, payload: ue.buffer });

  for (const t of f.threads) {
    const b = new Bytes().u32(t.index).i64(t.tid).str(t.name ?? '').u64(1_700_000_000_000_000_000n).u64(1_700_000_002_000_000_000n).u32(0);
    b.u32(t.stats.length);
    for (const s of t.stats) {
      b.u64(s.context).u64(s.calls).u64(s.childCalls ?? 0);
      for (const v of s.incl) b.u64(v);
      for (const v of s.excl) b.u64(v);
    }
    b.u32(t.open?.length ?? 0);
    for (const o of t.open ?? []) b.u64(o);
    b.u32(t.user?.length ?? 0);
    for (const u of t.user ?? []) b.u32(u.event).u64(u.count).f64(u.min).f64(u.max).f64(u.sum).f64(u.sumsqr);
    b.u32(t.drops?.length ?? 0);
    for (const [r, n] of t.drops ?? []) b.str(r).u64(n);
    b.u32(t.warnings?.length ?? 0);
    for (const w of t.warnings ?? []) b.str(w);
    out.push({ tag: 4, payload: b.buffer });
    if (t.samples && t.samples.length > 0) {
      const s = new Bytes().u32(t.index).u32(t.samples.length);
      for (const r of t.samples) {
        s.u64(r.context).u64(r.count);
        for (const v of r.values) s.u64(v);
        s.u32(0).u32(r.pcs.length);
        for (const pc of r.pcs) s.u64(pc);
      }
      out.push({ tag: 6, payload: s.buffer });
    }
  }
  if (f.maps) {
    const m = new Bytes().u32(f.maps.length);
    for (const e of f.maps) m.u64(e.start).u64(e.end).u64(e.bias).str(e.path).str(e.buildId ?? '');
    out.push({ tag: 7, payload: m.buffer });
  }
  if (f.sampling) {
    const s = new Bytes().u32(1).str('itimer-wall').u64(1_000_000).u32(f.sampling.unwind ? 1 : 0).u32(f.sampling.depth).str('libunwind').i32(34);
    out.push({ tag: 8, payload: s.buffer });
  }
  return out;
}

/** Header + sections + END, as native/dump writes them. */
export function assemble(sections: EncodedSection[], opts: { version?: number; endCount?: number; noEnd?: boolean } = {}): Buffer {
  const b = new Bytes().push(Buffer.from('HYPROFRW', 'latin1')).u32(opts.version ?? 1).u32(0);
  for (const s of sections) b.u32(s.tag).u32(crc32(s.payload)).u64(s.payload.length).push(s.payload);
  if (!opts.noEnd) {
    const end = new Bytes().u32(opts.endCount ?? sections.length).buffer;
    b.u32(0xffffffff).u32(crc32(end)).u64(end.length).push(end);
  }
  return b.buffer;
}

export function encodeRaw(f: Fixture): Buffer {
  return assemble(encodeSections(f));
}

/** A small process: root → main → work (called twice), with the values TAU tests expect. */
export function simpleFixture(): Fixture {
  return {
    events: [
      { kind: 3, name: '.TAU application', group: 'TAU_UTILITY' },
      { name: 'main' },
      { name: 'work' },
    ],
    contexts: [
      { context: 0x10n, parent: 0n, event: 0 },
      { context: 0x11n, parent: 0x10n, event: 1 },
      { context: 0x12n, parent: 0x11n, event: 2 },
    ],
    threads: [
      {
        index: 0,
        tid: 4242,
        stats: [
          { context: 0x10n, calls: 1, childCalls: 1, incl: [2_000_000_000], excl: [1_000] },
          { context: 0x11n, calls: 1, childCalls: 2, incl: [1_999_999_000], excl: [999_999_000] },
          { context: 0x12n, calls: 2, incl: [1_000_000_000], excl: [1_000_000_000] },
        ],
      },
    ],
  };
}

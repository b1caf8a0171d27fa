/**
 * A bounded little-endian reader over one region of a raw measurement file, shared by the raw-file
 * reader and the readers of optional sections (src/analysis/openmp-raw.ts). Every failure is a
 * UserError naming the file, the absolute offset and what was expected there.
 */
import { UserError } from '../base/errors.js';

/**
 * A bounded reader over one region of the file. Offsets in messages are absolute file offsets so a
 * user can look at the bytes with a hex dump.
 */
export class Cursor {
  pos: number;
  constructor(
    private readonly file: string,
    private readonly buf: Buffer,
    start: number,
    /** Absolute end of the region (exclusive). */
    readonly end: number,
    /** "section THREAD" or "header": where we are, for messages. */
    private readonly where: string,
    /** True when the region's end is the file's end (a truncated file), else a section's end. */
    private readonly endIsFileEnd: boolean,
  ) {
    this.pos = start;
  }

  fail(what: string, at = this.pos): never {
    throw new UserError(`${this.file}: offset ${at}: ${this.where}: ${what}`);
  }

  private need(n: number, what: string): void {
    if (this.end - this.pos < n) {
      const ends = this.endIsFileEnd ? 'file ends' : 'section ends';
      this.fail(`expected ${n} bytes for ${what}, ${ends} at ${this.end}`);
    }
  }

  u8(what: string): number {
    this.need(1, what);
    return this.buf.readUInt8(this.pos++);
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  i32(what: string): number {
    this.need(4, what);
    const v = this.buf.readInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u64(what: string): bigint {
    this.need(8, what);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  /** A u64 that must fit a JS number exactly (counts, durations). */
  u64n(what: string): number {
    const at = this.pos;
    const v = this.u64(what);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${v} is implausibly large`, at);
    return Number(v);
  }
  /** The same as u64n without making a bigint (the readers' hot loops: millions of values). */
  u64f(what: string): number {
    this.need(8, what);
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    // Above 2^53 - 1 when the high word exceeds 21 bits.
    if (hi > 0x1fffff) this.fail(`${what} ${(BigInt(hi) << 32n) | BigInt(lo)} is implausibly large`);
    this.pos += 8;
    return hi * 0x1_0000_0000 + lo;
  }
  i64n(what: string): number {
    this.need(8, what);
    const at = this.pos;
    const v = this.buf.readBigInt64LE(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      this.fail(`${what} ${v} is out of range`, at);
    }
    return Number(v);
  }
  f64(what: string): number {
    this.need(8, what);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
  str(what: string): string {
    const len = this.u32(`the length of ${what}`);
    this.need(len, `${what} (string of ${len} bytes)`);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }
  /** `len` bytes of UTF-8 whose length was given before (a string without its own length). */
  text(len: number, what: string): string {
    this.need(len, `${what} (${len} bytes)`);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }
  /** Skip `n` bytes (padding). */
  skip(n: number, what: string): void {
    this.need(n, what);
    this.pos += n;
  }
  /** An element count: each element takes at least `minSize` bytes, so a corrupt count fails here. */
  count(what: string, minSize: number): number {
    const at = this.pos;
    const n = this.u32(`the number of ${what}`);
    if (n * minSize > this.end - this.pos) {
      this.fail(`${n} ${what} need at least ${n * minSize} bytes, ${this.endIsFileEnd ? 'file' : 'section'} ends at ${this.end}`, at);
    }
    return n;
  }
  done(): void {
    if (this.pos !== this.end) this.fail(`${this.end - this.pos} unexpected bytes at the end of the section`);
  }
}

/**
 * Numbers kept without an object each, for exports of millions of stacks: typed arrays that grow
 * (doubled when full).
 */

/** A list of numbers: push, read back by index. */
export class Column<T extends Int32Array | Float64Array> {
  length = 0;
  constructor(private data: T) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const more = new (this.data.constructor as new (n: number) => T)(Math.max(1024, this.data.length * 2));
      more.set(this.data);
      this.data = more;
    }
    this.data[this.length++] = v;
  }
  at(i: number): number {
    return this.data[i];
  }
  /** Bytes held. */
  get bytes(): number {
    return this.data.byteLength;
  }
  /** Let go of the room past its length (a column kept long after it is filled). */
  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, this.length) as T;
  }
}

/** `a` with a[i] = v, grown (doubled, zeros) when i is past its end. */
export function setAt(a: Int32Array, i: number, v: number): Int32Array {
  if (i >= a.length) {
    const more = new Int32Array(Math.max(a.length * 2, i + 1));
    more.set(a);
    a = more;
  }
  a[i] = v;
  return a;
}

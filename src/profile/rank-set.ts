/**
 * A set of ranks kept as sorted ranges (`0-4095, 4097-8191`): the ranks of a job arrive mostly in
 * order and mostly without gaps, so a set of 100,000 ranks is one or a few ranges instead of 100,000
 * entries. Adding the next rank of a range is constant work; an out-of-order rank is placed by a
 * binary search (and merges the ranges it joins).
 */
export class RankSet {
  /** Ranges as [first, last] pairs, flat and ascending, none touching another. */
  private readonly r: number[] = [];
  private n = 0;

  get size(): number {
    return this.n;
  }

  add(rank: number): void {
    const r = this.r;
    const k = r.length;
    // The common case: the next rank after the last range, or inside it.
    if (k > 0 && rank >= r[k - 2]) {
      if (rank <= r[k - 1]) return;
      if (rank === r[k - 1] + 1) {
        r[k - 1] = rank;
        this.n++;
        return;
      }
    }
    // i: the first range whose last rank is at least rank - 1 (the ranges rank may join or precede).
    let lo = 0;
    let hi = k / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (r[2 * mid + 1] < rank - 1) lo = mid + 1;
      else hi = mid;
    }
    const i = 2 * lo;
    if (i < k && r[i] <= rank && rank <= r[i + 1]) return;
    this.n++;
    if (i < k && r[i] === rank + 1) {
      r[i] = rank;
      return;
    }
    if (i < k && r[i + 1] === rank - 1) {
      r[i + 1] = rank;
      // It may now touch the next range.
      if (i + 2 < k && r[i + 2] === rank + 1) r.splice(i + 1, 2);
      return;
    }
    r.splice(i, 0, rank, rank);
  }

  has(rank: number): boolean {
    const r = this.r;
    let lo = 0;
    let hi = r.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (r[2 * mid + 1] < rank) lo = mid + 1;
      else hi = mid;
    }
    return 2 * lo < r.length && r[2 * lo] <= rank;
  }

  *[Symbol.iterator](): IterableIterator<number> {
    for (let i = 0; i < this.r.length; i += 2) for (let x = this.r[i]; x <= this.r[i + 1]; x++) yield x;
  }

  addAll(other: RankSet): void {
    for (const x of other) this.add(x);
  }

  /** The ranks of 0 .. size - 1 not in the set, ascending. */
  missingBelow(size: number): number[] {
    const out: number[] = [];
    let next = 0;
    for (let i = 0; i < this.r.length && next < size; i += 2) {
      for (; next < Math.min(this.r[i], size); next++) out.push(next);
      next = Math.max(next, this.r[i + 1] + 1);
    }
    for (; next < size; next++) out.push(next);
    return out;
  }

  /** The short form every message uses: `0-3, 5, 7-8`. */
  toString(): string {
    const parts: string[] = [];
    for (let i = 0; i < this.r.length; i += 2) parts.push(this.r[i] === this.r[i + 1] ? `${this.r[i]}` : `${this.r[i]}-${this.r[i + 1]}`);
    return parts.join(', ');
  }
}

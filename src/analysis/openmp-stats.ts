/**
 * Task durations as native/ompt records them: a log-linear histogram (values below 8 ns one bucket
 * each, then every power of two split into HIST_SUB equal buckets, 12.5% wide), so quantiles are
 * known to a few percent at any scale. A quantile is interpolated linearly inside the bucket that
 * holds it, assuming the instances spread evenly there: medians are not rounded to a bucket's value.
 */

/** Buckets per power of two (native HP_OMP_HIST_SUB). */
export const HIST_SUB = 8;

/** The duration range [lo, hi) in ns of a bucket. */
export function bucketRange(i: number): [number, number] {
  if (i < HIST_SUB) return [i, i + 1];
  const b = Math.floor(i / HIST_SUB) + 2;
  const width = 2 ** (b - 3);
  const lo = 2 ** b + (i % HIST_SUB) * width;
  return [lo, lo + width];
}

/** Merge sparse histograms ([bucket, count] pairs) into one. */
export function mergeHistograms(hists: Array<Array<[number, number]>>): Array<[number, number]> {
  const sum = new Map<number, number>();
  for (const h of hists) for (const [b, n] of h) sum.set(b, (sum.get(b) ?? 0) + n);
  return [...sum.entries()].sort((a, b) => a[0] - b[0]);
}

/** The q-quantile (0 ≤ q ≤ 1) of the durations in a histogram, in ns; 0 when it is empty. */
export function quantile(hist: Array<[number, number]>, q: number): number {
  const sorted = [...hist].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((n, [, c]) => n + c, 0);
  if (total === 0) return 0;
  const want = Math.min(Math.max(q, 0), 1) * total;
  let seen = 0;
  for (const [b, c] of sorted) {
    if (seen + c >= want) {
      const [lo, hi] = bucketRange(b);
      return lo + ((want - seen) / c) * (hi - lo);
    }
    seen += c;
  }
  return bucketRange(sorted[sorted.length - 1][0])[1];
}

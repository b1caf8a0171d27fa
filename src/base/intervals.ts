/**
 * Time intervals as [start, end] pairs: their union (sorted, merged), its length, and the length of
 * the intersection of two unions. Used where the GPU's busy time meets the host's waits (the resolve,
 * from the CUDA layer's sets; the tests, from a trace's lanes).
 */
export type Interval = [number, number];

/** Sorted, merged intervals (the input is sorted in place). */
export function union(pairs: Interval[]): Interval[] {
  pairs.sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [s, e] of pairs) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** The total length of merged intervals. */
export const coveredLength = (u: Interval[]): number => u.reduce((n, [s, e]) => n + (e - s), 0);

/** The length of the intersection of two merged interval lists. */
export function intersectionLength(a: Interval[], b: Interval[]): number {
  let n = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const s = Math.max(a[i][0], b[j][0]);
    const e = Math.min(a[i][1], b[j][1]);
    if (e > s) n += e - s;
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return n;
}

/** The GPU's time cut by the host's waits (ns), from the first busy or waiting moment to the last. */
export interface GpuCut {
  span: number;
  hostWaitingGpuBusy: number;
  hostWaitingGpuIdle: number;
  hostNotWaitingGpuBusy: number;
  hostNotWaitingGpuIdle: number;
}

/** The cut of `busy` by `wait` (both merged) from `from` (default: the first start of either) to
 * the last end; null when the GPU was never busy and no `from` is given. */
export function gpuCut(busy: Interval[], wait: Interval[], from?: number): GpuCut | null {
  if (busy.length === 0 && from === undefined) return null;
  const first = from ?? Math.min(busy[0][0], wait.length ? wait[0][0] : Infinity);
  const last = Math.max(first, busy.length ? busy[busy.length - 1][1] : -Infinity, wait.length ? wait[wait.length - 1][1] : -Infinity);
  const both = intersectionLength(busy, wait);
  const busyN = coveredLength(busy);
  const waitN = coveredLength(wait);
  const span = last - first;
  return {
    span,
    hostWaitingGpuBusy: both,
    hostWaitingGpuIdle: waitN - both,
    hostNotWaitingGpuBusy: busyN - both,
    hostNotWaitingGpuIdle: Math.max(0, span - (busyN + waitN - both)),
  };
}

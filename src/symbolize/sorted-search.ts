/**
 * The binary search the symbol tables share: the last of `count` entries sorted ascending whose key
 * lies at or before the one looked for (a code range's start at or before an address, a line
 * table's offset at or before a pc offset), or -1 when none does. `atOrBefore(i)` says whether entry
 * i's key does.
 */
export function lastAtOrBefore(count: number, atOrBefore: (i: number) => boolean): number {
  let lo = 0;
  let hi = count - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (atOrBefore(mid)) {
      last = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return last;
}

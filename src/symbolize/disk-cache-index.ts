/**
 * The index of a symbol cache file (disk-cache.ts): `<build id>.<tool>.index` beside its `.lines`,
 * so that a resolve finds the few thousand lines it needs among node's tens of thousands without
 * reading and scanning the whole file (about 10 MB) each time. Binary, in this machine's byte order:
 * a header (a magic number that also tells the byte order, the version, the bytes of the lines file
 * covered, the number of entries), then the addresses in ascending order (u64), each line's byte
 * offset (f64) and length with its newline (u32). Written to a temporary name and renamed. It only
 * says where to look: each line read through it is checked to be the line of its address, so a
 * stale or planted index can cost time but never change a name.
 */
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, type Stats, writeFileSync } from 'node:fs';

const MAGIC = 0x58495948; // "HYIX" when read in little-endian order: another byte order does not match
const VERSION = 1;
const HEADER = 24;
const PER_ENTRY = 8 + 8 + 4;

/** Lines as scanned from a cache file, in file order (an address may repeat: the last one counts). */
export interface Lines {
  /** Bytes of the lines file these cover (up to and with the last newline). */
  covered: number;
  addresses: bigint[];
  offsets: number[];
  lengths: number[];
}

/** A read index. */
export interface Index {
  covered: number;
  addresses: BigUint64Array;
  offsets: Float64Array;
  lengths: Uint32Array;
  /** The entry of `address`, or −1. */
  find(address: bigint): number;
}

export function indexOf(linesFile: string): string {
  return linesFile.replace(/\.lines$/, '.index');
}

/** The index at `file`, or null when there is none, `trusted` refuses it, or it is not of this layout. */
export function readIndex(file: string, trusted: (st: Stats) => boolean): Index | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!trusted(st) || st.size < HEADER) return null;
    // A fresh buffer (not node's shared pool), so that the typed arrays below are aligned.
    const bytes = new Uint8Array(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, bytes, got, st.size - got, got);
      if (n === 0) return null;
      got += n;
    }
    const head = new Uint32Array(bytes.buffer, 0, 2);
    const sizes = new Float64Array(bytes.buffer, 8, 2);
    const [covered, count] = [sizes[0], sizes[1]];
    if (head[0] !== MAGIC || head[1] !== VERSION || !Number.isSafeInteger(covered) || !Number.isSafeInteger(count)) return null;
    if (count < 0 || st.size !== HEADER + count * PER_ENTRY) return null;
    const addresses = new BigUint64Array(bytes.buffer, HEADER, count);
    const offsets = new Float64Array(bytes.buffer, HEADER + 8 * count, count);
    const lengths = new Uint32Array(bytes.buffer, HEADER + 16 * count, count);
    const find = (address: bigint): number => {
      let lo = 0;
      let hi = count - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const a = addresses[mid];
        if (a === address) return mid;
        if (a < address) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    };
    return { covered, addresses, offsets, lengths, find };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Write the index of `lines` (scanned lines, in file order), added to `index` when given (the lines
 * then follow what it covers): sorted by address, the last line of an address kept. Best effort.
 * The index's entries are sorted already, so only the new lines are sorted and the two merged
 * (node's index holds tens of thousands of entries; a resolve that appended adds a few hundred).
 */
export function writeIndex(file: string, lines: Lines, index: Index | null = null): void {
  const order = lines.addresses.map((_, i) => i);
  // Stable sort: among lines of one address the last in file order stays last, and is kept.
  order.sort((x, y) => (lines.addresses[x] < lines.addresses[y] ? -1 : lines.addresses[x] > lines.addresses[y] ? 1 : 0));
  const added = order.filter((i, k) => k === order.length - 1 || lines.addresses[order[k + 1]] !== lines.addresses[i]);
  const old = index ? index.addresses.length : 0;
  const bytes = new Uint8Array(HEADER + (old + added.length) * PER_ENTRY);
  const capacity = old + added.length;
  const addresses = new BigUint64Array(bytes.buffer, HEADER, capacity);
  const offsets = new Float64Array(bytes.buffer, HEADER + 8 * capacity, capacity);
  const lengths = new Uint32Array(bytes.buffer, HEADER + 16 * capacity, capacity);
  let count = 0;
  let i = 0;
  let k = 0;
  while (i < old || k < added.length) {
    const a = i < old ? index!.addresses[i] : undefined;
    const b = k < added.length ? lines.addresses[added[k]] : undefined;
    if (b === undefined || (a !== undefined && a < b)) {
      addresses[count] = a!;
      offsets[count] = index!.offsets[i];
      lengths[count++] = index!.lengths[i++];
    } else {
      if (a === b) i++; // a later line of the same address: it wins
      addresses[count] = b;
      offsets[count] = lines.offsets[added[k]];
      lengths[count++] = lines.lengths[added[k++]];
    }
  }
  // Entries replaced by later lines leave the arrays shorter than made: moved up to close the gaps.
  const out = new Uint8Array(HEADER + count * PER_ENTRY);
  new Uint32Array(out.buffer, 0, 2).set([MAGIC, VERSION]);
  new Float64Array(out.buffer, 8, 2).set([lines.covered, count]);
  new BigUint64Array(out.buffer, HEADER, count).set(addresses.subarray(0, count));
  new Float64Array(out.buffer, HEADER + 8 * count, count).set(offsets.subarray(0, count));
  new Uint32Array(out.buffer, HEADER + 16 * count, count).set(lengths.subarray(0, count));
  const tmp = `${file}.tmp.${process.pid}`;
  try {
    writeFileSync(tmp, out, { mode: 0o644 });
    renameSync(tmp, file);
  } catch {
    /* a read-only cache: the next resolve scans the file again */
  }
}

/**
 * Runtime addresses → (module, module address) through the MAPS section of a raw file: an address a
 * in [start, end) of a segment belongs to its object at a − bias, the address symbolizers take.
 */
import type { RawMapping } from '../samples/raw-model.js';
import { lastAtOrBefore } from './sorted-search.js';

export interface ModuleAddress {
  mapping: RawMapping;
  /** The address inside the object file (what llvm-symbolizer / addr2line take). */
  moduleAddress: bigint;
}

export class AddressMap {
  private readonly sorted: RawMapping[];

  constructor(maps: RawMapping[]) {
    this.sorted = [...maps].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  }

  lookup(address: bigint): ModuleAddress | null {
    const s = this.sorted;
    const found = lastAtOrBefore(s.length, (i) => s[i].start <= address);
    // Segments do not overlap, but a zero-sized or odd entry must not hide a good one before it.
    for (let i = found; i >= 0 && i > found - 4; i--) {
      const m = s[i];
      if (address >= m.start && address < m.end) return { mapping: m, moduleAddress: address - m.bias };
    }
    return null;
  }
}

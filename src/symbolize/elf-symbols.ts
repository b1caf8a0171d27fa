/**
 * Function symbols of an ELF file on disk (64-bit little-endian): name → address in the module, from
 * .symtab (local functions included) and .dynsym. Used to find where a function begins when only
 * its name is known (an OpenMP region's outlined body).
 */
import { closeSync } from 'node:fs';
import { cstring, openElf64, readAt, sectionHeaders, SHT_DYNSYM, SHT_SYMTAB, STT_FUNC, type ElfData } from './elf-read.js';

/** Name → module address of every defined function; empty when the file cannot be read. */
export function readFunctionSymbols(path: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const elf = openElf64(path);
  if (!elf) return out;
  try {
    if (elf.header.length === 0) return out;
    for (const f of functionSymbolsIn(elf.fd, elf.header)) if (!out.has(f.name)) out.set(f.name, f.start);
    return out;
  } catch {
    return out;
  } finally {
    closeSync(elf.fd);
  }
}

export interface FunctionSymbol {
  name: string;
  /** Address in the module. */
  start: bigint;
  size: bigint;
}

/** Every defined function of an ELF image open or in memory (elf-read.ts), in table order; throws
 * on a truncated image. */
export function functionSymbolsIn(src: ElfData, header: Buffer): FunctionSymbol[] {
  const out: FunctionSymbol[] = [];
  const sections = sectionHeaders(src, header);
  for (const s of sections) {
    if (s.type !== SHT_SYMTAB && s.type !== SHT_DYNSYM) continue;
    const syms = readAt(src, s.offset, s.size);
    const strs = readAt(src, sections[s.link].offset, sections[s.link].size);
    for (let at = 0; at + 24 <= syms.length; at += 24) {
      if ((syms[at + 4] & 0xf) !== STT_FUNC || syms.readUInt16LE(at + 6) === 0) continue;
      const name = cstring(strs, syms.readUInt32LE(at));
      if (name) out.push({ name, start: syms.readBigUInt64LE(at + 8), size: syms.readBigUInt64LE(at + 16) });
    }
  }
  return out;
}

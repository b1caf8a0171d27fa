/**
 * Function symbols of an ELF file on disk (64-bit little-endian): name → address in the module, from
 * .symtab (local functions included) and .dynsym. Used to find where a function begins when only
 * its name is known (an OpenMP region's outlined body).
 */
import { closeSync } from 'node:fs';
import { cstring, openElf64, readAt, sectionHeaders } from './elf-read.js';

const SHT_SYMTAB = 2;
const SHT_DYNSYM = 11;
const STT_FUNC = 2;

/** Name → module address of every defined function; empty when the file cannot be read. */
export function readFunctionSymbols(path: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const elf = openElf64(path);
  if (!elf) return out;
  try {
    if (elf.header.length === 0) return out;
    const sections = sectionHeaders(elf.fd, elf.header);
    for (const s of sections) {
      if (s.type !== SHT_SYMTAB && s.type !== SHT_DYNSYM) continue;
      const syms = readAt(elf.fd, s.offset, s.size);
      const strs = readAt(elf.fd, sections[s.link].offset, sections[s.link].size);
      for (let at = 0; at + 24 <= syms.length; at += 24) {
        if ((syms[at + 4] & 0xf) !== STT_FUNC || syms.readUInt16LE(at + 6) === 0) continue;
        const name = cstring(strs, syms.readUInt32LE(at));
        if (name && !out.has(name)) out.set(name, syms.readBigUInt64LE(at + 8));
      }
    }
    return out;
  } catch {
    return out;
  } finally {
    closeSync(elf.fd);
  }
}

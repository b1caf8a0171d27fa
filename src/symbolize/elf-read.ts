/**
 * Reading parts of a 64-bit little-endian ELF file on disk (x86_64 / aarch64) without loading it
 * whole: its header, its section headers and single sections. The small ELF readers of this
 * directory (build id, PLT stubs, function symbols) share these.
 */
import { openSync, readSync } from 'node:fs';

/** Section types and a symbol type the readers here share (ELF's values). */
export const SHT_SYMTAB = 2;
export const SHT_DYNSYM = 11;
export const STT_FUNC = 2;

/** An ELF image: an open file, or its bytes in memory (the kernel's vDSO, copied from this process). */
export type ElfData = number | Buffer;

export function readAt(src: ElfData, offset: number, length: number): Buffer {
  if (typeof src !== 'number') return src.subarray(Math.min(offset, src.length), Math.min(offset + length, src.length));
  const b = Buffer.alloc(length);
  const n = readSync(src, b, 0, length, offset);
  return b.subarray(0, n);
}

/** Whether a 64-byte header is that of a 64-bit little-endian ELF file. */
export function isElf64(header: Buffer): boolean {
  return header.length >= 64 && header.readUInt32BE(0) === 0x7f454c46 && header[4] === 2 && header[5] === 1;
}

/** The open file and its 64-byte header, or null when it cannot be opened or is no ELF64 LE file. */
export function openElf64(path: string): { fd: number; header: Buffer } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  const header = readAt(fd, 0, 64);
  if (!isElf64(header)) return { fd, header: Buffer.alloc(0) };
  return { fd, header };
}

export interface ElfSection {
  nameOffset: number;
  type: number;
  flags: bigint;
  addr: bigint;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

/** Every section header of the file. */
export function sectionHeaders(fd: ElfData, header: Buffer): ElfSection[] {
  const shoff = Number(header.readBigUInt64LE(40));
  const size = header.readUInt16LE(58);
  const count = header.readUInt16LE(60);
  const sh = readAt(fd, shoff, size * count);
  const out: ElfSection[] = [];
  for (let i = 0; (i + 1) * size <= sh.length && i < count; i++) {
    const at = i * size;
    out.push({
      nameOffset: sh.readUInt32LE(at),
      type: sh.readUInt32LE(at + 4),
      flags: sh.readBigUInt64LE(at + 8),
      addr: sh.readBigUInt64LE(at + 16),
      offset: Number(sh.readBigUInt64LE(at + 24)),
      size: Number(sh.readBigUInt64LE(at + 32)),
      link: sh.readUInt32LE(at + 40),
      entsize: Number(sh.readBigUInt64LE(at + 56)),
    });
  }
  return out;
}

/** The NUL-terminated string at `at` of a string table. */
export function cstring(table: Buffer, at: number): string {
  return table.toString('latin1', at, Math.max(at, table.indexOf(0, at)));
}

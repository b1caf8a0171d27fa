/**
 * The GNU build id of an ELF file on disk (64-bit little-endian, x86_64 / aarch64), read from its
 * PT_NOTE segments: the runtime records each loaded object's build id, and comparing the two tells
 * whether the file is still the one that ran (a rebuilt binary would give wrong lines).
 */
import { closeSync, openSync } from 'node:fs';
import { isElf64, readAt, type ElfData } from './elf-read.js';

const PT_NOTE = 4;
const NT_GNU_BUILD_ID = 3;

/** Hex build id; '' when the file has none; null when it is not a readable 64-bit ELF file. */
export function readBuildId(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    return buildIdIn(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The same of an ELF image open or in memory (elf-read.ts); null when it is no 64-bit ELF image. */
export function buildIdIn(src: ElfData): string | null {
  const eh = readAt(src, 0, 64);
  if (!isElf64(eh)) return null;
  const phoff = Number(eh.readBigUInt64LE(32));
  const phentsize = eh.readUInt16LE(54);
  const phnum = eh.readUInt16LE(56);
  const ph = readAt(src, phoff, phentsize * phnum);
  for (let i = 0; i + 1 <= phnum && (i + 1) * phentsize <= ph.length; i++) {
    const at = i * phentsize;
    if (ph.readUInt32LE(at) !== PT_NOTE) continue;
    const off = Number(ph.readBigUInt64LE(at + 8));
    const size = Number(ph.readBigUInt64LE(at + 32));
    const notes = readAt(src, off, Math.min(size, 1 << 16));
    let p = 0;
    while (p + 12 <= notes.length) {
      const namesz = notes.readUInt32LE(p);
      const descsz = notes.readUInt32LE(p + 4);
      const type = notes.readUInt32LE(p + 8);
      const name = p + 12;
      const desc = name + ((namesz + 3) & ~3);
      if (desc + descsz > notes.length) break;
      if (type === NT_GNU_BUILD_ID && namesz === 4 && notes.toString('latin1', name, name + 3) === 'GNU') {
        return notes.subarray(desc, desc + descsz).toString('hex');
      }
      p = desc + ((descsz + 3) & ~3);
    }
  }
  return '';
}

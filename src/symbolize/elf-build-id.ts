/**
 * The GNU build id of an ELF file on disk (64-bit little-endian, x86_64 / aarch64), read from its
 * PT_NOTE segments: the runtime records each loaded object's build id, and comparing the two tells
 * whether the file is still the one that ran (a rebuilt binary would give wrong lines).
 */
import { closeSync, openSync } from 'node:fs';
import { readAt } from './elf-read.js';

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
    const eh = readAt(fd, 0, 64);
    if (eh.length < 64 || eh.readUInt32BE(0) !== 0x7f454c46 || eh[4] !== 2 || eh[5] !== 1) return null;
    const phoff = Number(eh.readBigUInt64LE(32));
    const phentsize = eh.readUInt16LE(54);
    const phnum = eh.readUInt16LE(56);
    const ph = readAt(fd, phoff, phentsize * phnum);
    for (let i = 0; i + 1 <= phnum && (i + 1) * phentsize <= ph.length; i++) {
      const at = i * phentsize;
      if (ph.readUInt32LE(at) !== PT_NOTE) continue;
      const off = Number(ph.readBigUInt64LE(at + 8));
      const size = Number(ph.readBigUInt64LE(at + 32));
      const notes = readAt(fd, off, Math.min(size, 1 << 16));
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
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

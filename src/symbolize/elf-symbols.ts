/**
 * Function symbols of an ELF file on disk (64-bit little-endian): name → address in the module, from
 * .symtab (local functions included) and .dynsym. Used to find where a function begins when only
 * its name is known (an OpenMP region's outlined body).
 */
import { closeSync, openSync, readSync } from 'node:fs';

const SHT_SYMTAB = 2;
const SHT_DYNSYM = 11;
const STT_FUNC = 2;

function readAt(fd: number, offset: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  const n = readSync(fd, b, 0, length, offset);
  return b.subarray(0, n);
}

/** Name → module address of every defined function; empty when the file cannot be read. */
export function readFunctionSymbols(path: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return out;
  }
  try {
    const eh = readAt(fd, 0, 64);
    if (eh.length < 64 || eh.readUInt32BE(0) !== 0x7f454c46 || eh[4] !== 2 || eh[5] !== 1) return out;
    const shoff = Number(eh.readBigUInt64LE(40));
    const shentsize = eh.readUInt16LE(58);
    const shnum = eh.readUInt16LE(60);
    const sh = readAt(fd, shoff, shentsize * shnum);
    const section = (i: number) => ({
      type: sh.readUInt32LE(i * shentsize + 4),
      offset: Number(sh.readBigUInt64LE(i * shentsize + 24)),
      size: Number(sh.readBigUInt64LE(i * shentsize + 32)),
      link: sh.readUInt32LE(i * shentsize + 40),
    });
    for (let i = 0; i < shnum && (i + 1) * shentsize <= sh.length; i++) {
      const s = section(i);
      if (s.type !== SHT_SYMTAB && s.type !== SHT_DYNSYM) continue;
      const syms = readAt(fd, s.offset, s.size);
      const strSec = section(s.link);
      const strs = readAt(fd, strSec.offset, strSec.size);
      for (let at = 0; at + 24 <= syms.length; at += 24) {
        if ((syms[at + 4] & 0xf) !== STT_FUNC || syms.readUInt16LE(at + 6) === 0) continue;
        const nameOff = syms.readUInt32LE(at);
        const name = strs.toString('latin1', nameOff, Math.max(nameOff, strs.indexOf(0, nameOff)));
        if (name && !out.has(name)) out.set(name, syms.readBigUInt64LE(at + 8));
      }
    }
    return out;
  } catch {
    return out;
  } finally {
    closeSync(fd);
  }
}

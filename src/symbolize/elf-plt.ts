/**
 * Names of PLT stubs (`sin@plt`) in an ELF file on disk (64-bit little-endian x86_64). The stubs
 * have no symbols, so symbolizers give the nearest symbol before them (`_init`), which is wrong. Like
 * objdump's synthetic `@plt` symbols, each stub's indirect jump (`jmp *slot(%rip)`, also after an
 * `endbr64` or with a `bnd` prefix) names the GOT slot it goes through, and the dynamic relocation of
 * that slot names the function: .rela.plt for .plt / .plt.sec, .rela.dyn for .plt.got.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const EM_X86_64 = 62;
const SHT_SYMTAB_DYN = 11;

export interface PltStub {
  /** Module address range [start, end). */
  start: bigint;
  end: bigint;
  name: string;
}

interface Section {
  name: string;
  type: number;
  addr: bigint;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  const n = readSync(fd, b, 0, length, offset);
  return b.subarray(0, n);
}

/** The GOT slot an x86_64 PLT entry jumps through, or null. */
function slotOf(entry: Buffer, addr: bigint): bigint | null {
  for (let i = 0; i + 6 <= entry.length; i++) {
    // ff 25 disp32: jmp *disp(%rip); the next instruction's address is the base.
    if (entry[i] === 0xff && entry[i + 1] === 0x25) return addr + BigInt(i + 6) + BigInt(entry.readInt32LE(i + 2));
  }
  return null;
}

/** Every PLT stub of the file; [] when it has none, is not x86_64 ELF, or cannot be read. */
export function readPltStubs(path: string): PltStub[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    const eh = readAt(fd, 0, 64);
    if (eh.length < 64 || eh.readUInt32BE(0) !== 0x7f454c46 || eh[4] !== 2 || eh[5] !== 1) return [];
    if (eh.readUInt16LE(18) !== EM_X86_64) return [];
    const shoff = Number(eh.readBigUInt64LE(40));
    const shentsize = eh.readUInt16LE(58);
    const shnum = eh.readUInt16LE(60);
    const shstrndx = eh.readUInt16LE(62);
    const sh = readAt(fd, shoff, shentsize * shnum);
    if (sh.length < shentsize * shnum) return [];
    const raw = [...Array(shnum).keys()].map((i) => {
      const at = i * shentsize;
      return {
        nameOff: sh.readUInt32LE(at),
        type: sh.readUInt32LE(at + 4),
        addr: sh.readBigUInt64LE(at + 16),
        offset: Number(sh.readBigUInt64LE(at + 24)),
        size: Number(sh.readBigUInt64LE(at + 32)),
        link: sh.readUInt32LE(at + 40),
        entsize: Number(sh.readBigUInt64LE(at + 56)),
      };
    });
    const shstr = readAt(fd, raw[shstrndx].offset, raw[shstrndx].size);
    const cstr = (b: Buffer, at: number) => b.toString('latin1', at, Math.max(at, b.indexOf(0, at)));
    const sections: Section[] = raw.map((r) => ({ ...r, name: cstr(shstr, r.nameOff) }));
    const byName = (n: string) => sections.find((s) => s.name === n);

    // GOT slot → function, from the dynamic relocations and the dynamic symbols they name.
    const dynsym = sections.find((s) => s.type === SHT_SYMTAB_DYN);
    if (!dynsym) return [];
    const syms = readAt(fd, dynsym.offset, dynsym.size);
    const strs = readAt(fd, sections[dynsym.link].offset, sections[dynsym.link].size);
    const slots = new Map<bigint, string>();
    for (const rel of ['.rela.plt', '.rela.dyn']) {
      const r = byName(rel);
      if (!r) continue;
      const b = readAt(fd, r.offset, r.size);
      for (let at = 0; at + 24 <= b.length; at += 24) {
        const sym = Number(b.readBigUInt64LE(at + 8) >> 32n);
        if (sym === 0 || (sym + 1) * 24 > syms.length) continue;
        const name = cstr(strs, syms.readUInt32LE(sym * 24));
        if (name) slots.set(b.readBigUInt64LE(at), name);
      }
    }

    const stubs: PltStub[] = [];
    for (const name of ['.plt', '.plt.sec', '.plt.got']) {
      const s = byName(name);
      if (!s || s.size === 0) continue;
      const size = s.entsize > 0 ? s.entsize : name === '.plt.got' ? 8 : 16;
      const code = readAt(fd, s.offset, s.size);
      for (let at = 0; at + size <= code.length; at += size) {
        const addr = s.addr + BigInt(at);
        const slot = slotOf(code.subarray(at, at + size), addr);
        const fn = slot !== null ? slots.get(slot) : undefined;
        if (fn) stubs.push({ start: addr, end: addr + BigInt(size), name: `${fn}@plt` });
      }
    }
    return stubs;
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

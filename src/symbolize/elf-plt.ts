/**
 * Names of PLT stubs (`sin@plt`) in an ELF file on disk (64-bit little-endian x86_64). The stubs
 * have no symbols, so symbolizers give the nearest symbol before them (`_init`), which is wrong. Like
 * objdump's synthetic `@plt` symbols, each stub's indirect jump (`jmp *slot(%rip)`, also after an
 * `endbr64` or with a `bnd` prefix) names the GOT slot it goes through, and the dynamic relocation of
 * that slot names the function: .rela.plt for .plt / .plt.sec, .rela.dyn for .plt.got.
 */
import { closeSync } from 'node:fs';
import { cstring, openElf64, readAt, sectionHeaders, SHT_DYNSYM } from './elf-read.js';

const EM_X86_64 = 62;

export interface PltStub {
  /** Module address range [start, end). */
  start: bigint;
  end: bigint;
  name: string;
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
  const elf = openElf64(path);
  if (!elf) return [];
  const fd = elf.fd;
  try {
    if (elf.header.length === 0 || elf.header.readUInt16LE(18) !== EM_X86_64) return [];
    const raw = sectionHeaders(fd, elf.header);
    const shstrndx = elf.header.readUInt16LE(62);
    const shstr = readAt(fd, raw[shstrndx].offset, raw[shstrndx].size);
    const sections = raw.map((r) => ({ ...r, name: cstring(shstr, r.nameOffset) }));
    const byName = (n: string) => sections.find((s) => s.name === n);

    // GOT slot → function, from the dynamic relocations and the dynamic symbols they name.
    const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
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
        const name = cstring(strs, syms.readUInt32LE(sym * 24));
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

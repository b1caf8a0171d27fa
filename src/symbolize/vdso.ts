/**
 * Functions of the kernel's vDSO (`[vdso]` in a process's maps): `clock_gettime`, `gettimeofday`,
 * `time`, `getcpu`, which programs that read the clock in a loop spend their time in. The vDSO is no
 * file: its image is the kernel's, mapped into every process. The resolve reads the image mapped
 * into its own process (/proc/self/maps, /proc/self/mem) and uses it only when its build id is the
 * one the runtime recorded for the measured process (the same kernel); otherwise, or when the image
 * cannot be read, those samples stay UNRESOLVED [vdso] as before.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import type { SourceFrame } from './frames.js';
import { buildIdIn } from './elf-build-id.js';
import { isElf64 } from './elf-read.js';
import { functionSymbolsIn, type FunctionSymbol } from './elf-symbols.js';

/** The file named for a vDSO function: the pseudo-module, as perf shows it. */
export const VDSO_FILE = '[vdso]';

/** This process's vDSO image, or null when it has none or it cannot be read. */
function ownVdsoImage(): Buffer | null {
  try {
    const line = readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .find((l) => l.endsWith(' [vdso]'));
    const m = line ? /^([0-9a-f]+)-([0-9a-f]+) /.exec(line) : null;
    if (!m) return null;
    const start = parseInt(m[1], 16);
    const length = parseInt(m[2], 16) - start;
    if (!Number.isSafeInteger(start) || length <= 0 || length > 1 << 20) return null;
    const fd = openSync('/proc/self/mem', 'r');
    try {
      const image = Buffer.alloc(length);
      return readSync(fd, image, 0, length, start) === length ? image : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

export class Vdso {
  /** Functions by start address (module addresses), or null when the image does not match. */
  private readonly functions: FunctionSymbol[] | null;

  /** `buildId`: the measured process's vDSO's, from the raw file's maps; without one nothing is
   * read. `image`: the vDSO to use (default: this process's own). */
  constructor(buildId: string, image?: Buffer | null) {
    this.functions = null;
    if (!buildId) return;
    image ??= ownVdsoImage();
    if (!image) return;
    try {
      const header = image.subarray(0, 64);
      if (!isElf64(header) || buildIdIn(image) !== buildId) return;
      // One name per address: the kernel exports each function twice (`__vdso_clock_gettime` and
      // its alias `clock_gettime`); the `__vdso_` one, as perf names it.
      const byStart = new Map<bigint, FunctionSymbol>();
      for (const f of functionSymbolsIn(image, header)) {
        const had = byStart.get(f.start);
        if (!had || (f.name.startsWith('__vdso_') && !had.name.startsWith('__vdso_'))) byStart.set(f.start, f);
      }
      this.functions = [...byStart.values()].sort((a, b) => (a.start < b.start ? -1 : 1));
    } catch {
      this.functions = null;
    }
  }

  /** Whether the image matched: its functions can be named. */
  get usable(): boolean {
    return this.functions !== null;
  }

  /** The function holding a module address, or null. */
  lookup(moduleAddress: bigint): SourceFrame[] | null {
    const f = this.functions?.find((s) => moduleAddress >= s.start && moduleAddress < s.start + (s.size > 0n ? s.size : 1n));
    return f ? [{ function: f.name, file: VDSO_FILE, line: 0 }] : null;
  }
}

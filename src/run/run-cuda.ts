/**
 * `hyprof run` and CUDA programs: the CUDA layer (libhyprof_cuda.so) is loaded by the CUDA driver
 * (CUDA_INJECTION64_PATH, childEnv), so on a machine without the driver it is never loaded and the
 * program runs as without it. That is said once, before the run, for a program built by nvcc (its
 * ELF file has a `.nv_fatbin` section, whether it links the CUDA runtime statically, as nvcc does by
 * default, or dynamically): docs/gpu.md.
 */
import { closeSync, existsSync } from 'node:fs';
import { cstring, openElf64, readAt, sectionHeaders } from '../symbolize/elf-read.js';

/** Where the CUDA driver's library is on the Linux distributions and NVIDIA's packages. */
const DRIVER_PLACES = ['/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib/aarch64-linux-gnu', '/usr/lib', '/usr/local/nvidia/lib64', '/usr/lib/wsl/lib'];

/** True when the ELF file `path` holds CUDA device code (a `.nv_fatbin` section). */
export function isCudaProgram(path: string): boolean {
  const elf = openElf64(path);
  if (!elf) return false;
  try {
    if (elf.header.length < 64) return false;
    const sections = sectionHeaders(elf.fd, elf.header);
    const strtab = sections[elf.header.readUInt16LE(62)];
    if (!strtab) return false;
    const names = readAt(elf.fd, strtab.offset, strtab.size);
    return sections.some((s) => cstring(names, s.nameOffset) === '.nv_fatbin');
  } finally {
    closeSync(elf.fd);
  }
}

/** The line to say before running `file` when it is a CUDA program and no CUDA driver is installed. */
export function cudaDriverNote(file: string, env: NodeJS.ProcessEnv): string | null {
  if (!isCudaProgram(file)) return null;
  const dirs = [...(env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean), ...DRIVER_PLACES];
  if (dirs.some((d) => existsSync(`${d}/libcuda.so.1`))) return null;
  return 'hyprof: no CUDA driver (libcuda.so.1) on this machine: the CUDA program runs without its GPU activity measured';
}

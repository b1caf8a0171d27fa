/**
 * Making output directories. Node's `mkdirSync(p, { recursive: true })` loops forever at full CPU
 * when a part of `p` lies under /proc (procfs answers its probes in a way the recursion never gets
 * past, Node 20), and a profile has no business under /proc, /sys or /dev anyway: those trees are
 * the kernel's view of processes and devices. So directories are made one level at a time here, and
 * an output under those trees is refused by name before anything is tried.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

/** Trees of the kernel where no output belongs, checked on real paths. */
const SYSTEM_TREES = ['/proc', '/sys', '/dev'];
/** /dev/shm is a memory file system that programs (and users of batch nodes) write to: not refused. */
const WRITABLE_UNDER = ['/dev/shm'];

/**
 * The kernel tree (/proc, /sys or /dev) that `path` would lie in once links are followed, or
 * undefined. The nearest existing ancestor's real path is what counts: `out -> /proc/self` is /proc.
 */
export function systemTreeOf(path: string): string | undefined {
  let dir = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      dir = join(realpathSync(dir), ...rest.reverse());
      break;
    } catch {
      if (dirname(dir) === dir) break;
      rest.push(basename(dir));
      dir = dirname(dir);
    }
  }
  const under = (t: string): boolean => dir === t || dir.startsWith(t + sep);
  if (WRITABLE_UNDER.some(under)) return undefined;
  return SYSTEM_TREES.find(under);
}

/**
 * Make `path` and its missing parents, one level at a time (see above). Throws what mkdirSync
 * throws for the level that failed (EEXIST of a non-directory, EACCES, ENOSPC ...).
 */
export function makeDirs(path: string): void {
  const full = resolve(path);
  const missing: string[] = [];
  for (let dir = full; ; dir = dirname(dir)) {
    try {
      mkdirSync(dir);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') break;
      if (code !== 'ENOENT' || dirname(dir) === dir) throw e;
      missing.push(dir);
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

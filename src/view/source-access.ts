/**
 * Which source files the viewer may show. A profile is data from elsewhere (a colleague's run, a
 * downloaded example, a file another local user planted): its metadata (CWD, Executable) and the
 * file names of its samples say nothing about what may be read. So a file is shown only when
 *   - a SAMPLE / UNWIND node or stacks-file frame of the profile names it (the request only picks
 *     one of those), and
 *   - it lies, after symbolic links are followed, under a directory the user named: `--source-dir`
 *     on the command line, or a directory confirmed in the page (kept in memory, for this server
 *     only), and
 *   - its real path is not the file system root and not under /proc, /sys or /dev, whatever was
 *     named or confirmed: those hold the server's own process state and devices, never source.
 * The run's directories from the metadata are only offered to the user to confirm.
 */
import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import type { TauProfile } from '../profile/tau-model.js';

/** Trees never shown, checked on real paths (after links). */
const NEVER = ['/proc', '/sys', '/dev'];

/** Why a real path may never be shown, or undefined when it may be. */
export function neverShown(real: string): string | undefined {
  if (real === sep) return 'the file system root';
  const top = NEVER.find((d) => real === d || real.startsWith(d + sep));
  return top ? `${top} (system state, not source)` : undefined;
}

/** The directories of the profile's runs as its metadata says: every thread's CWD and executable's directory. */
export function runDirectories(profile: TauProfile): string[] {
  const dirs = new Set<string>();
  for (const threads of profile.threads)
    for (const t of threads)
      for (const [key, value] of t.metadata) {
        if (key === 'CWD') dirs.add(value);
        else if (key === 'Executable') dirs.add(dirname(value));
      }
  return [...dirs].filter((d) => isAbsolute(d));
}

function inside(file: string, dir: string): boolean {
  return dir !== sep && file.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** A directory that cannot be allowed, with the reason (the caller puts it in its own words). */
export class RefusedDirectory extends Error {}

/**
 * The allowed directories of one viewer: shared by run A and run B of a comparison, so a directory
 * confirmed once shows the sources of both.
 */
export class SourceAccess {
  /** The allowed directories as given (lexical) and as they really are (links followed). */
  private readonly lexical: string[] = [];
  private readonly real: string[] = [];

  /** `userDirs`: the directories named with --source-dir (each checked as `allow` checks). */
  constructor(userDirs: string[] = []) {
    for (const d of userDirs) this.allow(d);
  }

  get directories(): string[] {
    return [...this.lexical];
  }

  /**
   * Allow the files under `dir` (an absolute path, or relative to the server's working directory
   * for --source-dir). Throws RefusedDirectory when it is not an existing directory or when its
   * real path is never shown. Returns the directory as allowed.
   */
  allow(dir: string): string {
    const lexical = resolve(dir);
    let real: string;
    try {
      real = realpathSync(lexical);
    } catch (e) {
      throw new RefusedDirectory(`${dir}: cannot be found (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const never = neverShown(real);
    if (never) throw new RefusedDirectory(`${dir}: ${real === lexical ? '' : `is ${real}, `}${never}; files there are never shown`);
    if (!statSync(real).isDirectory()) throw new RefusedDirectory(`${dir}: not a directory`);
    if (!this.lexical.includes(lexical)) this.lexical.push(lexical);
    if (!this.real.includes(real)) this.real.push(real);
    return lexical;
  }

  /** Whether `file` (an absolute path as the profile names it) lies under an allowed directory. */
  allowsPath(file: string): boolean {
    if (!isAbsolute(file)) return false;
    const f = resolve(file);
    return this.lexical.some((d) => inside(f, d)) || this.real.some((d) => inside(f, d));
  }

  /** Whether the file really is (links followed) under an allowed directory, and not in a tree never shown. */
  allowsRealPath(real: string): boolean {
    return neverShown(real) === undefined && this.real.some((d) => inside(real, d));
  }

  /**
   * Directories the page may offer to confirm so that `file` shows: the run directories (from the
   * metadata) that hold it, then the file's own directory; none whose real path is never shown.
   */
  offers(file: string, profile: TauProfile): string[] {
    if (!isAbsolute(file)) return [];
    const f = resolve(file);
    const dirs = [...runDirectories(profile).filter((d) => inside(f, resolve(d))).map((d) => resolve(d)), dirname(f)];
    const out: string[] = [];
    for (const d of dirs) {
      if (out.includes(d)) continue;
      let real: string;
      try {
        real = realpathSync(d);
      } catch {
        continue;
      }
      if (neverShown(real) === undefined) out.push(d);
    }
    return out;
  }
}

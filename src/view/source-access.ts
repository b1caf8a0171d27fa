/**
 * Which source files the viewer may show. A profile is data from elsewhere (a colleague's run, a
 * downloaded example): a sample naming /etc/shadow or ~/.ssh/id_rsa must not make the local server
 * hand that file to anyone who can reach it. So a file is shown only when
 *   - a SAMPLE / UNWIND node of the profile names it (the request only picks one of those), and
 *   - it lies, after symbolic links are followed, under a directory of the profile's own run (its CWD
 *     and the executable's directory, from the metadata) or one the user named (`--source-dir`).
 * The file system root is never such a directory.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import type { TauProfile } from '../profile/tau-model.js';

/** The directories of the profile's runs: every thread's CWD and executable's directory. */
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

export class SourceAccess {
  /** The allowed directories as given (lexical) and as they really are (links followed). */
  private readonly lexical: string[];
  private real: string[] | undefined;

  constructor(
    profile: TauProfile,
    /** Directories the user named (already checked to exist). */
    readonly userDirs: string[] = [],
  ) {
    this.lexical = [...runDirectories(profile), ...userDirs.map((d) => resolve(d))].filter((d) => d !== sep);
  }

  get directories(): string[] {
    return this.lexical;
  }

  private realRoots(): string[] {
    if (!this.real) {
      this.real = [];
      for (const d of this.lexical) {
        try {
          const r = realpathSync(d);
          if (r !== sep) this.real.push(r);
        } catch {
          /* not on this machine */
        }
      }
    }
    return this.real;
  }

  /** Whether `file` (an absolute path as the profile names it) lies under an allowed directory. */
  allowsPath(file: string): boolean {
    if (!isAbsolute(file)) return false;
    const f = resolve(file);
    return this.lexical.some((d) => inside(f, d));
  }

  /** Whether the file really is (links followed) under an allowed directory. */
  allowsRealPath(real: string): boolean {
    return this.realRoots().some((d) => inside(real, d));
  }
}

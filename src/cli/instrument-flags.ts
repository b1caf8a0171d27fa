/**
 * The compiler flags of compiler instrumentation (`hyprof config --instrument`): -finstrument-functions
 * and -g (the resolver names functions and their lines from the debugging information), and, for
 * gcc and gfortran with a select file, the exclusions gcc can express at compile time, so those
 * functions cost nothing at run time. gcc matches its lists on substrings (of the function's name, of
 * the source file's path): only entries that mean "contains" in TAU's syntax (`#text#`, `*text*`)
 * become function exclusions; file exclusions are the entries with their outer `*` removed. The rest
 * of the select file is applied by the runtime (HYPROF_SELECT_FILE / TAU_SELECT_FILE).
 */
import { basename } from 'node:path';
import type { SelectLists } from './select-file.js';

export type CompilerFamily = 'gcc' | 'clang';

/** gcc, g++, gfortran, cc (Debian: gcc) are gcc; anything named clang* is clang. */
export function compilerFamily(compiler: string): CompilerFamily {
  return /clang/.test(basename(compiler)) ? 'clang' : 'gcc';
}

export interface InstrumentFlags {
  flags: string[];
  /** What could not be expressed at compile time, for stderr. */
  notes: string[];
}

/** The "contains" text of a `#text#` / `*text*` entry, else null. */
function containsText(entry: string): string | null {
  const m = /^[#*](.+)[#*]$/.exec(entry);
  return m && !/[#*,]/.test(m[1]) ? m[1] : null;
}

export function instrumentFlags(family: CompilerFamily, lists: SelectLists | null): InstrumentFlags {
  const flags = ['-g', '-finstrument-functions'];
  const notes: string[] = [];
  if (!lists) return { flags, notes };
  if (lists.unapplied.length)
    notes.push(`BEGIN_INSTRUMENT_SECTION is TAU's source instrumentation, which hyprof does not apply: ${lists.unapplied.join('; ')}; the routine and file lists are applied`);
  const runtime = 'set HYPROF_SELECT_FILE (or TAU_SELECT_FILE) to the file when running: the runtime applies its routine lists (one table look-up per excluded call)';
  if (family === 'clang') {
    if (lists.exclude.length || lists.include.length) notes.push(`clang has no -finstrument-functions-exclude-* options: ${runtime}`);
    if (lists.fileExclude.length || lists.fileInclude.length)
      notes.push('clang cannot exclude files when compiling: use hyprof cc / c++ (which instrument only the selected files) or compile the excluded files without -finstrument-functions');
    return { flags, notes };
  }
  const fns = lists.exclude.map(containsText).filter((x): x is string => x !== null);
  if (fns.length) flags.push(`-finstrument-functions-exclude-function-list=${fns.join(',')}`);
  if (fns.length < lists.exclude.length || lists.include.length) notes.push(`routine lists beyond "#text#" entries: ${runtime}`);
  const files: string[] = [];
  for (const f of lists.fileExclude) {
    const text = f.replace(/^\*+/, '').replace(/\*+$/, '');
    if (text && !/[*,]/.test(text)) files.push(text);
    else notes.push(`file entry '${f}' has a wildcard inside: gcc cannot express it (hyprof cc / c++ / f90 apply it per source file)`);
  }
  if (files.length) flags.push(`-finstrument-functions-exclude-file-list=${files.join(',')}`);
  if (lists.fileInclude.length) notes.push('BEGIN_FILE_INCLUDE_LIST cannot be expressed as a gcc flag: hyprof cc / c++ / f90 instrument only the files it selects');
  return { flags, notes };
}

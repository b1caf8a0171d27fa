/**
 * TAU's selective instrumentation file, read at compile time (`hyprof config --instrument --select`,
 * `hyprof cc`): the same rules as the runtime's reader (native/core/select.c). Routine lists use `#`
 * (and `*`) as wildcards, file lists `*`; a line starting with `#` is a comment, an entry in double
 * quotes may start with `#`. BEGIN_INSTRUMENT_SECTION (TAU's source instrumentation: loops, I/O, ...)
 * is not applied; its commands are kept in `unapplied` so that the user is told.
 */
import { readFileSync } from 'node:fs';
import { systemErrorText, UserError } from '../base/errors.js';

export interface SelectLists {
  exclude: string[];
  include: string[];
  fileExclude: string[];
  fileInclude: string[];
  /** BEGIN_INSTRUMENT_SECTION sections, as "loops, io (lines 4-7)": not applied by hyprof. */
  unapplied: string[];
}

const LISTS: Record<string, keyof SelectLists> = {
  EXCLUDE_LIST: 'exclude',
  INCLUDE_LIST: 'include',
  FILE_EXCLUDE_LIST: 'fileExclude',
  FILE_INCLUDE_LIST: 'fileInclude',
};

export function parseSelectFile(path: string, text: string): SelectLists {
  const out: SelectLists = { exclude: [], include: [], fileExclude: [], fileInclude: [], unapplied: [] };
  let commands: string[] = [];
  let open: string | null = null;
  let openLine = 0;
  const lines = text.split('\n');
  const fail = (line: number, what: string): never => {
    throw new UserError(`${path}: line ${line}: ${what}`);
  };
  lines.forEach((raw, i) => {
    const n = i + 1;
    const line = raw.trim();
    if (!line) return;
    if (open === 'INSTRUMENT_SECTION') {
      if (line === 'END_INSTRUMENT_SECTION') {
        out.unapplied.push(`${commands.join(', ')} (lines ${openLine}-${n})`.trimStart());
        open = null;
      } else if (!line.startsWith('#')) {
        commands.push(line.split(/\s/)[0].slice(0, 24));
      }
      return;
    }
    const m = /^(BEGIN|END)_(\S+)$/.exec(line);
    if (m && (m[2] in LISTS || m[2] === 'INSTRUMENT_SECTION')) {
      if (m[1] === 'BEGIN') {
        if (open) fail(n, `a list begins inside BEGIN_${open} (line ${openLine}), which has no END yet`);
        open = m[2];
        openLine = n;
        commands = [];
      } else {
        if (open !== m[2]) fail(n, `END_${m[2]} without BEGIN_${m[2]}`);
        open = null;
      }
      return;
    }
    if (m && line.length > 6) fail(n, `unknown section '${line}'`);
    if (line.startsWith('#')) return;
    if (!open) fail(n, `'${line.slice(0, 80)}' is outside every BEGIN_..._LIST / END_..._LIST`);
    const entry = line.length >= 2 && line.startsWith('"') && line.endsWith('"') ? line.slice(1, -1) : line;
    out[LISTS[open!]].push(entry);
  });
  if (open) fail(openLine, `BEGIN_${open} has no END_${open}`);
  return out;
}

export function readSelectFile(path: string): SelectLists {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`${path}: cannot read the selective instrumentation file: ${systemErrorText(e) ?? (e as Error).message}`);
  }
  if (text.includes('\0')) throw new UserError(`${path}: the selective instrumentation file is not text`);
  return parseSelectFile(path, text);
}

/** TAU's wildcard match: `#` and `*` match any sequence. */
export function selectMatch(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.split(/[#*]/).map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return re.test(name);
}

/** Whether a source file is instrumented by the file lists (a pattern matches the path or its base name). */
export function fileSelected(lists: SelectLists, file: string): boolean {
  const base = file.split('/').pop() ?? file;
  const hit = (ps: string[]) => ps.some((p) => selectMatch(p, file) || selectMatch(p, base));
  if (lists.fileInclude.length && !hit(lists.fileInclude)) return false;
  return !hit(lists.fileExclude);
}

/**
 * Symbols kept on disk between runs, keyed by build id (an object with the same build id has the same
 * code and debug information): `$XDG_CACHE_HOME/hyprof/symbols/<build id>.<tool>.lines`, else under
 * `~/.cache`. Best effort: an unreadable or unwritable cache only costs time. A new file is written to
 * a temporary name and renamed, and later resolves append whole lines to it, so concurrent resolves
 * never read half an entry.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { makeDirs } from '../base/make-dirs.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SourceFrame, SymbolizerTool } from './frames.js';

const YES = ['1', 'on', 'true', 'yes', 'enable', 'enabled'];
const NO = ['0', 'off', 'false', 'no', 'disable', 'disabled'];

/** The cache directory, or null when HYPROF_SYMBOL_CACHE turns it off (a boolean, read as the runtime
 * reads its booleans; anything else is warned about and the default used). */
export function defaultCacheDir(warn: (text: string) => void = () => {}): string | null {
  const setting = process.env.HYPROF_SYMBOL_CACHE;
  if (setting) {
    if (NO.includes(setting.toLowerCase())) return null;
    if (!YES.includes(setting.toLowerCase())) warn(`HYPROF_SYMBOL_CACHE=${setting} is not a boolean (1/0, on/off, true/false, yes/no); using 1`);
  }
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'hyprof', 'symbols');
}

function fileOf(dir: string, buildId: string, tool: SymbolizerTool): string {
  return join(dir, `${buildId.replace(/[^0-9a-fA-F]/g, '')}.${tool}.lines`);
}

/** One stored frame as symbolization gives it; anything else marks the file as corrupt. */
function isFrame(f: unknown): f is SourceFrame {
  const x = f as SourceFrame;
  return (
    typeof x === 'object' && x !== null && typeof x.function === 'string' && typeof x.file === 'string' &&
    Number.isSafeInteger(x.line) && x.line >= 0
  );
}

function isFrames(frames: unknown): frames is SourceFrame[] | null {
  return frames === null || (Array.isArray(frames) && frames.length > 0 && frames.every(isFrame));
}

const ADDRESS = /^[0-9a-f]{1,16}$/;

/** What a cache file gave: the symbols asked for that it holds, and whether it can be added to. */
export interface LoadedSymbols {
  symbols: Map<bigint, SourceFrame[] | null>;
  /** false: no file, or one that cannot be trusted (saveSymbols then replaces it). */
  trusted: boolean;
}

/**
 * The stored symbols of the addresses `wanted` of one module. The file is one line per address,
 * `<hex address>\t<frames as JSON, or null>`, appended to by each resolve that symbolized new
 * addresses: a module's file grows with every address ever sampled in it (node's holds tens of
 * thousands), and a resolve wants a few thousand, so only their lines are parsed (parsing and
 * checking the whole file was a tenth of the resolve of a Node run). A line not ended by a newline
 * (a resolve still appending) is not read. Nothing (the module is symbolized afresh and the file
 * replaced) when there is no file or it cannot be trusted: not a regular file of this user's,
 * writable by every user, a line of another shape, or a wanted line that is not valid JSON of the
 * stored shape. A cache must never change what a profile says.
 */
export function loadSymbols(dir: string, buildId: string, tool: SymbolizerTool, wanted: Set<bigint>): LoadedSymbols {
  const none = (): LoadedSymbols => ({ symbols: new Map(), trusted: false });
  let fd: number;
  try {
    fd = openSync(fileOf(dir, buildId, tool), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return none(); /* no cache yet, or unreadable: symbolize afresh */
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o002) !== 0) return none();
    const text = readFileSync(fd, 'utf8');
    const out = new Map<bigint, SourceFrame[] | null>();
    const end = text.lastIndexOf('\n');
    for (let at = 0; at < end; ) {
      const nl = text.indexOf('\n', at);
      const tab = text.indexOf('\t', at);
      if (tab < 0 || tab > nl) return none();
      const hex = text.slice(at, tab);
      if (!ADDRESS.test(hex)) return none();
      const address = BigInt(`0x${hex}`);
      if (wanted.has(address)) {
        const frames = JSON.parse(text.slice(tab + 1, nl)) as unknown;
        if (!isFrames(frames)) return none();
        out.set(address, frames);
      }
      at = nl + 1;
    }
    return { symbols: out, trusted: true };
  } catch {
    return none();
  } finally {
    closeSync(fd);
  }
}

/**
 * Keep `added` (addresses symbolized by this resolve) for later ones: appended to a trusted file (one
 * write of whole lines, so that resolves appending at once never interleave within a line), else
 * written as a new file in place of the untrusted one (a temporary name, then renamed).
 */
export function saveSymbols(dir: string, buildId: string, tool: SymbolizerTool, added: Map<bigint, SourceFrame[] | null>, trusted: boolean): void {
  if (added.size === 0) return;
  const lines = [...added].map(([a, f]) => `${a.toString(16)}\t${JSON.stringify(f)}\n`).join('');
  const file = fileOf(dir, buildId, tool);
  try {
    makeDirs(dir); // never Node's recursive mkdir: it spins on procfs (base/make-dirs.ts)
    if (trusted) {
      const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
      try {
        writeSync(fd, lines);
      } finally {
        closeSync(fd);
      }
      return;
    }
    const tmp = `${file}.tmp.${process.pid}`;
    writeFileSync(tmp, lines);
    renameSync(tmp, file);
  } catch {
    /* a read-only home: no cache */
  }
}

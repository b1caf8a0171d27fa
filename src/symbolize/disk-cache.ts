/**
 * Symbols kept on disk between runs, keyed by build id (an object with the same build id has the same
 * code and debug information): `$XDG_CACHE_HOME/hyprof/symbols/<build id>.<tool>.json`, else under
 * `~/.cache`. Best effort: an unreadable or unwritable cache only costs time. Files are written to a
 * temporary name and renamed, so concurrent resolves never read half a file.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
  return join(dir, `${buildId.replace(/[^0-9a-fA-F]/g, '')}.${tool}.json`);
}

type Stored = Array<[string, SourceFrame[] | null]>;

/** One stored frame as symbolization gives it; anything else marks the file as corrupt. */
function isFrame(f: unknown): f is SourceFrame {
  const x = f as SourceFrame;
  return (
    typeof x === 'object' && x !== null && typeof x.function === 'string' && typeof x.file === 'string' &&
    Number.isSafeInteger(x.line) && x.line >= 0
  );
}

function isEntry(e: unknown): e is [string, SourceFrame[] | null] {
  if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string' || !/^0x[0-9a-f]{1,16}$/.test(e[0])) return false;
  const frames = e[1] as unknown;
  return frames === null || (Array.isArray(frames) && frames.length > 0 && frames.every(isFrame));
}

/**
 * The stored symbols of one module, or an empty table (then the module is symbolized afresh and the
 * file rewritten) when there is none or it cannot be trusted: not a regular file of this user's, not
 * valid JSON, or any entry not of the stored shape. A cache must never change what a profile says.
 */
export function loadSymbols(dir: string, buildId: string, tool: SymbolizerTool): Map<bigint, SourceFrame[] | null> {
  const out = new Map<bigint, SourceFrame[] | null>();
  let fd: number;
  try {
    fd = openSync(fileOf(dir, buildId, tool), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return out; /* no cache yet, or unreadable: symbolize afresh */
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o002) !== 0) return out;
    const stored = JSON.parse(readFileSync(fd, 'utf8')) as unknown;
    if (!Array.isArray(stored) || !stored.every(isEntry)) return out;
    for (const [addr, frames] of stored) out.set(BigInt(addr), frames);
    return out;
  } catch {
    return new Map();
  } finally {
    closeSync(fd);
  }
}

export function saveSymbols(dir: string, buildId: string, tool: SymbolizerTool, table: Map<bigint, SourceFrame[] | null>): void {
  try {
    makeDirs(dir); // never Node's recursive mkdir: it spins on procfs (base/make-dirs.ts)
    const file = fileOf(dir, buildId, tool);
    const tmp = `${file}.tmp.${process.pid}`;
    const stored: Stored = [...table].map(([a, f]) => [`0x${a.toString(16)}`, f]);
    writeFileSync(tmp, JSON.stringify(stored));
    renameSync(tmp, file);
  } catch {
    /* a read-only home: no cache */
  }
}

/**
 * JIT code names from a perf map (`/tmp/perf-<pid>.map`, written by V8 under `--perf-basic-prof`,
 * and by other JITs in the same format): one line per code object, `<start hex> <size hex> <name>`.
 *
 * V8 names code `<Type>:<tier><function> <url>:<line>:<column>` (`JS:*hot file:///app/a.mjs:2:13`;
 * tier `~` interpreted, `^` baseline, `+` Maglev, `*` optimised) or, for code that is no JavaScript
 * function, just `<Type>:<name>` (`Builtin:JSEntry`, `BytecodeHandler:Star0`). The line is where the
 * function starts: the map has no line table.
 *
 * Code objects move and are freed; a later line for the same addresses replaces an earlier one, so a
 * lookup takes the last line (in file order) whose range holds the address.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SourceFrame } from './frames.js';
import { lastAtOrBefore } from './sorted-search.js';

interface Entry {
  start: bigint;
  end: bigint;
  /** Position in the file: later lines win. */
  order: number;
  name: string;
}

/** The path V8 writes the perf map of process `pid` to. */
export function perfMapPath(pid: number): string {
  return `/tmp/perf-${pid}.map`;
}

/**
 * The file of WebAssembly code. `--cpu-prof` names a module `wasm://wasm/<hash of its bytes>`; V8's
 * code events and perf map name no module (docs/node.md), so every module's functions share this one.
 */
export const WASM_FILE = 'wasm://wasm';

/**
 * V8's name of WebAssembly code: `JS:<function>-<index>-<tier>` (`JS:wasm-function[12]-12-turbofan`,
 * `JS:wasm-to-js:ii:i-3-turbofan`), the function named by the module's name section, else
 * `wasm-function[<index>]`, as `--cpu-prof` names it.
 */
const WASM_CODE = /^[A-Za-z]+:(.+)-(?:\d+|<anonymous>)-(?:liftoff|turbofan)(?:-[a-z]+)?$/;

/** A V8 code name as a source frame: function, file (a path for file: URLs), line. */
export function jitFrame(name: string): SourceFrame {
  // The function's name may hold spaces (`get node`, `set size`: V8's names of accessors, as
  // `--cpu-prof` shows them): the location is what follows the last space.
  const m = /^([A-Za-z]+):([~^+*]?)(.*) (\S+):(\d+):(\d+)$/.exec(name);
  if (!m) {
    const w = WASM_CODE.exec(name);
    return w ? { function: w[1], file: WASM_FILE, line: 0 } : { function: name, file: '', line: 0 };
  }
  const fn = m[3] || '(anonymous)';
  return { function: fn, file: sourcePath(m[4]), line: Number(m[5]) };
}

/** File URLs made paths, per URL: a run's thousands of code objects come from a few hundred files. */
const paths = new Map<string, string>();

/** A code name's file: a `file://` URL as a path (kept as it is when it is not a valid one). */
function sourcePath(file: string): string {
  if (!file.startsWith('file://')) return file;
  let path = paths.get(file);
  if (path === undefined) {
    try {
      path = fileURLToPath(file);
    } catch {
      path = file;
    }
    paths.set(file, path);
  }
  return path;
}

export class PerfMap {
  private readonly entries: Entry[];
  /** The largest code size: how far back from an address a holding range can start. */
  private readonly maxSize: bigint;

  constructor(text: string) {
    const entries: Entry[] = [];
    let maxSize = 0n;
    let order = 0;
    for (const line of text.split('\n')) {
      const m = /^([0-9a-fA-F]+) ([0-9a-fA-F]+) (.+)$/.exec(line.trim());
      if (!m) continue;
      const start = BigInt(`0x${m[1]}`);
      const size = BigInt(`0x${m[2]}`);
      if (size === 0n) continue;
      if (size > maxSize) maxSize = size;
      entries.push({ start, end: start + size, order: order++, name: m[3] });
    }
    entries.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
    this.entries = entries;
    this.maxSize = maxSize;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The name of the code holding `address`, or null. */
  lookup(address: bigint): string | null {
    const e = this.entries;
    const at = lastAtOrBefore(e.length, (i) => e[i].start <= address);
    let best: Entry | null = null;
    for (let i = at; i >= 0 && address - e[i].start < this.maxSize; i--) {
      if (address < e[i].end && (!best || e[i].order > best.order)) best = e[i];
    }
    return best ? best.name : null;
  }

  /**
   * The perf map of process `pid`, or null when there is none. /tmp is everyone's: a map is used only
   * when it is a regular file (not a link), owned by the user resolving and not writable by every user,
   * so another user cannot plant names there; and not when it is older than the process (its last
   * write before the process started: left by an earlier process with the same pid). `warn` says why
   * a map is not used.
   */
  static forProcess(pid: number, processStartNs: bigint, warn: (text: string) => void): PerfMap | null {
    const path = perfMapPath(pid);
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') warn(`${path} is a symbolic link: not used for the JIT frames of process ${pid}`);
      else if (code !== 'ENOENT') warn(`${path}: ${(e as Error).message}; JIT frames of process ${pid} stay UNRESOLVED`);
      return null;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      const uid = process.getuid?.();
      const refuse = !st.isFile()
        ? 'is not a regular file'
        : uid !== undefined && st.uid !== BigInt(uid)
          ? `belongs to uid ${st.uid}, not to this user (uid ${uid})`
          : (st.mode & 0o002n) !== 0n
            ? 'is writable by every user'
            : null;
      if (refuse) {
        warn(`${path} ${refuse}: not used for the JIT frames of process ${pid}`);
        return null;
      }
      if (st.mtimeNs + 1_000_000_000n < processStartNs) {
        warn(`${path} is older than process ${pid} (left by an earlier process with the same pid): not used for its JIT frames`);
        return null;
      }
      return new PerfMap(readFileSync(fd, 'utf8'));
    } catch (e) {
      warn(`${path}: ${(e as Error).message}; JIT frames of process ${pid} stay UNRESOLVED`);
      return null;
    } finally {
      closeSync(fd);
    }
  }
}

/** The `*.raw` files directly in dir and in its subdirectories one level down (a run's raw directory
 * of ranks: `.hyprof-raw/rank<N>-<id>/`), sorted. */
export function rawFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (f.endsWith('.raw')) found.push(p);
    else {
      try {
        if (statSync(p).isDirectory()) for (const g of readdirSync(p).sort()) if (g.endsWith('.raw')) found.push(join(p, g));
      } catch {
        // gone meanwhile
      }
    }
  }
  return found;
}

/**
 * The raw measurement files named on a command line: files as given, directories expanded to the
 * `*.raw` files inside them (and one level of subdirectories: the raw directory that ranks of an MPI
 * job leave, `<dir>/.hyprof-raw`). Half-written files (`<name>.tmp.<pid>`) are never picked up.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../base/errors.js';
import { fileKind } from '../samples/raw-reader.js';

export function collectRawFiles(inputs: string[]): string[] {
  return collectInputs(inputs).raw;
}

/** The trace files (HYPROF_TRACE) in dir and one level down that have no raw file beside them: a
 * process that recorded a trace and ended without writing its measurements (killed by SIGKILL). */
export function orphanTracesUnder(dir: string): string[] {
  const found: string[] = [];
  const look = (d: string) => {
    for (const f of readdirSync(d).sort()) if (f.endsWith('.trace') && !existsSync(join(d, `${f.slice(0, -'.trace'.length)}.raw`))) found.push(join(d, f));
  };
  look(dir);
  for (const f of readdirSync(dir).sort()) {
    try {
      if (statSync(join(dir, f)).isDirectory()) look(join(dir, f));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The raw files of collectRawFiles, and the trace files without a raw file in the directories
 * named (a directory that holds only those is no error: its traces are still converted). */
export function collectInputs(inputs: string[]): { raw: string[]; orphanTraces: string[] } {
  const files: string[] = [];
  const orphans: string[] = [];
  for (const input of inputs) {
    let st;
    try {
      st = statSync(input);
    } catch {
      throw new UserError(`${input}: no such file or directory`);
    }
    if (st.isDirectory()) {
      const found = rawFilesUnder(input);
      const traces = orphanTracesUnder(input);
      if (found.length === 0 && traces.length === 0) throw new UserError(`${input}: no raw measurement files (*.raw) in this directory`);
      for (const f of found) files.push(f);
      for (const f of traces) orphans.push(f);
    } else if (st.isFile()) {
      files.push(input);
    } else {
      // A FIFO would block the read, /dev/zero would never end: refused before anything is read.
      throw new UserError(`${input}: ${fileKind(st)}, not a raw measurement file`);
    }
  }
  return { raw: [...new Set(files)], orphanTraces: [...new Set(orphans)] };
}

/**
 * Whether the files all lie in the private raw directory of one `hyprof run`: the runtime leaves
 * `started.<pid>` there (native/core/init.c). Its processes are then numbered as the run numbers
 * them, so the command a run prints for processes that outlived it works (resolve.ts, `fromRun`).
 */
export function fromOneRun(files: string[]): boolean {
  const dirs = new Set(files.map((f) => dirname(resolve(f))));
  if (dirs.size !== 1) return false;
  try {
    return readdirSync([...dirs][0]).some((f) => /^started\.\d+$/.test(f));
  } catch {
    return false;
  }
}

/** The output directory hyprof uses when none is given: HYPROF_DIR, TAU's PROFILEDIR, else the current one. */
export function defaultOutputDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HYPROF_DIR || env.PROFILEDIR || '.';
}

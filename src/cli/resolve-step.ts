/**
 * The resolve step shared by `hyprof resolve` and `hyprof run`: raw files → TAU profile directory,
 * with progress on a terminal, and no partial output directory left behind when it fails.
 */
import { accessSync, constants, existsSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { UserError } from '../base/errors.js';
import { createProgress } from '../base/progress.js';
import { otf2Writer } from './package-root.js';

export interface ResolveStepOptions {
  callpath?: boolean;
  callpathDepth?: number;
  keepAddresses?: boolean;
  symbolizer?: 'auto' | 'llvm-symbolizer' | 'addr2line';
  /** The files are everything an MPI run left: ranks without one are named as lost (resolve.ts). */
  allRanks?: boolean;
  /** `profile` (profile.<node>.<context>.<thread> files) or `merged` (tauprofile.xml); default TAU_PROFILE_FORMAT. */
  format?: 'profile' | 'merged';
  /** Trace files without a raw file (a process killed before it wrote one): converted into the archive too. */
  orphanTraces?: string[];
}

export interface ResolveSummary {
  /** Threads written (over all processes). */
  threads: number;
  /** How the written files are named, e.g. `profile.0.0.*` or `profile.{0,1}.0.*`. */
  pattern: string;
  /** Lost measurements by reason, over every thread of every process. */
  drops: Record<string, number>;
  warnings: string[];
  /** Images a process replaced by exec, each in a context of its own. */
  replaced: Array<{ node: number; context: number; executable: string }>;
  /** The OTF2 archive written from the run's trace (HYPROF_TRACE), if one was. */
  trace?: { archive: string; locations: number; events: number };
}

/** `profile.0.0.*`, or `profile.{0,1}.0.*` for several nodes: the written files in one glob. */
export function filePattern(files: string[]): string {
  if (files.length === 1 && /(^|\/)tauprofile\.xml$/.test(files[0])) return 'tauprofile.xml';
  const nodes = new Set<string>();
  const contexts = new Set<string>();
  for (const f of files) {
    const m = /profile\.(\d+)\.(\d+)\.\d+$/.exec(f);
    if (m) {
      nodes.add(m[1]);
      contexts.add(m[2]);
    }
  }
  const part = (set: Set<string>) => {
    const v = [...set].map(Number).sort((a, b) => a - b);
    if (v.length <= 1) return v.length === 1 ? String(v[0]) : '*';
    // Runs of three or more as ranges: profile.{0..1023}.0.* for a run of 1,024 ranks.
    const out: string[] = [];
    for (let i = 0; i < v.length; ) {
      let j = i;
      while (j + 1 < v.length && v[j + 1] === v[j] + 1) j++;
      if (j - i >= 2) out.push(`${v[i]}..${v[j]}`);
      else for (let k = i; k <= j; k++) out.push(String(v[k]));
      i = j + 1;
    }
    return `{${out.join(',')}}`;
  };
  return `profile.${part(nodes)}.${part(contexts)}.*`;
}

/**
 * Fail early, with the directory's name, when the profile could not be written there: an existing
 * non-directory or unwritable directory, or a missing one whose nearest existing parent is unwritable.
 */
export function checkOutputDir(outDir: string): void {
  if (outDir === '') throw new UserError('the output directory is an empty name; give a directory (-o DIR)');
  checkPathLength(outDir);
  let dir = resolve(outDir);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new UserError(`cannot write the profile to ${outDir}: it exists and is not a directory`, 1);
  } else {
    while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
    if (!statSync(dir).isDirectory()) throw new UserError(`cannot create the output directory ${outDir}: ${dir} is not a directory`, 1);
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new UserError(
      dir === resolve(outDir)
        ? `cannot write the profile to ${outDir}: permission denied`
        : `cannot create the output directory ${outDir}: ${dir} is not writable`,
      1,
    );
  }
}

/** Linux's limits: a path of at most PATH_MAX - 1 bytes, names of at most NAME_MAX bytes. */
const PATH_MAX = 4096;
const NAME_MAX = 255;

/** A path the system cannot open gets a message of its own, with the path shortened to be readable. */
function checkPathLength(outDir: string): void {
  const full = resolve(outDir);
  const bytes = Buffer.byteLength(full);
  const longName = full.split(sep).find((part) => Buffer.byteLength(part) > NAME_MAX);
  if (bytes < PATH_MAX && longName === undefined) return;
  const shown = outDir.length > 100 ? `${outDir.slice(0, 60)}...${outDir.slice(-30)}` : outDir;
  const why =
    bytes >= PATH_MAX
      ? `the path is longer than the system's limit (${bytes} bytes, at most ${PATH_MAX - 1})`
      : `a name in the path is longer than the system's limit (${Buffer.byteLength(longName!)} bytes, at most ${NAME_MAX})`;
  throw new UserError(`cannot write the profile to ${shown}: ${why}`, 1);
}

export async function resolveStep(files: string[], outDir: string, opts: ResolveStepOptions): Promise<ResolveSummary> {
  checkOutputDir(outDir);
  const existed = existsSync(outDir);
  const progress = createProgress();
  try {
    // Loaded on use: `report` and `config` never pay for the symbolization machinery.
    const { resolveRawFiles } = await import('../resolve/resolve.js');
    const result = await resolveRawFiles(files, {
      ...opts,
      outDir,
      otf2Writer: otf2Writer(),
      onProgress: (done, total, what) => progress.update(`hyprof: ${what} (${done}/${total})`),
    });
    progress.done();
    return {
      threads: result.threads,
      pattern: filePattern(result.files),
      drops: result.drops,
      warnings: result.warnings,
      replaced: result.replacedImages.map(({ node, context, executable }) => ({ node, context, executable })),
      ...(result.trace?.archive ? { trace: { archive: result.trace.archive, locations: result.trace.locations, events: result.trace.events } } : {}),
    };
  } catch (e) {
    progress.done();
    // A directory this step created holds at most a partial profile: never leave one behind.
    if (!existed && existsSync(outDir)) rmSync(outDir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The resolve step shared by `hyprof resolve` and `hyprof run`: raw files → TAU profile directory,
 * with progress on a terminal, and no partial output directory left behind when it fails.
 */
import { accessSync, constants, existsSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { abandonPendingWrites } from '../profile/tau-writer.js';
import { dirname, join, resolve, sep } from 'node:path';
import { UserError } from '../base/errors.js';
import { systemTreeOf } from '../base/make-dirs.js';
import { createProgress } from '../base/progress.js';
import { otf2Writer } from '../base/package-root.js';

export interface ResolveStepOptions {
  callpath?: boolean;
  callpathDepth?: number;
  keepAddresses?: boolean;
  symbolizer?: 'auto' | 'llvm-symbolizer' | 'addr2line';
  /** The files are everything an MPI run left: ranks without one are named as lost (resolve.ts). */
  allRanks?: boolean;
  /** `profile` (profile.<node>.<context>.<thread> files) or `merged` (tauprofile.xml); default TAU_PROFILE_FORMAT. */
  format?: 'profile' | 'merged';
  /** The files are one run's raw directory (resolve.ts). */
  fromRun?: boolean;
  /** The files are what a raw directory the user named holds: a whole run (resolve.ts). */
  rawDirectory?: boolean;
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
  /** Samples the profile holds (the shares of dropped samples are of these and the dropped ones). */
  samples?: number;
  warnings: string[];
  /** Images a process replaced by exec, each in a context of its own. */
  replaced: Array<{ node: number; context: number; executable: string }>;
  /** The profile files of earlier runs this one replaced or removed (same nodes), and when the newest was written. */
  earlier?: { files: number; newestMs: number };
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
  refuseSystemTree(outDir);
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

/**
 * An output under /proc, /sys or /dev (links followed) is refused by name: those are the kernel's
 * trees, and Node's recursive mkdir would spin forever on procfs (base/make-dirs.ts).
 */
export function refuseSystemTree(outDir: string): void {
  const tree = systemTreeOf(outDir);
  if (tree) throw new UserError(`cannot write the profile to ${outDir}: it lies under ${tree}, the kernel's ${tree === '/dev' ? 'device' : 'system'} tree, where no files are written; choose another directory`, 2);
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

/** TAU's profile files in `dir` (profile.n.c.t, also in MULTI__ directories, tauprofile.xml) with their inode and time. */
export function profileFilesIn(dir: string): Map<string, { ino: number; mtimeMs: number }> {
  const found = new Map<string, { ino: number; mtimeMs: number }>();
  const look = (d: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (depth === 0 && n.startsWith('MULTI__')) look(p, 1);
      else if (/^profile\.\d+\.\d+\.\d+$/.test(n) || n === 'tauprofile.xml') {
        try {
          const st = statSync(p);
          found.set(p, { ino: st.ino, mtimeMs: st.mtimeMs });
        } catch {
          /* gone meanwhile */
        }
      }
    }
  };
  look(dir, 0);
  return found;
}

/**
 * Which of the files there before were replaced or removed by this write: those of the nodes it wrote
 * (ranks resolving their own files side by side never count each other's), now gone or another file.
 */
export function replacedFiles(before: Map<string, { ino: number; mtimeMs: number }>, written: string[]): { files: number; newestMs: number } | undefined {
  const nodeOf = (p: string): string | undefined => /profile\.(\d+)\.\d+\.\d+$/.exec(p)?.[1];
  const merged = written.some((w) => w.endsWith('tauprofile.xml'));
  const nodes = new Set(written.map(nodeOf));
  let files = 0;
  let newestMs = 0;
  for (const [path, id] of before) {
    if (!merged && !path.endsWith('tauprofile.xml') && !nodes.has(nodeOf(path))) continue;
    let same = false;
    try {
      same = statSync(path).ino === id.ino;
    } catch {
      /* removed */
    }
    if (same) continue;
    files++;
    newestMs = Math.max(newestMs, id.mtimeMs);
  }
  return files > 0 ? { files, newestMs } : undefined;
}

/** The resolve under way in this process, for an interrupt to clean up after (abandonResolve). */
let current: { outDir: string; existed: boolean } | undefined;

/**
 * An interrupted resolve (SIGINT, SIGTERM, SIGHUP) leaves nothing half written: the temporary
 * directories of the write (`<out>/.hyprof-writing-XXXXXX`) go, and the output directory too when
 * this resolve created it and it is empty. Returns what to say, or '' when no resolve was under way.
 */
export function abandonResolve(): string {
  if (!current) return '';
  const removed = abandonPendingWrites();
  if (!current.existed) {
    try {
      rmdirSync(current.outDir);
    } catch {
      /* not empty (an earlier profile) or not made yet */
    }
  }
  const what = removed.length > 0 ? `the partial profile (${removed.join(', ')}) was removed` : 'nothing was written yet';
  return `${what}; no profile written to ${current.outDir}`;
}

/** The resolve's modules, loaded once. */
let loading: Promise<typeof import('../resolve/resolve.js')> | undefined;
const resolveModule = () => (loading ??= import('../resolve/resolve.js'));

/**
 * Load the resolve's modules (loaded on use: `report` and `config` never pay for the symbolization
 * machinery). `hyprof run` calls this before it starts its program, so that a program stopped by a
 * signal has its profile sooner, and the loading (about 50 ms of CPU) does not compete with the
 * program for a CPU. A failure is said when the resolve itself loads them.
 */
export async function preloadResolve(): Promise<void> {
  await resolveModule().catch(() => {
    loading = undefined; /* said when the resolve itself loads them */
  });
}

export async function resolveStep(files: string[], outDir: string, opts: ResolveStepOptions): Promise<ResolveSummary> {
  checkOutputDir(outDir);
  const existed = existsSync(outDir);
  current = { outDir, existed };
  const before = profileFilesIn(outDir);
  const progress = createProgress();
  try {
    const { resolveRawFiles } = await resolveModule();
    const result = await resolveRawFiles(files, {
      ...opts,
      outDir,
      otf2Writer: otf2Writer(),
      onProgress: (done, total, what) => progress.update(`hyprof: ${what} (${done}/${total})`),
    });
    progress.done();
    current = undefined;
    const earlier = replacedFiles(before, result.files);
    return {
      ...(earlier ? { earlier } : {}),
      threads: result.threads,
      pattern: filePattern(result.files),
      drops: result.drops,
      samples: result.samples,
      warnings: result.warnings,
      replaced: result.replacedImages.map(({ node, context, executable }) => ({ node, context, executable })),
      ...(result.trace?.archive ? { trace: { archive: result.trace.archive, locations: result.trace.locations, events: result.trace.events } } : {}),
    };
  } catch (e) {
    current = undefined;
    progress.done();
    // A directory this step created holds at most a partial profile: never leave one behind.
    if (!existed && existsSync(outDir)) rmSync(outDir, { recursive: true, force: true });
    throw e;
  }
}

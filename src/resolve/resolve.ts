/**
 * Raw measurement files → one TAU profile directory, in two passes so that thousands of processes
 * (the ranks of an MPI run) resolve in bounded memory and on every core:
 *  1. read every file once, keeping only a summary (numbering, metrics, what it says of its rank)
 *     and the addresses to symbolize; check that the files belong in one profile (any defect stops
 *     everything before a byte is written); symbolize every module once for all processes;
 *  2. assemble each file and write its threads' files into a temporary directory (resolve-file.ts),
 *     in worker threads when there are many files (resolve-workers.ts), then rename them into place,
 *     and write the OpenMP analysis and, when asked, TAU's merged single-file format.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { systemErrorText, UserError } from '../base/errors.js';
import { readMpiSection } from '../analysis/mpi-raw.js';
import { mergeProcessNotes, removeRankOpenmpFiles, writeOpenmpFile } from '../analysis/openmp.js';
import { INFO_MPI_RANK, INFO_NODE_SET, INFO_RANK_FROM_ENV, INFO_RUN_ROOT, type RawInfo, type RawProcess } from '../samples/raw-model.js';
import { readRaw } from '../samples/raw-reader.js';
import { Symbolizer } from '../symbolize/symbolizer.js';
import { fileNumbering } from './assemble.js';
import { IMAGE_ATTRIBUTES, replacedImages, type ReplacedImage } from './exec-images.js';
import { removeRankModulesFiles, writeModulesFile } from '../profile/modules-file.js';
import { RANK_SETTINGS, rankNotes, RanksAcc, type RankRecord, type RankSummary } from '../profile/mpi-ranks.js';
import { assembleFile, type AssembleJob, type FilePart } from './resolve-file.js';
import { PartsFold } from './parts-fold.js';
import { assembleInWorkers, workerCount } from './resolve-workers.js';
import { checkTraceFiles, orphanTracePart, traceFileOf, traceSamplePcs, writeTraceArchive, type TracePart, type TraceResult } from './trace-otf2.js';
import { writeMergedFile } from '../profile/tau-merged.js';
import { metadataPairs, ownString } from '../profile/tau-reader.js';
import { MERGED_FILE } from '../profile/tau-merged-reader.js';
import { abandonProfile, commitProfile, movesOf, startProfileWrite, type ProfileWrite, type StaleRule } from '../profile/tau-writer.js';

export interface ResolveOptions {
  outDir: string;
  callpath?: boolean;
  callpathDepth?: number;
  keepAddresses?: boolean;
  symbolizer?: 'auto' | 'llvm-symbolizer' | 'addr2line';
  onProgress?: (done: number, total: number, what: string) => void;
  /**
   * These raw files are all an MPI run left (`hyprof run -- mpirun ...`, or `hyprof resolve` of a
   * run's raw directory): ranks of the run without a file are named as lost. Default: when the files
   * hold more than one rank. A resolve of one rank's own files (each rank resolving at its exit)
   * cannot know about the others; `hyprof report` says it then.
   */
  allRanks?: boolean;
  /** `profile` (TAU's profile.<node>.<context>.<thread> files, the default) or `merged` (tauprofile.xml). */
  format?: 'profile' | 'merged';
  /**
   * The files are the processes of one `hyprof run` (its raw directory), numbered as the run numbers
   * them (a context per process) even when the run's root process left no file: a shell that ended
   * by _exit, its background jobs resolved later.
   */
  fromRun?: boolean;
  /** The files are what a run's raw directory holds (`hyprof run`'s, or one named to `hyprof resolve`): a whole run. */
  rawDirectory?: boolean;
  /**
   * The OTF2 writer (hyprof-otf2, native/otf2/), null when it was not built (no OTF2 library): a run
   * that recorded a trace then gets a note instead of an archive (trace-otf2.ts).
   */
  otf2Writer?: string | null;
  /**
   * Trace files with no raw file beside them: a process that ended without writing its measurements
   * (killed by SIGKILL, with no flush before). Its trace goes into the archive with the names the
   * trace file holds; it has no profile (trace-otf2.ts, orphanTracePart).
   */
  orphanTraces?: string[];
  /**
   * These files are one node's part of a whole run, resolved beside the other nodes' parts as a step
   * of the job (`hyprof resolve --per-node`, run/node-step.ts): written as a whole run's (one
   * analysis file, every earlier file replaced) into a directory of their own; what only the whole
   * run can say (ranks lost, settings that differ) is left to the reduction, which gets each
   * process's rank record (`rankRecords`); trace files are refused (one archive holds every rank).
   */
  part?: boolean;
}

export interface ResolveResult {
  outDir: string;
  /** Profile files written. */
  files: string[];
  processes: number;
  threads: number;
  samples: number;
  /** Lost measurements by reason, summed over every thread of every process. */
  drops: Record<string, number>;
  warnings: string[];
  /** The ranks of an MPI run (undefined when no process knew an MPI rank). */
  ranks?: RankSummary;
  /** Worker threads the assembly ran on (0: the main thread). */
  workers: number;
  /** Images replaced by exec that another image of their process follows, each in a context of its own. */
  replacedImages: ReplacedImage[];
  /** The OTF2 archive written from the run's trace files (HYPROF_TRACE); undefined when none recorded one. */
  trace?: TraceResult;
  /** The metrics of the profile (one set for every process). */
  metrics: string[];
  /** With `part`: what each MPI process says of its rank, for the whole run's rank summary (mpi-ranks.ts). */
  rankRecords?: RankRecord[];
  /** With `part`: the notes about single processes, which the reduction joins over the run (analysis/openmp.ts, mergeProcessNotes). */
  processNotes?: string[];
}

/** What the first pass keeps of a process. */
interface ProcessSummary {
  file: string;
  info: Pick<RawInfo, 'node' | 'flags' | 'pid' | 'metrics' | 'attributes' | 'startNs'>;
  startMs: number;
}

/** Processes of an MPI run, or programs that chose their node, may be resolved rank by rank into one directory. */
function isRankOfSeveral(p: ProcessSummary): boolean {
  return (p.info.flags & (INFO_MPI_RANK | INFO_RANK_FROM_ENV | INFO_NODE_SET)) !== 0;
}

/** The format asked for: the option, else TAU_PROFILE_FORMAT=merged. */
export function profileFormat(opt: ResolveOptions['format'], env: NodeJS.ProcessEnv = process.env): 'profile' | 'merged' {
  if (opt) return opt;
  return (env.TAU_PROFILE_FORMAT ?? '').trim().toLowerCase() === 'merged' ? 'merged' : 'profile';
}

/** A TAU_PROFILE_FORMAT that is neither of the two formats hyprof writes: what to say (TAU itself
 * also knows snapshot and cubex), or null. Set but unknown, the thread files are written. */
export function profileFormatWarning(opt: ResolveOptions['format'], env: NodeJS.ProcessEnv = process.env): string | null {
  const v = (env.TAU_PROFILE_FORMAT ?? '').trim();
  if (opt || v === '' || ['profile', 'merged'].includes(v.toLowerCase())) return null;
  return `TAU_PROFILE_FORMAT=${v} is not a format hyprof writes (profile or merged): profile.<node>.<context>.<thread> files are written`;
}

export async function resolveRawFiles(files: string[], opts: ResolveOptions): Promise<ResolveResult> {
  const orphans = (opts.orphanTraces ?? []).map(orphanTracePart);
  if (files.length === 0 && orphans.length > 0) return traceOnly(orphans, opts);
  if (files.length === 0) throw new UserError('no raw measurement files to resolve');
  const symbolizer = new Symbolizer({
    symbolizer: opts.symbolizer,
    onProgress: (done, total, what) => opts.onProgress?.(done, total, `symbolizing ${what}`),
  });

  // Pass 1: summaries and addresses; every file is checked before anything is written.
  const tracePcs = new Map<string, string[]>();
  // A lone file (a program's own run) is read once, whole, and assembled from what pass 1 read:
  // reading it twice was a tenth of the resolve of a Node run.
  const workers = workerCount(files.length);
  let lone: RawProcess | undefined;
  // Kept for every process until the end, so a few bytes: the attributes the exec images need, each
  // pair shared by the processes that have it (a host's, the program's), and one list of metrics for
  // all; what the rank notes read goes to the ranks' summary at once (profile/mpi-ranks.ts). Each
  // rank's own copies were about 1.2 KB a rank (test/mpi-scale.test.ts).
  const pair = metadataPairs();
  const sameMetrics = new Map<string, string[]>();
  const sameAttributes = new Map<string, Array<[string, string]>>();
  const ranksAcc = new RanksAcc();
  // A resolve per node hands its ranks' records to the reduction (run/node-step.ts): what the rank notes read.
  const partRecords: RankRecord[] = [];
  const procs: ProcessSummary[] = files.map((file, i) => {
    opts.onProgress?.(i, files.length, `reading ${file}`);
    // Checked whole; the timer statistics are read again, file by file, when it is assembled.
    const p = readRaw(file, { statistics: files.length === 1 && workers === 0 });
    if (files.length === 1 && workers === 0) lone = p;
    symbolizer.collect(p);
    for (const s of readMpiSection(file) ?? []) if (s.path) symbolizer.collectModule(s.path, '', [s.pc - 1n - s.bias]);
    // The trace's samples are named as the profile's (trace-otf2.ts): their addresses too (a damaged
    // trace file is refused here, as by checkTraceFiles below).
    const trace = traceFileOf(file);
    if (trace && opts.part) {
      throw new UserError(
        `${trace}: a trace (HYPROF_TRACE) is one OTF2 archive of every rank, which a resolve per node does not write: ` +
          'resolve the whole run at once (hyprof resolve <raw directory>)',
      );
    }
    if (trace && p.sampling?.enabled) {
      const pcs = traceSamplePcs(opts.otf2Writer ?? null, trace);
      symbolizer.collectPcs(p, pcs);
      if (pcs.length > 0) tracePcs.set(file, pcs.map(([pc, ret]) => `${pc.toString(16)},${ret ? 1 : 0}`));
    }
    ranksAcc.add({ node: p.info.node, attributes: p.info.attributes, source: file });
    if (opts.part) partRecords.push({ node: p.info.node, attributes: p.info.attributes.filter(([k]) => k.startsWith('MPI ') || RANK_SETTINGS.has(k)).map(([k, v]) => pair(k, v)), source: file });
    const metrics = shared(sameMetrics, p.info.metrics.map(ownString));
    return {
      file,
      info: {
        node: p.info.node,
        flags: p.info.flags,
        pid: p.info.pid,
        metrics,
        attributes: shared(sameAttributes, p.info.attributes.filter(([k]) => IMAGE_ATTRIBUTES.has(k)).map(([k, v]) => pair(k, v))),
        startNs: p.info.startNs,
      },
      startMs: Number(p.info.startNs / 1_000_000n),
    };
  });
  const underRun = opts.fromRun === true || procs.some((p) => (p.info.flags & INFO_RUN_ROOT) !== 0);
  const images = replacedImages(procs, underRun);
  // A Map: the files of a run as object keys would each be copied into V8's table of names.
  const contexts = new Map(images.map((i) => [i.file, i.context]));
  checkCollisions(procs, underRun, contexts);
  const metrics = procs[0].info.metrics;
  for (const p of procs) {
    if (p.info.metrics.join(':') !== metrics.join(':')) {
      const who = (q: ProcessSummary) => (isRankOfSeveral(q) ? `${q.file} (rank ${q.info.node})` : q.file);
      throw new UserError(
        `${who(p)} measured ${p.info.metrics.join(', ')} but ${who(procs[0])} measured ${metrics.join(', ')}: ` +
          'one profile holds one set of metrics: resolve these files into separate directories',
      );
    }
  }
  const mpiRun = procs.some((p) => (p.info.flags & (INFO_MPI_RANK | INFO_RANK_FROM_ENV)) !== 0);
  const ranks = mpiRun ? ranksAcc.summary() : undefined;
  // Every rank is here: several, or the one of a world of one (a program started without mpirun).
  // Without MPI, a process that set its node (TAU_PROFILE_SET_NODE, as TAU's examples do) is the
  // whole run when the files are a run's raw directory (hyprof run's, or one named to hyprof
  // resolve); its own files resolved at its exit are not (a program of forked processes, each with
  // its node, resolves each at its exit).
  const allRanks =
    opts.part === true ||
    (opts.allRanks ?? (ranks !== undefined ? ranks.present > 1 || ranks.worldSize === 1 : opts.fromRun === true || opts.rawDirectory === true));
  const format = profileFormat(opts.format);
  if (format === 'merged' && procs.some(isRankOfSeveral) && !allRanks) {
    throw new UserError(
      `TAU_PROFILE_FORMAT=merged: one file holds every rank, and these raw files are one rank's (${procs[0].file}): ` +
        'resolve the whole run at once (hyprof run -- mpirun ..., or hyprof resolve <raw directory> --format merged)',
    );
  }
  // A damaged trace file stops the resolve here too, before anything is written.
  checkTraceFiles(opts.otf2Writer ?? null, [...files.map(traceFileOf).filter((f): f is string => f !== null), ...orphans.map((o) => o.file)]);
  await symbolizer.flush();

  // Pass 2: assemble and write, file by file.
  let write: ProfileWrite;
  try {
    write = startProfileWrite(opts.outDir, [...metrics]);
  } catch (e) {
    throw writeError(opts.outDir, e);
  }
  const job: AssembleJob = { write, callpath: opts.callpath, callpathDepth: opts.callpathDepth, keepAddresses: opts.keepAddresses, underRun, contexts, tracePcs };
  const parts = new PartsFold();
  const keep = (part: FilePart, done: number) => {
    parts.add(part);
    opts.onProgress?.(done, files.length, `assembling ${part.file}`);
  };
  const warnings: string[] = [];
  try {
    if (workers > 0) {
      for (const w of await assembleInWorkers(files, job, symbolizer, opts.symbolizer, workers, keep)) warnings.push(w);
    } else {
      for (const f of files) keep(await assembleFile(f, job, symbolizer, lone), parts.count + 1);
      lone = undefined;
    }
  } catch (e) {
    abandonProfile(write);
    throw writeError(opts.outDir, e);
  }
  opts.onProgress?.(files.length, files.length, `writing ${opts.outDir}`);

  let written: string[];
  try {
    // Ranks resolving their own files into one directory at the same time must leave each other's alone.
    const stale: StaleRule =
      procs.some(isRankOfSeveral) && !allRanks
        ? { kind: 'ranks', before: procs.reduce((m, p) => Math.min(m, p.startMs), Infinity), worldSize: ranks?.worldSize }
        : { kind: 'all' };
    const moves = movesOf(write, parts.moves);
    const nodes = parts.nodes;
    if (format === 'merged') {
      const merged = writeMergedFile(moves.map(([from]) => from), metrics, join(write.tmp, MERGED_FILE));
      // The per-thread files were the merge's input only; the one file replaces them (and their leftovers).
      written = commitProfile(write, [[merged, join(opts.outDir, MERGED_FILE)]], nodes, stale);
    } else {
      written = commitProfile(write, moves, nodes, stale);
      if (stale.kind === 'all') rmSync(join(opts.outDir, MERGED_FILE), { force: true });
    }
    const openmp = parts.openmp;
    // The analyses beside the profile: one file, or one per rank when ranks resolve on their own at once.
    const sidecarRank = stale.kind === 'ranks' ? [...nodes].reduce((m, n) => Math.min(m, n), Infinity) : undefined;
    if (sidecarRank === undefined) {
      removeRankOpenmpFiles(opts.outDir);
      removeRankModulesFiles(opts.outDir);
    }
    writeOpenmpFile(opts.outDir, openmp, sidecarRank);
    writeModulesFile(opts.outDir, parts.modules.data(), sidecarRank);
  } catch (e) {
    throw writeError(opts.outDir, e);
  }
  // The trace: one archive for the processes resolved together; ranks resolving their own files into
  // one directory at once would each replace it, so they leave it to a resolve of the whole run.
  const traceParts = [...parts.traces, ...orphans];
  let trace: TraceResult | undefined;
  if (traceParts.length > 0 && procs.some(isRankOfSeveral) && !allRanks) {
    trace = {
      archive: null,
      locations: 0,
      events: 0,
      warnings: [
        `the trace files of these ranks are kept beside their raw files: one OTF2 archive holds every rank, ` +
          'written by a resolve of the whole run (hyprof run -- mpirun ..., or hyprof resolve <raw directory>)',
      ],
    };
  } else if (traceParts.length > 0) {
    trace = writeTraceArchive(opts.otf2Writer ?? null, opts.outDir, [...metrics], traceParts);
  }

  return {
    outDir: opts.outDir,
    files: written,
    processes: procs.length,
    threads: parts.threads,
    samples: parts.samples,
    drops: parts.drops,
    // The program's own misuse warnings (each part's warnings) are not repeated: the runtime printed
    // each one while the program ran, and the profile's metadata keeps them (hyprof warning N).
    warnings: [
      ...[profileFormatWarning(opts.format)].filter((w): w is string => w !== null),
      ...new Set([...symbolizer.warnings, ...warnings]),
      // A part's per-process notes are joined over the whole run by the reduction (`processNotes`).
      ...(opts.part ? [] : mergeProcessNotes(parts.openmpNotes)),
      ...parts.stackNotes,
      ...(ranks && !opts.part ? rankNotes(allRanks ? ranks : { ...ranks, lost: [] }) : []),
      ...orphans.map(orphanNote),
      ...(trace?.warnings ?? []),
    ],
    ...(ranks ? { ranks } : {}),
    workers,
    metrics: [...metrics],
    ...(opts.part ? { rankRecords: mpiRun ? partRecords : [], processNotes: parts.openmpNotes } : {}),
    replacedImages: images,
    ...(trace ? { trace } : {}),
  };
}

/** Only trace files, no raw file (every process was killed before writing its measurements): the
 * archive alone, no profile. */
function traceOnly(orphans: TracePart[], opts: ResolveOptions): ResolveResult {
  checkTraceFiles(opts.otf2Writer ?? null, orphans.map((o) => o.file));
  let trace: TraceResult;
  try {
    mkdirSync(opts.outDir, { recursive: true });
    trace = writeTraceArchive(opts.otf2Writer ?? null, opts.outDir, ['TIME'], orphans);
  } catch (e) {
    throw writeError(opts.outDir, e);
  }
  return {
    outDir: opts.outDir,
    files: [],
    processes: 0,
    threads: 0,
    samples: 0,
    drops: {},
    warnings: [...orphans.map(orphanNote), ...trace.warnings],
    workers: 0,
    replacedImages: [],
    trace,
    metrics: ['TIME'],
  };
}

function orphanNote(o: TracePart): string {
  return (
    `${o.file}: no raw measurement file beside this trace (the process ended without writing its measurements: killed?): ` +
    'its trace is converted with the names it holds, and it has no profile'
  );
}

/** Disk full, quota, a directory where a profile file should be: the environment's, said in words. */
function writeError(outDir: string, e: unknown): unknown {
  const why = systemErrorText(e);
  return why ? new UserError(`cannot write the profile to ${outDir}: ${why}`, 1) : e;
}

/** Two processes must never write the same profile.<node>.<context>.* files (`contexts`: the images
 * replaced by exec, numbered apart: exec-images.ts). */
/** One list for every process whose list has the same items (read, never changed). */
function shared<T extends string | [string, string]>(pool: Map<string, T[]>, list: T[]): T[] {
  const key = list.flat().join('\u0000');
  const kept = pool.get(key);
  if (kept) return kept;
  pool.set(ownString(key), list);
  return list;
}

function checkCollisions(procs: ProcessSummary[], underRun: boolean, contexts: Map<string, number>): void {
  const owner = new Map<string, ProcessSummary>();
  for (const p of procs) {
    const { node, context: own } = fileNumbering(p, underRun);
    const context = contexts.get(p.file) ?? own;
    const key = `${node}.${context}`;
    const other = owner.get(key);
    if (other) {
      throw new UserError(
        `${other.file} and ${p.file} would both write profile.${key}.* (node ${node}, context ${context}): ` +
          'resolve them into different directories',
      );
    }
    owner.set(key, p);
  }
}
